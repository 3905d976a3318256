/**
 * Scripts a line writes and then runs: `echo 'rm -rf /' > x.sh; sh x.sh`, `cat > s <<EOF … EOF;
 * bash s`, `… | base64 -d > /tmp/s; . /tmp/s`. The file does not exist when the line is judged,
 * but what goes into it is on the line (piped-text.ts), so the guard judges that text as the script.
 */
import type { SimpleCommand } from "./parse.ts";
import { pipelineText } from "./piped-text.ts";

/** Redirections that write a file from the start or append to it. */
const WRITES = /^(>|>\||>>|&>)$/;

/** Records into `written` the text each file redirected to by this pipeline's last command receives. */
export function recordWrites(pipeline: SimpleCommand[], written: Map<string, string>): void {
  const last = pipeline[pipeline.length - 1];
  if (last === undefined) return;
  for (const r of last.redirects) {
    if (!WRITES.test(r.op)) continue;
    const text = pipelineText(pipeline);
    if (text === null) continue;
    written.set(r.target, r.op === ">>" ? (written.get(r.target) ?? "") + text : text);
  }
}

/**
 * The text of a script this command runs that the line wrote earlier: the file given to a shell
 * or `source`/`.`, or the file run as a program (`./x.sh`). Null when it runs none.
 */
export function writtenScript(cmd: SimpleCommand, runsFiles: boolean, written: Map<string, string>): string | null {
  if (written.size === 0) return null;
  const [program = "", ...args] = cmd.argv;
  const direct = written.get(program) ?? written.get(program.replace(/^\.\//, ""));
  if (direct !== undefined) return direct;
  if (!runsFiles) return null;
  const file = args.find((a) => !a.startsWith("-"));
  return file === undefined ? null : (written.get(file) ?? written.get(file.replace(/^\.\//, "")) ?? null);
}
