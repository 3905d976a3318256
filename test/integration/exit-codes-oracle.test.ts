/**
 * `term_exec`'s exit code against an oracle ptyhub did not write: the same line run by `bash -c`
 * in a pipe. Signals (a subshell killing itself), pipefail (in a subshell, so it does not leak
 * into the session's later lines), `!`, `&&`/`||`, functions returning, `eval`, traps, SIGPIPE.
 * One bash session runs every line in turn, so one line's state must not spoil the next's code.
 */
import { afterAll, expect, test } from "bun:test";
import { ctx, defaults, newHost } from "../helpers/host.ts";

// The exit codes are under test, not the guard: `sh -c 'kill -TERM $$'` (the inner sh killing
// itself) reads to the guard as killing the agent's own shell, and would be stopped.
const host = newHost({ guard: { enabled: false, disable: [], rules: [] } });
afterAll(() => host.shutdown());

/** The oracle's bound: every line here ends at once; a hang is a bug in the line, not a wait. */
const ORACLE_TIMEOUT_S = "10";

const CODES = [0, 1, 2, 7, 126, 127, 128, 200, 255];
const SIGNALS = ["TERM", "KILL", "USR1", "HUP", "ALRM", "PIPE", "QUIT", "ABRT"];

function cases(): string[] {
  const lines: string[] = [];
  for (const n of CODES) {
    lines.push(
      `(exit ${n})`,
      `f() { return ${n}; }; f`,
      `! (exit ${n})`,
      `(exit ${n}) | true`,
      `( set -o pipefail; (exit ${n}) | true )`,
      `true && (exit ${n})`,
      `(exit ${n}) || false`,
      `sh -c 'exit ${n}'`,
      `(eval 'exit ${n}')`,
      `x=$(exit ${n})`,
      `( trap 'exit ${n}' USR1; kill -USR1 $BASHPID; sleep 5 )`,
    );
  }
  for (const sig of SIGNALS) lines.push(`(kill -${sig} $BASHPID)`, `sh -c 'kill -${sig} $$'`);
  lines.push("yes | head -1 >/dev/null", "( set -o pipefail; yes | head -1 >/dev/null )", "{ false; }", "[[ a == b ]]");
  return lines;
}

function oracle(line: string): number | null {
  const r = Bun.spawnSync(["timeout", "-s", "KILL", ORACLE_TIMEOUT_S, "bash", "-c", `${line}\nexit $?`], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  return r.exitCode;
}

test("term_exec's exit codes equal bash -c's over generated lines", async () => {
  const mismatches: string[] = [];
  const lines = cases();
  for (const line of lines) {
    const r = await host.exec({ command: line, ...defaults }, ctx);
    const want = oracle(line);
    if (r.status !== "done" || r.exit_code !== want) {
      mismatches.push(`${line}: ptyhub ${r.status} ${r.exit_code} (via ${r.via}), bash -c ${want}`);
    }
  }
  expect(lines.length).toBeGreaterThan(100);
  expect(mismatches).toEqual([]);
});
