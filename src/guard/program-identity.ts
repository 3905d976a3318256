/**
 * What program a term_open `command` really is. The guard knows shells and interpreters by name,
 * so a symlink named `cat` that points at bash, a hard link, or a copy of bash under another name
 * would pass as `cat`. The command is found as exec would find it (a path, or on PATH), its
 * symlinks resolved, and compared with the shells on PATH: same file, or same bytes.
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, delimiter, isAbsolute, join } from "node:path";

/** Programs that run shell text: what a renamed command is compared with. */
const KNOWN = ["bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "fish", "busybox", "python3", "perl", "node"];

/** Where `command` is, as execvp would find it; null when it is not found. */
function locate(command: string, cwd: string | null, path: string): string | null {
  if (command.includes("/")) {
    const full = isAbsolute(command) ? command : cwd === null ? null : join(cwd, command);
    return full !== null && existsSync(full) ? full : null;
  }
  for (const dir of path.split(delimiter)) {
    const full = join(dir || ".", command);
    if (existsSync(full)) return full;
  }
  return null;
}

function sameBytes(a: string, b: string): boolean {
  try {
    return readFileSync(a).equals(readFileSync(b));
  } catch {
    return false;
  }
}

/**
 * The known program `command` is under another name (`bash` for a symlink or copy of bash called
 * `cat`), or null when it is what its name says, or unknown.
 */
export function disguisedProgram(command: string, cwd: string | null, path = process.env.PATH ?? ""): string | null {
  try {
    const found = locate(command, cwd, path);
    if (found === null) return null;
    const real = realpathSync(found);
    const name = basename(command);
    const realName = basename(real);
    if (KNOWN.includes(realName) && realName !== name) return realName;
    const st = statSync(real);
    for (const known of KNOWN) {
      if (known === name) continue;
      const other = locate(known, null, path);
      if (other === null) continue;
      const o = statSync(realpathSync(other));
      // The same file (a hard link), or a copy of it: same size, then same bytes.
      if ((o.ino === st.ino && o.dev === st.dev) || (o.size === st.size && sameBytes(real, other))) return known;
    }
    return null;
  } catch {
    return null; // unreadable or vanished: judged by its name
  }
}
