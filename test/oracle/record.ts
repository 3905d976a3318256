/**
 * Records the byte streams in test/oracle/recordings/: real programs on a real PTY (ptyhub's own
 * LocalBackend; PtyProbe keeps text, not reads), driven by a short script of "wait for this text,
 * then type that", every read kept as it came (its boundaries matter to the bare-CR filter). No
 * program that shows this machine's processes (top, htop): a recording is committed. A developer
 * tool, run by hand when a recording should be redone:
 *
 *   bun test/oracle/record.ts [name…]
 *
 * Recordings are what the programs on this machine sent (TERM=xterm-256color, C.UTF-8); the
 * oracle replays them into tmux and into ptyhub's emulator, so they need not be re-recorded for
 * the comparison to hold.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { LocalBackend } from "../../src/backend/local/local-backend.ts";
import { probeEnv } from "../helpers/pty.ts";

export interface Recording {
  name: string;
  program: string;
  cols: number;
  rows: number;
  /** Each read from the PTY, base64. */
  chunks: string[];
}

interface Step {
  /** Wait until the output since the last step shows this. */
  wait: RegExp;
  /** Then type this (nothing: the step only waits). */
  input?: string;
}

interface Script {
  name: string;
  argv: string[];
  steps: Step[];
}

const COLS = 80;
const ROWS = 24;

const SCRIPTS: readonly Script[] = [
  {
    name: "vim",
    argv: ["vim", "-u", "NONE", "-N", "-i", "NONE", "-n", "rec.txt"],
    steps: [
      { wait: /rec\.txt/, input: "ihello from a recording\x1b" },
      { wait: /recording/, input: ":q!\r" },
    ],
  },
  {
    name: "less",
    argv: ["sh", "-c", "seq 1 200 | sed 's/^/entry /' | less"],
    steps: [
      { wait: /entry 23/, input: " " },
      { wait: /entry 46/, input: "q" },
    ],
  },
  {
    name: "dialog",
    argv: ["dialog", "--yesno", "Replay this box?", "8", "40"],
    steps: [
      { wait: /Replay this box/, input: "\t" },
      { wait: /\S/, input: "\r" },
    ],
  },
  {
    name: "nano",
    argv: ["nano", "--ignorercfiles", "rec-nano.txt"],
    steps: [
      { wait: /rec-nano\.txt/, input: "typed in nano" },
      { wait: /typed in nano/, input: "\x18n" },
    ],
  },
  {
    name: "python3",
    argv: ["python3", "-q"],
    steps: [{ wait: />>> /, input: "print('six' * 2)\r" }, { wait: /sixsix/, input: "\x1b[A" }, { wait: /print/ }],
  },
];

/** How long one step may wait for its text. */
const STEP_TIMEOUT_MS = 20_000;
/** After the last step, how long the program gets to exit by itself before it is closed. */
const EXIT_GRACE_MS = 2_000;

async function record(script: Script, dir: string): Promise<Recording> {
  const chunks: string[] = [];
  let since = "";
  let exited = false;
  let wake: () => void = () => {};
  const backend = new LocalBackend({
    argv: script.argv,
    cwd: dir,
    env: probeEnv({ HOME: dir }),
    cols: COLS,
    rows: ROWS,
  });
  backend.onData((data) => {
    chunks.push(Buffer.from(data).toString("base64"));
    since += Buffer.from(data).toString("latin1");
    wake();
  });
  backend.onExit(() => {
    exited = true;
    wake();
  });
  const event = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  try {
    for (const step of script.steps) {
      const deadline = Date.now() + STEP_TIMEOUT_MS;
      while (!step.wait.test(since)) {
        if (exited || Date.now() > deadline)
          throw new Error(`${script.name}: no ${step.wait} in ${JSON.stringify(since.slice(-300))}`);
        await event(deadline - Date.now());
      }
      since = "";
      if (step.input !== undefined) backend.write(step.input);
    }
    const deadline = Date.now() + EXIT_GRACE_MS;
    while (!exited && Date.now() < deadline) await event(deadline - Date.now());
  } finally {
    backend.close();
  }
  return { name: script.name, program: script.argv.join(" "), cols: COLS, rows: ROWS, chunks };
}

if (import.meta.main) {
  const only = process.argv.slice(2);
  const out = join(import.meta.dir, "recordings");
  mkdirSync(out, { recursive: true });
  const dir = join(tmpdir(), `ptyhub-record-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  for (const script of SCRIPTS) {
    if (only.length > 0 && !only.includes(script.name)) continue;
    const rec = await record(script, dir);
    writeFileSync(join(out, `${script.name}.json`), `${JSON.stringify(rec, null, 1)}\n`);
    process.stderr.write(`recorded ${script.name}: ${rec.chunks.length} reads\n`);
  }
  process.exit(0);
}
