/**
 * A client attached to a session (`ptyhub attach`, or a remote ptyhub re-attaching at a byte
 * offset): the screen redrawn or the raw bytes replayed, then the session's output streamed, and
 * the human's window size applied when asked.
 */
import { SerializeAddon } from "@xterm/addon-serialize";
import { AppError, toAppError } from "../api/errors.ts";
import { logger } from "../log.ts";
import type { LocalHost } from "../host/local-host.ts";
import type { Session } from "../session/session.ts";
import { SCROLLBACK_KEPT_ROWS } from "../terminal/emulator.ts";
import { toBase64, type CallFrame } from "../daemon-client/protocol.ts";
import { parseControlParams, type ControlInput } from "../daemon-client/control-table.ts";
import type { ReplayLogs } from "./replay-log.ts";
import { sendFatal, type Client } from "./connected-client.ts";

const log = logger("daemon");

/** Rows of scrollback replayed to an attaching human above the current screen. */
const ATTACH_SCROLLBACK_ROWS = SCROLLBACK_KEPT_ROWS;
/**
 * Unsent output allowed to pile up for an attached human whose terminal cannot keep up; beyond
 * it the viewer is disconnected rather than letting the daemon's memory grow without bound.
 */
const ATTACH_MAX_BACKLOG_BYTES = 16 * 1024 * 1024;
/** Bounds on the session size an attached human may impose (same as term_resize). */
const COLS_RANGE = [20, 500] as const;
const ROWS_RANGE = [5, 200] as const;

function clamp(n: unknown, [lo, hi]: readonly [number, number]): number | null {
  if (typeof n !== "number" || !Number.isInteger(n)) return null;
  return Math.min(hi, Math.max(lo, n));
}

const serializers = new WeakMap<Session, SerializeAddon>();

/** The session's screen (and some scrollback) as escape sequences that redraw it. */
function serializeScreen(s: Session): string {
  let addon = serializers.get(s);
  if (!addon) {
    addon = new SerializeAddon();
    s.emulator.term.loadAddon(addon);
    serializers.set(s, addon);
  }
  return addon.serialize({ scrollback: ATTACH_SCROLLBACK_ROWS });
}

/** The attached human's window changed: the session follows it, within the bounds. */
export function resizeFromHuman(c: Client, frame: { cols: unknown; rows: unknown }): void {
  const s = c.attachment?.session;
  const cols = clamp(frame.cols, COLS_RANGE);
  const rows = clamp(frame.rows, ROWS_RANGE);
  if (s && !s.exit && cols !== null && rows !== null && (cols !== s.cols || rows !== s.rows)) s.resize(cols, rows);
}

/**
 * Attaches the connection to a session: the reply carries the current screen serialized, and
 * from the same instant on, the session's raw output streams as `output` frames (registered
 * synchronously with the serialization, so nothing falls between the two).
 */
export function attachClient(c: Client, f: CallFrame, host: LocalHost, replayLogs: ReplayLogs): void {
  let p: ControlInput<"attach">;
  let s: Session;
  try {
    p = parseControlParams("attach", f.params ?? {});
    s = host.manager.get(p.session);
  } catch (err) {
    c.conn.send({ type: "error", id: f.id, error: toAppError(err).toPayload() });
    return;
  }
  detachClient(c);
  // Size policy: the session keeps its size (the agent's view is what counts), unless the human
  // asked for `--resize`; then it takes the human's window size, and follows it.
  const cols = clamp(p.cols, COLS_RANGE);
  const rows = clamp(p.rows, ROWS_RANGE);
  if (p.resize === true && !s.exit && cols !== null && rows !== null && (cols !== s.cols || rows !== s.rows))
    s.resize(cols, rows);
  // A remote ptyhub (`since`: the byte it had reached) gets the raw bytes after it, marks included,
  // and what it needs to parse them as this session does; a human gets the screen redrawn.
  const replay = p.since !== undefined ? replayLogs.of(s).since(p.since) : null;
  const screen = replay ? "" : serializeScreen(s);
  const raw = replay
    ? {
        offset: replay.offset,
        replay: toBase64(replay.bytes),
        nonce: s.nonce,
        integration: s.integration,
        family: s.family,
      }
    : {};
  let exitSent = false;
  const sendExit = () => {
    if (!s.exit || exitSent) return;
    exitSent = true;
    c.conn.send({ type: "exit", exit_code: s.exit.exitCode, reason: s.exit.reason });
  };
  const untap = s.tapOutput((data) => {
    if (c.conn.backlog > ATTACH_MAX_BACKLOG_BYTES) {
      log.warn(`client ${c.serial} cannot keep up with session ${s.id}: detaching it`);
      detachClient(c);
      sendFatal(
        c,
        new AppError(
          "DAEMON_UNAVAILABLE",
          "detached: your terminal could not keep up with the session's output",
          "Attach again.",
          true,
        ),
      );
      return;
    }
    c.conn.send({ type: "output", data: toBase64(data) });
  });
  const unsubscribe = s.onChange(sendExit);
  const detachHuman = s.attach();
  let attached = true;
  c.attachment = {
    session: s,
    via: p.via ?? "attach",
    detach: () => {
      if (!attached) return;
      attached = false;
      untap();
      unsubscribe();
      detachHuman();
    },
  };
  log.info(`client ${c.serial} attached to ${s.id}`);
  c.conn.send({
    type: "result",
    id: f.id,
    result: {
      session: s.id,
      cols: s.cols,
      rows: s.rows,
      screen,
      exited: s.exit !== null,
      // How it ended, in the result itself: an exit frame sent right after it can reach the
      // client before the client is listening for one.
      exit: s.exit ? { exit_code: s.exit.exitCode, reason: s.exit.reason } : null,
      ...raw,
    },
  });
  sendExit();
}

export function detachClient(c: Client): void {
  if (!c.attachment) return;
  log.info(`client ${c.serial} detached from ${c.attachment.session.id}`);
  c.attachment.detach();
  c.attachment = null;
}
