import { describe, expect, test } from "bun:test";
import { addHeaderNote, clampBudget, fitToClient } from "../../src/mcp/client-budget.ts";
import { budgetCap, clientProfile } from "../../src/mcp/client-profile.ts";

describe("client profiles and budgets", () => {
  test("known clients by clientInfo.name; the setting overrides the form", () => {
    const claude = clientProfile({ name: "claude-code" });
    expect(claude).toMatchObject({ label: "Claude Code", form: "text", maxResultChars: 50_000 });
    const codex = clientProfile({ name: "codex-mcp-client" });
    expect(codex).toMatchObject({ label: "Codex", form: "text", maxResultChars: 12_000 });
    const other = clientProfile({ name: "inspector" });
    expect(other).toMatchObject({ label: null, form: "structured", maxResultChars: null });
    expect(clientProfile(undefined, "text").form).toBe("text");
    expect(clientProfile({ name: "claude-code" }, "structured").form).toBe("structured");
  });

  test("max_tokens is lowered to the cap only when above it", () => {
    const codex = clientProfile({ name: "codex-mcp-client" });
    const cap = budgetCap(codex)!;
    expect(cap * 4).toBeLessThan(12_000);
    const args: Record<string, unknown> = { max_tokens: 4000 };
    expect(clampBudget(args, codex)).toMatchObject({ requested: 4000, cap });
    expect(args.max_tokens).toBe(cap);
    const low: Record<string, unknown> = { max_tokens: 100 };
    expect(clampBudget(low, codex)).toBeNull();
    expect(low.max_tokens).toBe(100);
    expect(clampBudget({ max_tokens: 10 ** 6 }, clientProfile({ name: "x" }))).toBeNull();
  });

  test("a note goes inside the header's bracket, or on a line of its own", () => {
    expect(addHeaderNote("[done · exit 0]\nout", "n")).toBe("[done · exit 0 · n]\nout");
    expect(addHeaderNote("plain", "n")).toBe("[n]\nplain");
  });

  test("a text over the client's limit is cut in the middle, saying so; a smaller one is untouched", () => {
    const codex = clientProfile({ name: "codex-mcp-client" });
    const screen = Array.from({ length: 200 }, (_, i) => `row ${i + 1} `.padEnd(100, "x")).join("\n");
    const text = `[state prompt · via settle]\n${screen}`;
    const fitted = fitToClient(text, codex);
    expect(fitted.length).toBeLessThanOrEqual(12_000);
    expect(fitted.startsWith("[state prompt · via settle]\nrow 1 ")).toBe(true);
    expect(fitted.endsWith(screen.slice(-500))).toBe(true);
    expect(fitted).toMatch(/\[… \d+ characters cut here to fit Codex's limit of ~12000 characters; term_read/);
    expect(fitToClient("short", codex)).toBe("short");
  });
});
