/**
 * `ptyhub __sandbox MODE [--write PATH]… [--hide DIR]… [--show DIR]… -- PROGRAM [ARGS…]`: the
 * hidden launcher step of a sandboxed session. Bun.spawn runs nothing of ours between fork and
 * exec, so the session's program is started through this verb: it hides the --hide directories
 * (but the --show ones beneath them) in a mount namespace of its own (mount-ns.ts), gives up
 * capabilities (caps.ts), confines itself (Landlock: writes only beneath the --write paths; it
 * also forbids later mounts, so this order) and then execs the program in its place (same pid,
 * terminal and environment). It fails closed: if any step fails, the program is never started.
 */
import { statSync } from "node:fs";
import { restrictWrites, type WritablePath } from "./landlock.ts";
import { hideDirs } from "./mount-ns.ts";
import { dropCapabilities } from "./caps.ts";
import { execvp } from "./exec.ts";
import { markOwner } from "./tmp.ts";

/** Exit codes of the launcher itself, as a shell reports "cannot run" / "not found". */
const EXIT_NOT_CONFINED = 126;
const EXIT_EXEC_FAILED = 127;
const USAGE = [
  "usage: ptyhub __sandbox read-only|workspace",
  "[--write PATH]… [--hide DIR]… [--show DIR]…",
  "-- PROGRAM [ARGS…]\n",
].join(" ");

export interface LauncherArgs {
  mode: string;
  writable: string[];
  hidden: string[];
  shown: string[];
  argv: string[];
}

export function parseLauncherArgs(args: string[]): LauncherArgs | null {
  const [mode, ...rest] = args;
  if (mode !== "read-only" && mode !== "workspace") return null;
  const writable: string[] = [];
  const hidden: string[] = [];
  const shown: string[] = [];
  const lists = new Map([
    ["--write", writable],
    ["--hide", hidden],
    ["--show", shown],
  ]);
  let i = 0;
  for (; i < rest.length && rest[i] !== "--"; i += 2) {
    const list = lists.get(rest[i]!);
    if (!list || rest[i + 1] === undefined) return null;
    list.push(rest[i + 1]!);
  }
  const argv = rest.slice(i + 1);
  return argv.length > 0 ? { mode, writable, hidden, shown, argv } : null;
}

export async function runSandboxLauncher(args: string[]): Promise<number> {
  const parsed = parseLauncherArgs(args);
  if (!parsed) {
    process.stderr.write(USAGE);
    return 2;
  }
  const writable: WritablePath[] = [];
  for (const path of parsed.writable) {
    try {
      writable.push({ path, directory: statSync(path).isDirectory() });
    } catch {
      // A path that does not exist (no /dev/tty here) grants nothing.
    }
  }
  const tmp = process.env.TMPDIR;
  if (tmp && parsed.writable.includes(tmp)) markOwner(tmp, process.pid);
  try {
    if (process.platform !== "linux") {
      throw new Error(`the launcher confines with Landlock, which ${process.platform} does not have`);
    }
    if (parsed.hidden.length > 0) hideDirs(parsed.hidden, parsed.shown);
    dropCapabilities();
    restrictWrites(writable);
  } catch (err) {
    const why = (err as Error).message;
    process.stderr.write(`ptyhub: sandbox ${parsed.mode}: cannot confine the session; it does not start: ${why}\r\n`);
    return EXIT_NOT_CONFINED;
  }
  const why = execvp(parsed.argv);
  process.stderr.write(`ptyhub: cannot run ${parsed.argv[0]}: ${why}\r\n`);
  return EXIT_EXEC_FAILED;
}
