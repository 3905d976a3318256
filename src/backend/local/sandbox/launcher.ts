/**
 * `ptyhub __sandbox MODE [--write PATH]… -- PROGRAM [ARGS…]`: the hidden launcher step of a
 * sandboxed session. Bun.spawn runs nothing of ours between fork and exec, so the session's
 * program is started through this verb: it confines itself (Landlock: writes only beneath the
 * --write paths) and then execs the program in its place (same pid, terminal and environment).
 * It fails closed: if confinement fails, the program is never started.
 */
import { statSync } from "node:fs";
import { restrictWrites, type WritablePath } from "./landlock.ts";
import { execvp } from "./exec.ts";
import { markOwner } from "./tmp.ts";

/** Exit codes of the launcher itself, as a shell reports "cannot run" / "not found". */
const EXIT_NOT_CONFINED = 126;
const EXIT_EXEC_FAILED = 127;
const USAGE = "usage: ptyhub __sandbox read-only|workspace [--write PATH]… -- PROGRAM [ARGS…]\n";

export interface LauncherArgs {
  mode: string;
  writable: string[];
  argv: string[];
}

export function parseLauncherArgs(args: string[]): LauncherArgs | null {
  const [mode, ...rest] = args;
  if (mode !== "read-only" && mode !== "workspace") return null;
  const writable: string[] = [];
  let i = 0;
  for (; i < rest.length && rest[i] !== "--"; i += 2) {
    if (rest[i] !== "--write" || rest[i + 1] === undefined) return null;
    writable.push(rest[i + 1]!);
  }
  const argv = rest.slice(i + 1);
  return argv.length > 0 ? { mode, writable, argv } : null;
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
