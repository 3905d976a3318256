/** Output as a model reads it: rendered, collapsed, within budget, with history to fetch the rest. */
import { afterAll, describe, expect, test } from "bun:test";
import { ctx, defaults, newHost } from "../helpers/host.ts";
import { estimateTokens } from "../../src/terminal/render.ts";
import { HISTORY_MAX_ROWS } from "../../src/terminal/history.ts";

const host = newHost();
afterAll(() => host.shutdown());

describe("rendered output", () => {
  test("\\r progress overwrites resolve: printf 'loading\\rdone\\n' gives 'done'", async () => {
    const r = await host.exec({ command: "printf 'loading\\rdone\\n'", ...defaults }, ctx);
    expect(r.output).toBe("done");
  });

  test("ANSI colors are removed", async () => {
    const r = await host.exec({ command: "printf '\\033[1;32mgreen\\033[0m plain\\n'", ...defaults }, ctx);
    expect(r.output).toBe("green plain");
  });

  test("runs of identical lines are collapsed with a count", async () => {
    const r = await host.exec(
      { command: "echo start; for i in $(seq 1 50); do echo same; done; echo end", ...defaults },
      ctx,
    );
    expect(r.output).toBe("start\nsame\n[… same line repeated 49 more times …]\nend");
  });

  test("seq 1 100000 stays within budget with correct truncated fields, and history returns the omitted lines", async () => {
    const r = await host.exec({ command: "seq 1 100000", timeout_ms: 60_000, max_tokens: 4000 }, ctx);
    expect(r.status).toBe("done");
    expect(estimateTokens(r.output)).toBeLessThanOrEqual(4000);
    const lines = r.output.split("\n");
    expect(lines[0]).toBe("1");
    expect(lines[lines.length - 1]).toBe("100000");
    const t = r.truncated!;
    const notice = lines.findIndex((l) => l.startsWith("[…"));
    const headShown = notice; // lines 1..headShown of the output are seq values 1..headShown
    expect(Number(lines[notice - 1])).toBe(headShown);
    expect(Number(lines[notice + 1])).toBe(headShown + t.omitted_lines + 1);
    expect(t.to_line - t.from_line + 1).toBe(t.omitted_lines);
    expect(Number.isInteger(t.original_tokens)).toBe(true);
    // 488,895 digits on 100,000 lines: ≈ a quarter as many tokens, plus one per line break.
    expect(t.original_tokens).toBeGreaterThan(200_000);
    expect(t.original_tokens).toBeLessThan(350_000);
    // The omitted range by history line number: first and last omitted values follow the shown head.
    const h = await host.read(
      { session: "main", mode: "history", from: t.from_line, to: t.from_line + 2, max_tokens: 4000 },
      ctx,
    );
    expect(h.output).toBe([headShown + 1, headShown + 2, headShown + 3].join("\n"));
    const h2 = await host.read(
      { session: "main", mode: "history", from: t.to_line, to: t.to_line, max_tokens: 4000 },
      ctx,
    );
    expect(h2.output).toBe(String(headShown + t.omitted_lines));
  });

  test("seq 1 300000 with max_tokens 50: truncated names only lines history still has; the rest is said gone", async () => {
    const r = await host.exec({ command: "seq 1 300000", timeout_ms: 60_000, max_tokens: 50 }, ctx);
    expect(r.status).toBe("done");
    const t = r.truncated!;
    const firstKept = host.manager.get("main").emulator.history.firstLineNo;
    expect(t.from_line).toBeGreaterThanOrEqual(firstKept);
    expect(t.omitted_lines).toBe(t.to_line - t.from_line + 1);
    expect(r.output).toMatch(/, \d+–\d+ gone from history; read the rest with term_read mode:"history"/);
    // Every line it names can be fetched: its first and last, nothing said dropped.
    for (const line of [t.from_line, t.to_line]) {
      const h = await host.read({ session: "main", mode: "history", from: line, to: line + 3, max_tokens: 4000 }, ctx);
      expect(h.dropped).toBe(0);
      expect(h.output).not.toContain("dropped");
      expect(h.output.split("\n")[0]).toMatch(/^\d+$/);
    }
  });

  test("history keeps at least the last 10,000 lines, with bounded memory", async () => {
    await host.exec({ command: "seq 1 300000", timeout_ms: 60_000, max_tokens: 100 }, ctx);
    const r = await host.read({ session: "main", mode: "history", from: -10_001, max_tokens: 200_000 }, ctx);
    const lines = r.output.split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(10_000);
    expect(lines).toContain("290001");
    expect(lines).toContain("300000");
    const s = host.manager.get("main");
    expect(s.emulator.history.size).toBeLessThanOrEqual(HISTORY_MAX_ROWS);
    expect(r.lines_total).toBeGreaterThan(300_000);
  });

  test("term_read new returns each output once, per client", async () => {
    await host.open({ name: "r1" }, ctx);
    const sent = await host.send(
      { session: "r1", text: "for i in 1 2 3; do echo item$i; sleep 0.2; done", wait_ms: 100, max_tokens: 4000 },
      ctx,
    );
    const seen: string[] = [sent.output];
    for (let k = 0; k < 20 && !seen.join("\n").includes("item3"); k++) {
      const r = await host.read({ session: "r1", mode: "new", wait_ms: 1000, max_tokens: 4000 }, ctx);
      seen.push(r.output);
    }
    const all = seen.join("\n");
    for (const item of ["item1", "item2", "item3"]) expect(all.split(item).length - 1).toBe(1);
    // Another client has its own cursor: it starts where the last reader stopped, so it sees nothing old.
    const other = await host.read(
      { session: "r1", mode: "new", wait_ms: 0, max_tokens: 4000 },
      { clientId: "second-client" },
    );
    expect(other.output).not.toContain("item");
  });

  test("term_read diff returns only changed screen rows", async () => {
    await host.open({ name: "d1" }, ctx);
    await host.exec({ session: "d1", command: "echo first-line", ...defaults }, ctx);
    await host.read({ session: "d1", mode: "screen", max_tokens: 4000 }, ctx);
    await host.exec({ session: "d1", command: "echo diff-line", ...defaults }, ctx);
    const d = await host.read({ session: "d1", mode: "diff", max_tokens: 4000 }, ctx);
    expect(d.output).toContain("diff-line");
    expect(d.output).not.toContain("first-line");
    const again = await host.read({ session: "d1", mode: "diff", max_tokens: 4000 }, ctx);
    expect(again.output).toBe("");
  });

  test("a secret typed with term_secret never appears in output", async () => {
    await host.open({ name: "sec" }, ctx);
    await host.send(
      { session: "sec", text: 'read -r token; echo "you typed: $token"', wait_ms: 300, max_tokens: 4000 },
      ctx,
    );
    await host.typeSecret({ session: "sec", secret: "hunter2-very-secret", enter: true }, ctx);
    const r = await host.read(
      { session: "sec", mode: "new", until: "you typed", wait_ms: 3000, max_tokens: 4000 },
      ctx,
    );
    expect(r.output).toContain("you typed: [secret]");
    expect(r.output).not.toContain("hunter2");
    const h = await host.read({ session: "sec", mode: "history", max_tokens: 4000 }, ctx);
    expect(h.output).not.toContain("hunter2");
  });
});
