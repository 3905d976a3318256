/**
 * A live terminal in the browser: one WebSocket per viewer, bridged to the daemon as `ptyhub
 * attach` is (src/daemon/attach-stream.ts): the session's screen redrawn first, then its output as
 * it happens. A viewer is read-only until the human takes over: only then is what they type sent
 * into the session (the daemon records it in the audit trail as typed by the human) and their
 * window size applied to it. A read-only viewer changes nothing the agent sees.
 *
 * Browser → server frames are JSON text: {type:"takeover"|"release"}, {type:"input", data},
 * {type:"resize", cols, rows}. Server → browser: the output as binary frames, and JSON text for
 * {type:"hello", cols, rows, screen, exit}, {type:"mode", takeover}, {type:"exit"} and {type:"error"}.
 */
import type { ServerWebSocket, WebSocketHandler } from "bun";
import { toAppError } from "../api/errors.ts";
import { reachDaemon } from "../daemon-client/start.ts";
import type { DaemonClient } from "../daemon-client/client.ts";
import { logger } from "../log.ts";

const log = logger("web");

/** The largest frame a viewer may send: a paste, not a file. */
export const MAX_VIEWER_FRAME_BYTES = 64 * 1024;

export interface TerminalSocketData {
  session: string;
  /** The viewer's window when it connected (the session keeps its own size unless taken over). */
  cols: number;
  rows: number;
  takeover: boolean;
  daemon: DaemonClient | null;
  closed: boolean;
}

type Viewer = ServerWebSocket<TerminalSocketData>;

function sendJson(ws: Viewer, frame: Record<string, unknown>): void {
  ws.send(JSON.stringify(frame));
}

async function attach(ws: Viewer): Promise<void> {
  const d = ws.data;
  let c: DaemonClient;
  try {
    c = await reachDaemon({ role: "web", start: false });
  } catch (err) {
    sendJson(ws, { type: "error", message: `no persistent sessions to show: ${toAppError(err).message}` });
    ws.close(1011, "no daemon");
    return;
  }
  if (d.closed) return c.close();
  d.daemon = c;
  // Listening before the attach call: output frames that arrive with its result (one read can
  // carry both) are held until the screen they follow has been sent.
  let held: (Uint8Array | Record<string, unknown>)[] | null = [];
  const forward = (frame: Uint8Array | Record<string, unknown>) => {
    if (d.closed) return;
    if (held) held.push(frame);
    else if (frame instanceof Uint8Array) ws.send(frame);
    else sendJson(ws, frame);
  };
  c.onOutput(forward);
  c.onExit((f) => forward({ type: "exit", exit_code: f.exit_code, reason: f.reason }));
  c.onClose(() => {
    if (!d.closed) ws.close(1011, "the daemon went away");
  });
  try {
    const r = await c.control(
      "attach",
      { session: d.session, cols: d.cols, rows: d.rows, resize: false, via: "web" },
      { clientId: `web:${d.session}` },
    );
    sendJson(ws, { type: "hello", session: r.session, cols: r.cols, rows: r.rows, screen: r.screen, exit: r.exit });
  } catch (err) {
    sendJson(ws, { type: "error", message: toAppError(err).message });
    ws.close(1011, "attach failed");
    return;
  }
  const early = held;
  held = null;
  for (const frame of early) forward(frame);
}

function onMessage(ws: Viewer, message: string | Buffer): void {
  const d = ws.data;
  let frame: { type?: unknown; data?: unknown; cols?: unknown; rows?: unknown };
  try {
    frame = JSON.parse(typeof message === "string" ? message : message.toString("utf8"));
  } catch {
    sendJson(ws, { type: "error", message: "frames are JSON" });
    return;
  }
  switch (frame.type) {
    case "takeover":
    case "release":
      d.takeover = frame.type === "takeover";
      log.info(`web viewer of ${d.session}: ${d.takeover ? "took over" : "read-only again"}`);
      sendJson(ws, { type: "mode", takeover: d.takeover });
      return;
    case "input":
      if (!d.takeover) sendJson(ws, { type: "error", message: "read-only: take over to type" });
      if (!d.takeover || typeof frame.data !== "string" || !d.daemon) return;
      d.daemon.send({ type: "input", data: Buffer.from(frame.data, "utf8").toString("base64") });
      return;
    case "resize":
      if (!d.takeover || !d.daemon) return;
      if (typeof frame.cols !== "number" || typeof frame.rows !== "number") return;
      d.daemon.send({ type: "resize", cols: frame.cols, rows: frame.rows });
      return;
    default:
      sendJson(ws, { type: "error", message: `unknown frame type ${String(frame.type).slice(0, 40)}` });
  }
}

export const terminalSocket: WebSocketHandler<TerminalSocketData> = {
  maxPayloadLength: MAX_VIEWER_FRAME_BYTES,
  open(ws) {
    void attach(ws);
  },
  message: onMessage,
  close(ws) {
    ws.data.closed = true;
    ws.data.daemon?.close();
  },
};
