/**
 * A bash user's function named like a builtin the shell integration calls (`printf`, `read`,
 * `local`, `test`, `[`): bash finds functions before builtins, so the hooks called it, their marks
 * never came, and every later term_exec ran to its timeout and then answered SESSION_BUSY. The
 * hooks now remove such functions before they run anything (src/terminal/shells/integration.bash).
 * Real PTYs, one fresh session per name.
 */
import { afterAll, expect, test } from "bun:test";
import { ctx, defaults, newHost } from "../helpers/host.ts";

const host = newHost();
afterAll(() => host.shutdown());

/** Far past a 10 ms command's end, far short of the default 30 s: a lost mark shows as a timeout. */
const EXEC_TIMEOUT_MS = 5000;

for (const name of ["printf", "read", "local", "test", "["]) {
  test(`a function named ${name} leaves term_exec its exit codes`, async () => {
    const session = `fn-${name === "[" ? "bracket" : name}`;
    await host.open({ name: session }, ctx);
    try {
      const at = { session, ...defaults, timeout_ms: EXEC_TIMEOUT_MS };
      const def = await host.exec({ ...at, command: `${name}() { :; }` }, ctx);
      expect(def).toMatchObject({ status: "done", exit_code: 0 });
      const r = await host.exec({ ...at, command: "echo after; (exit 3)" }, ctx);
      expect(r).toMatchObject({ status: "done", exit_code: 3, output: "after" });
    } finally {
      await host.close({ session }, ctx);
    }
  });
}
