/**
 * `ptyhub attach SESSION [--resize]`: a human's terminal on a live session. The terminal goes
 * raw; the daemon replays the session's current screen (serialized from its emulator), then
 * streams its output as it happens, and every key typed goes to the session. ctrl+\ detaches and
 * leaves the session running; the terminal is restored on every way out.
 *
 * Size policy: the session keeps its size, because the agent's view (wrapping, full-screen
 * layouts) is what its tools read; a window of another size shows the session as it is (cut or
 * with room to spare). `--resize` instead makes the session follow the human's window while
 * attached (the program sees SIGWINCH), and it keeps that size after detaching.
 */
import { AppError } from "../api/errors.ts";
import { DaemonConnectError, type DaemonClient } from "../daemon-client/client.ts";
import { reachDaemon } from "../daemon-client/start.ts";
import { parseVerbArgs } from "../util/verb-args.ts";

/** ctrl+\ (FS, 0x1c): in raw mode it arrives as a byte instead of raising SIGQUIT. */
export const DETACH_KEY = 0x1c;
/** How long detaching waits for the daemon's answer before leaving anyway. */
const DETACH_WAIT_MS = 1000;

/**
 * Terminal modes a program in the session may have switched on in the human's terminal (colors,
 * hidden cursor, application keypad and cursor keys, bracketed paste, mouse reporting): reset on
 * the way out, so the human's shell behaves as before.
 */
const RESET_MODES = "\x1b[0m\x1b[?25h\x1b[?1l\x1b>\x1b[?2004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l";
const LEAVE_ALT_SCREEN = "\x1b[?1049l";
/** Save and restore the window title (XTWINOPS), which attach sets to name the session. */
const PUSH_TITLE = "\x1b[22;0t";
const POP_TITLE = "\x1b[23;0t";

const ATTACH_ARGS = {
  verb: "attach",
  usage:
    "Usage: ptyhub attach SESSION [--resize]\n  ctrl+\\ detaches (the session keeps running)\n  --resize  make the " +
    "session follow this window's size\n",
  options: { resize: { type: "boolean" } },
  positionals: { min: 1, max: 1, name: "SESSION (see `ptyhub ls`)" },
} as const;

interface AttachResult {
  session: string;
  cols: number;
  rows: number;
  screen: string;
  exited: boolean;
  /** How an exited session ended (daemons before 0.2 leave it out). */
  exit?: { exit_code: number | null; reason: string } | null;
}

export async function runAttach(args: string[]): Promise<number> {
  const parsed = parseVerbArgs(ATTACH_ARGS, args);
  if (!parsed) return 0;
  const resize = parsed.values.resize === true;
  const name = parsed.positionals[0]!;
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new AppError(
      "INVALID_ARGUMENT",
      "ptyhub attach needs a terminal (stdin and stdout must be a tty)",
      "Run it in a terminal window; agents use term_read and term_send instead.",
    );
  }

  let client: DaemonClient;
  try {
    client = await reachDaemon({ role: "attach", start: false });
  } catch (err) {
    if (err instanceof DaemonConnectError && err.notRunning) {
      throw new AppError(
        "SESSION_NOT_FOUND",
        `no session '${name}'`,
        "No ptyhub daemon is running, so there are no persistent sessions to attach to.",
      );
    }
    throw err;
  }
  const c = client;
  const windowSize = () => ({ cols: process.stdout.columns || 80, rows: process.stdout.rows || 24 });
  const size = windowSize();
  let result: AttachResult;
  try {
    result = await c.control(
      "attach",
      { session: name, cols: size.cols, rows: size.rows, resize },
      { clientId: `attach:${process.pid}` },
    );
  } catch (err) {
    c.close();
    throw err;
  }

  return new Promise<number>((resolve) => {
    const stdin = process.stdin;
    const stdout = process.stdout;
    let done = false;

    const finish = async (message: string, code: number, detach: boolean) => {
      if (done) return;
      done = true;
      stdin.off("data", onInput);
      process.off("SIGWINCH", onWinch);
      let altScreen = false;
      if (detach && !c.closed) {
        const answer = await Promise.race([
          c.control("detach", {}).catch(() => null),
          Bun.sleep(DETACH_WAIT_MS).then(() => null),
        ]);
        altScreen = answer?.alt_screen === true;
      }
      try {
        stdin.setRawMode(false);
      } catch {
        // The terminal is gone.
      }
      stdin.pause();
      const bottom = `\x1b[${stdout.rows || 24};1H`;
      stdout.write(`${altScreen ? LEAVE_ALT_SCREEN : ""}${RESET_MODES}${bottom}\r\n${message}\r\n${POP_TITLE}`);
      c.close();
      resolve(code);
    };

    const onInput = (chunk: Buffer | string) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      const at = bytes.indexOf(DETACH_KEY);
      const typed = at < 0 ? bytes : bytes.subarray(0, at);
      if (typed.length > 0) c.send({ type: "input", data: typed.toString("base64") });
      if (at >= 0)
        void finish(`[detached from ${result.session}; it keeps running: ptyhub attach ${result.session}]`, 0, true);
    };

    const onWinch = () => {
      if (!resize) return;
      const s = windowSize();
      c.send({ type: "resize", cols: s.cols, rows: s.rows });
    };

    c.onOutput((bytes) => {
      if (!done) stdout.write(bytes);
    });
    c.onExit((f) => void finish(`[session ${result.session} ended: ${f.reason}]`, 0, false));
    c.onClose(() => void finish("[the ptyhub daemon went away: the session is gone]", 1, false));
    for (const sig of ["SIGTERM", "SIGHUP", "SIGINT"] as const)
      process.once(sig, () => void finish(`[detached from ${result.session} (${sig})]`, 0, true));

    stdin.setRawMode(true);
    stdin.resume();
    stdin.on("data", onInput);
    process.on("SIGWINCH", onWinch);

    const win = windowSize();
    const sizeNote =
      !resize && (win.cols !== result.cols || win.rows !== result.rows)
        ? ` (session ${result.cols}x${result.rows}, window ${win.cols}x${win.rows})`
        : "";
    // Title names the session and the detach key; then a clean screen and the replay.
    stdout.write(
      `${PUSH_TITLE}\x1b]2;ptyhub: ${result.session}${sizeNote} · ctrl+\\ detaches\x07\x1b[H\x1b[2J${result.screen}`,
    );
    // An exited session: its last screen, then how it ended; there is nothing to type into.
    if (result.exited)
      void finish(`[session ${result.session} has ended${result.exit ? `: ${result.exit.reason}` : ""}]`, 0, false);
  });
}
