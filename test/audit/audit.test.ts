/**
 * The audit trail: what the daemon writes while the real MCP client drives a session (typed
 * lines with the client's name, command boundaries with exit codes and cwd, guard decisions, a
 * term_secret without its value), what a human types through attach (hidden at a password
 * prompt), file modes, rotation and retention, and `ptyhub log` reading it (also --follow).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stopDaemon } from "../helpers/daemon.ts";
import { CLI, startMcp, type StdioMcp } from "../helpers/mcp-client.ts";
import { waitFor } from "../helpers/wait.ts";
import { newHost, ctx, defaults } from "../helpers/host.ts";
import { AuditTrail, auditDir, trailFiles } from "../../src/audit/trail.ts";
import { formatEntry } from "../../src/audit/log-command.ts";

/** How long a trail entry or a session state may take to show on a loaded machine. */
const AUDIT_WAIT_MS = 10_000;
const SECRET = "s3cr3t-value-Zq9";

function trail(session: string): Record<string, any>[] {
  return trailFiles(session)
    .flatMap((f) => readFileSync(f, "utf8").split("\n"))
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);
}

describe("audit trail written by the daemon", () => {
  let mcp: StdioMcp;
  beforeAll(async () => {
    mcp = await startMcp({
      env: { PTYHUB_SHELL: "/bin/bash" },
      // The human declines every guard question and gives the secret when asked for one.
      elicit: (req: { message: string }) => {
        const content: Record<string, string | boolean> = req.message.startsWith("ptyhub guard")
          ? { allow: false }
          : { secret: SECRET };
        return { action: "accept" as const, content };
      },
    });
  });
  afterAll(async () => {
    await mcp.call("term_close", { session: "au" }).catch(() => undefined);
    await mcp.close();
    await stopDaemon();
  });

  test("who typed what, boundaries with exit codes and cwd, guard decisions, secrets redacted", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "audit-cwd-")));
    expect((await mcp.call("term_open", { name: "au", cwd: dir, command: "bash" })).isError).toBe(false);
    expect((await mcp.call("term_exec", { session: "au", command: "echo hello; false" })).data.exit_code).toBe(1);
    expect((await mcp.call("term_exec", { session: "au", command: "shutdown -h now" })).error?.code).toBe(
      "BLOCKED_BY_GUARD",
    );
    await mcp.call("term_send", {
      session: "au",
      text: "read -rs -p 'Password: ' pw; echo; echo read-done",
      until: "Password: ",
    });
    expect((await mcp.call("term_secret", { session: "au" })).data.sent).toBe(true);
    // Output since this client's last read: "read-done" counts whether it came before this call or after.
    let seen = "";
    for (let i = 0; i < 20 && !seen.includes("read-done"); i++)
      seen += (await mcp.call("term_read", { session: "au", wait_ms: 2000 })).data.output;
    expect(seen).toContain("read-done");
    expect((await mcp.call("term_exec", { session: "au", command: 'echo "got ${#pw}"' })).data.output).toBe(
      `got ${SECRET.length}`,
    );
    await mcp.call("term_exec", { session: "au", command: `echo ${SECRET}` });

    const entries = await waitFor(
      () => {
        const e = trail("au");
        return e.filter((x) => x.event === "command_end").length >= 4 ? e : null;
      },
      AUDIT_WAIT_MS,
      "the last command's end in the trail",
    );
    const typed = entries.filter((e) => e.event === "typed");
    // The command a session starts with is recorded before it starts, as typed via open.
    expect(typed[0]).toMatchObject({ session: "au", via: "open", text: "bash" });
    expect(typed[1]).toMatchObject({
      session: "au",
      who: expect.stringMatching(/^ptyhub-tests\/1\.0\.0:\d+$/),
      via: "exec",
      text: "echo hello; false",
    });
    expect(entries.find((e) => e.event === "open")).toMatchObject({ kind: "local", cwd: dir });
    expect(entries.find((e) => e.event === "command_end")).toMatchObject({ exit_code: 1, cwd: dir });
    expect(entries.find((e) => e.event === "guard")).toMatchObject({
      outcome: "declined",
      text: "shutdown -h now",
      rules: ["shutdown"],
    });
    expect(entries.some((e) => e.event === "secret")).toBe(true);
    // The secret's value, even typed later by the agent itself, is nowhere in the trail.
    const raw = trailFiles("au")
      .map((f) => readFileSync(f, "utf8"))
      .join("");
    expect(raw).not.toContain(SECRET);
    expect(typed.at(-1)!.text).toContain("echo ");
    for (const e of entries) expect(Date.parse(e.t)).toBeGreaterThan(0);

    expect(statSync(auditDir()).mode & 0o777).toBe(0o700);
    for (const f of trailFiles("au")) expect(statSync(f).mode & 0o777).toBe(0o600);

    const log = Bun.spawnSync([process.execPath, CLI, "log", "au"], { stdout: "pipe", stderr: "pipe" });
    expect(log.exitCode).toBe(0);
    const text = log.stdout.toString();
    expect(text).toContain('exec: "echo hello; false"');
    expect(text).toContain("command ended: exit 1");
    expect(text).toContain("guard declined");
    expect(text).not.toContain(SECRET);
    const missing = Bun.spawnSync([process.execPath, CLI, "log", "no-such-session"], {
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr.toString()).toContain("SESSION_NOT_FOUND");
  });
});

