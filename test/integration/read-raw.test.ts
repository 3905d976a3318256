/**
 * term_read {raw: true} on a real bash: `new` and `history` keep the escape sequences as the
 * program sent them (the rendered reads strip them), budgets still apply, and raw makes no sense
 * for the screen modes (a usage error that reads nothing).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { ctx, defaults, newHost } from "../helpers/host.ts";
import { estimateTokens } from "../../src/terminal/render.ts";

const host = newHost();
afterAll(() => host.shutdown());
const read = { max_tokens: 4000, wait_ms: 0 };

describe("term_read raw", () => {
  test("history: the escape sequences as sent; the rendered read strips them", async () => {
    await host.open({ name: "raw" }, ctx);
    await host.exec({ session: "raw", command: "printf '\\033[1;31mred\\033[0m plain\\n'", ...defaults }, ctx);
    const raw = await host.read({ session: "raw", mode: "history", raw: true, ...read }, ctx);
    expect(raw.output).toContain("\x1b[1;31mred\x1b[0m plain");
    // ptyhub's own shell-integration marks (they carry the session's nonce) are not the program's output.
    expect(raw.output).not.toContain("\x1b]6973;");
    const rendered = await host.read({ session: "raw", mode: "history", ...read }, ctx);
    expect(rendered.output).toContain("red plain");
    expect(rendered.output).not.toContain("\x1b[");
  });

  test("new: what arrived since this client's last read, escape sequences kept", async () => {
    const watcher = { clientId: "watcher" };
    await host.read({ session: "raw", mode: "new", raw: true, ...read }, watcher);
    await host.exec({ session: "raw", command: "printf '\\033[7mtwo\\033[0m\\n'", ...defaults }, ctx);
    const later = await host.read({ session: "raw", mode: "new", raw: true, ...read }, watcher);
    expect(later.output).toContain("\x1b[7mtwo\x1b[0m");
    expect(later.output).not.toContain("red"); // read by the watcher's first read
    // The exec's own result counted as the caller's read: its raw `new` has nothing of it.
    const caller = await host.read({ session: "raw", mode: "new", raw: true, ...read }, ctx);
    expect(caller.output).not.toContain("two");
  });

  test("the budget applies: a long raw read is cut and says which raw lines to fetch", async () => {
    await host.open({ name: "rawbig" }, ctx);
    await host.exec(
      {
        session: "rawbig",
        command: "for i in $(seq 1 3000); do printf '\\033[32m%d\\033[0m\\n' $i; done",
        ...defaults,
      },
      ctx,
    );
    const r = await host.read({ session: "rawbig", mode: "history", raw: true, max_tokens: 500, wait_ms: 0 }, ctx);
    expect(estimateTokens(r.output)).toBeLessThanOrEqual(500);
    expect(r.truncated).not.toBeNull();
    const t = r.truncated!;
    const again = await host.read(
      { session: "rawbig", mode: "history", raw: true, from: t.from_line, to: t.from_line, ...read },
      ctx,
    );
    expect(again.output).toMatch(/^\x1b\[32m\d+\x1b\[0m/);
  });

  test("raw with screen or diff is refused, naming the modes it applies to", async () => {
    await host.open({ name: "rawscreen" }, ctx);
    await expect(host.read({ session: "rawscreen", mode: "screen", raw: true, ...read }, ctx)).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      message: expect.stringContaining('"new" and "history"'),
    });
  });
});
