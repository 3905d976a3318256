/**
 * A command cannot forge its own end (issue 35, item 3). Through the real MCP client, on a real
 * PTY, a command prints an end mark that says "exit 0", then keeps running (sleep) and exits 7.
 * Before, the forged mark ended term_exec within ~15 ms with `done, exit 0`; now the shell's own
 * end mark is needed, which the kernel confirms (the shell leads the foreground group again and
 * waits for the terminal), so the answer is `exit 7` after the sleep.
 *   - the spelling: the nonce from `$__ptyhub_nonce` (now unset: the mark is foreign);
 *   - the nonce read from what a command in the same shell can always read (the prompt string, or
 *     fish's prompt function), printed by the shell's own printf builtin while it leads the group.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startMcp, type McpClient } from "../helpers/mcp-client.ts";

/** How long the command goes on after its forged end: far longer than a forged `done` took (10–17 ms). */
const SLEEP_S = 2;
const SLEEP_MS = SLEEP_S * 1000;
/** The exit status the command really ends with. */
const REAL_EXIT = 7;

type Shell = "bash" | "zsh" | "fish";

/** A shell command that sets `n` to the nonce as a command in that shell can find it. */
const READ_NONCE: Record<Shell, { variable: string; prompt: string }> = {
  bash: {
    variable: 'n="$__ptyhub_nonce"',
    prompt: `n=$(printf %s "$PS1" | grep -ao '6973;[0-9a-f]*' | head -n 1 | cut -d';' -f2)`,
  },
  zsh: {
    variable: 'n="$__ptyhub_nonce"',
    prompt: `n=$(printf %s "$PS1" | grep -ao '6973;[0-9a-f]*' | head -n 1 | cut -d';' -f2)`,
  },
  fish: {
    variable: "set n $__ptyhub_nonce",
    // The variable while there is one; else the nonce written into the hook functions' bodies.
    prompt:
      'set n "$__ptyhub_nonce"; test -n "$n"; or ' +
      "set n (functions __ptyhub_prompt | string match -r -g '\\b([0-9a-f]{24})\\b')[1]",
  },
};

/** Prints a forged end mark (exit 0) with the nonce in `n`, goes on for SLEEP_S, then exits REAL_EXIT. */
function forger(shell: Shell, readNonce: string): string {
  const status = `sh -c 'exit ${REAL_EXIT}'`;
  if (shell === "fish") {
    return `${readNonce}; printf '\\e]6973;%s;D;0;%s\\a' $n $PWD; echo "nonce-len=$(string length -- $n)"; sleep ${SLEEP_S}; ${status}`;
  }
  return `${readNonce}; printf '\\033]6973;%s;D;0;%s\\007' "$n" "$PWD"; echo "nonce-len=\${#n}"; sleep ${SLEEP_S}; ${status}`;
}

const shells: Shell[] = ["bash", "zsh"];
if (Bun.which("fish")) shells.push("fish");
else console.warn("fish is not installed: its forged-end test is skipped");

let server: McpClient;
beforeAll(async () => {
  server = await startMcp({ transport: "in-process" });
});
afterAll(() => server.close());

describe("a forged end mark does not end term_exec", () => {
  for (const shell of shells) {
    for (const how of ["variable", "prompt"] as const) {
      test(`${shell}: nonce from the ${how}`, async () => {
        const session = `forge-${shell}-${how}`;
        await server.ok("term_open", { name: session, command: shell, persistent: false });
        const started = Date.now();
        const r = await server.ok("term_exec", { session, command: forger(shell, READ_NONCE[shell][how]) });
        const took = Date.now() - started;
        expect(r).toMatchObject({ status: "done", exit_code: REAL_EXIT });
        expect(took).toBeGreaterThanOrEqual(SLEEP_MS);
        if (how === "prompt") expect(r.output).toContain("nonce-len=24"); // it did have the real nonce
        // The session is at its prompt again, and the next command completes as usual.
        const next = await server.ok("term_exec", { session, command: "echo after-forge" });
        expect(next).toMatchObject({ status: "done", exit_code: 0, output: "after-forge" });
        await server.ok("term_close", { session });
      });
    }
  }
});
