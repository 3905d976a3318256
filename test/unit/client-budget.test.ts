import { describe, expect, test } from "bun:test";
import { addHeaderNote, clampBudget, fitToClient } from "../../src/mcp/client-budget.ts";
import { budgetCap, clientProfile } from "../../src/mcp/client-profile.ts";
import { checkToolCall, renderOutput } from "../../src/mcp/call-tool.ts";

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

describe("waits that fit the client's tool-call timeout", () => {
  test("Codex: timeout_ms and wait_ms above its 300 s limit are lowered, and a result that ran into it says so", async () => {
    const codex = clientProfile({ name: "codex-mcp-client" });
    // Seen: Codex 0.169 ends a tools/call after 300 s ("timed out awaiting tools/call after 300s"),
    // and its model reads that error and a stack backtrace while the command runs on unseen.
    const exec = await checkToolCall("term_exec", { command: "make", timeout_ms: 600_000 }, codex);
    expect(exec.args.timeout_ms).toBeLessThan(300_000);
    const read = await checkToolCall("term_read", { session: "main", wait_ms: 600_000 }, codex);
    expect(read.args.wait_ms).toBeLessThan(300_000);
    const send = await checkToolCall("term_send", { session: "main", text: "x", wait_ms: 400_000 }, codex);
    expect(send.args.wait_ms).toBeLessThan(300_000);
    // Within the limit, and for a client without one, nothing changes.
    expect((await checkToolCall("term_exec", { command: "make" }, codex)).args.timeout_ms).toBe(30_000);
    const claude = clientProfile({ name: "claude-code" });
    expect((await checkToolCall("term_exec", { command: "make", timeout_ms: 600_000 }, claude)).args.timeout_ms).toBe(
      600_000,
    );
    const running = {
      session: "main",
      status: "running",
      exit_code: null,
      output: "",
      cwd: "/src",
      duration_ms: exec.args.timeout_ms as number,
      via: "timeout",
      truncated: null,
      state: "running",
    };
    const text = (renderOutput(exec, running, codex).content[0] as { text: string }).text;
    expect(text).toContain("timeout_ms 600000 lowered to");
    expect(text).toContain("Codex ends a tool call after 300 s");
  });
});