describe("what a human types in attach", () => {
  test("is recorded a line at a time, and hidden while the terminal does not echo", async () => {
    const host = newHost();
    try {
      await host.open({ name: "hu", command: "bash" }, ctx);
      const session = host.manager.get("hu");
      const human = (text: string) => {
        const data = new TextEncoder().encode(text);
        host.recordHumanInput(session, data);
        session.write(data);
      };
      human("echo from-");
      human("human\r");
      await host.exec(
        { session: "hu", command: "read -rs -p 'Password: ' pw; echo", ...defaults, timeout_ms: 200 },
        ctx,
      );
      await waitFor(() => session.state() === "password", AUDIT_WAIT_MS, "the password prompt");
      human("hunter2\r");
      await waitFor(() => session.phase === "prompt", AUDIT_WAIT_MS, "the read to finish");
      // Typed after echo went off but before the program reads (state running): hidden too.
      await host.exec(
        { session: "hu", command: "stty -echo; sleep 1; read -r x; stty echo", ...defaults, timeout_ms: 200 },
        ctx,
      );
      const echoOff = () => session.backendHandle.ttyModes()?.echo === false && session.state() === "running";
      await waitFor(echoOff, AUDIT_WAIT_MS, "echo off before the read");
      human("typed-ahead\r");
      await waitFor(() => session.phase === "prompt", AUDIT_WAIT_MS, "the read to finish");
      const typed = trail("hu").filter((e) => e.event === "typed" && e.via === "attach");
      const hidden = "[hidden: typed while the terminal did not echo]";
      expect(typed.map((e) => e.text)).toEqual(["echo from-human", hidden, hidden]);
      expect(typed[0]).toMatchObject({ who: "human (ptyhub attach)", enter: true });
    } finally {
      await host.shutdown();
    }
  });
});

describe("trail files", () => {
  test("rotate past the size limit and are deleted after the retention period", () => {
    const audit = new AuditTrail({
      enabled: true,
      retention_days: 1,
      max_file_bytes: 4096,
      recording: false,
      recording_max_bytes: 4096,
    });
    for (let i = 0; i < 200; i++) audit.record("rot", { event: "typed", text: "x".repeat(100), i });
    const files = trailFiles("rot");
    expect(files.length).toBeGreaterThan(1);
    expect(files.at(-1)).toBe(join(auditDir(), "rot.jsonl"));
    for (const f of files.slice(0, -1)) expect(statSync(f).size).toBeGreaterThanOrEqual(4096);
    // Oldest first, nothing lost within what is kept: the numbering runs on across files.
    const seq = files.flatMap((f) =>
      readFileSync(f, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).i as number),
    );
    expect(seq).toEqual([...seq].sort((a, b) => a - b));
    expect(seq.at(-1)).toBe(199);

    const old = (Date.now() - 3 * 24 * 3600 * 1000) / 1000;
    writeFileSync(join(auditDir(), "stale.jsonl"), "{}\n");
    utimesSync(join(auditDir(), "stale.jsonl"), old, old);
    expect(audit.prune()).toBe(1);
    expect(existsSync(join(auditDir(), "stale.jsonl"))).toBe(false);
    expect(readdirSync(auditDir())).toContain("rot.jsonl");
  });

  test("ptyhub log --follow prints entries as they are appended", async () => {
    const file = join(auditDir(), "fol.jsonl");
    writeFileSync(
      file,
      JSON.stringify({
        t: new Date().toISOString(),
        session: "fol",
        event: "typed",
        who: "w",
        via: "exec",
        text: "first",
      }) + "\n",
      { mode: 0o600 },
    );
    const proc = Bun.spawn([process.execPath, CLI, "log", "fol", "--follow"], { stdout: "pipe", stderr: "pipe" });
    let out = "";
    const reader = (async () => {
      for await (const chunk of proc.stdout) out += new TextDecoder().decode(chunk);
    })();
    try {
      await waitFor(() => out.includes('"first"'), AUDIT_WAIT_MS, "the existing entry");
      appendFileSync(
        file,
        JSON.stringify({ t: new Date().toISOString(), session: "fol", event: "command_end", exit_code: 3 }) + "\n",
      );
      await waitFor(() => out.includes("command ended: exit 3"), AUDIT_WAIT_MS, "the appended entry");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
      await reader;
    }
    expect(
      formatEntry({
        t: "2026-01-01T00:00:00.000Z",
        event: "guard",
        who: "c",
        outcome: "blocked",
        text: "reboot",
        rules: ["shutdown"],
      }),
    ).toBe('2026-01-01 00:00:00Z  c  guard blocked: "reboot" (shutdown)');
  });
});
