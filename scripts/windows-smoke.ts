#!/usr/bin/env bun
/**
 * The windows-x64 exe on real Windows (the `windows` job of .github/workflows/ci.yml): over stdio,
 * with the real MCP SDK client, a local cmd.exe on a pseudo console — output, exit codes, typed
 * input, resize, term_exec's exit codes, close — and term_exec in PowerShell (5.1, and 7 where
 * installed). Then a persistent cmd.exe in the daemon (its named pipe, its start lock, a detached
 * process): it outlives the server that opened it, and a new server reads it. Wine runs the rest of
 * the smoke on Linux (test/ship/windows.test.ts) but cannot carry stdio from a Linux pipe, resize,
 * the exact std-handle behaviour or PowerShell: this covers them.
 *
 *   bun scripts/windows-smoke.ts PATH\TO\ptyhub.exe
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

const CALL_TIMEOUT_MS = 60_000;
const EXIT_POLL_MS = 200;

const exe = process.argv[2];
if (!exe) {
  process.stderr.write("usage: bun scripts/windows-smoke.ts PATH\\TO\\ptyhub.exe\n");
  process.exit(2);
}

/** A new server over stdio; closing its client ends that server process. */
async function connect(persistent: boolean): Promise<Client> {
  const made = new Client({ name: "ptyhub-windows-smoke", version: "1.0.0" });
  await made.connect(
    new StdioClientTransport({
      command: exe!,
      args: [],
      env: { ...process.env, PTYHUB_PERSISTENT: persistent ? "1" : "0" } as Record<string, string>,
    }),
  );
  return made;
}

// First the in-process sessions (the pseudo console alone), then the daemon's.
let client = await connect(false);

async function call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: CALL_TIMEOUT_MS,
  })) as CallToolResult;
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent as Record<string, unknown>;
}

function check(what: string, ok: boolean, got: unknown): void {
  if (!ok) throw new Error(`${what}: got ${JSON.stringify(got)}`);
  process.stdout.write(`ok   ${what}\n`);
}

async function exited(session: string): Promise<Record<string, unknown> | undefined> {
  const deadline = Date.now() + CALL_TIMEOUT_MS;
  for (;;) {
    const { sessions } = (await call("term_list", {})) as { sessions: Record<string, unknown>[] };
    const entry = sessions.find((s) => s.session === session);
    if (entry?.state === "exited" || Date.now() > deadline) return entry;
    await Bun.sleep(EXIT_POLL_MS);
  }
}

try {
  const tools = (await client.listTools()).tools.map((t) => t.name);
  check("tools/list names term_open", tools.includes("term_open"), tools);

  await call("term_open", { name: "once", command: "cmd.exe", args: ["/c", "echo from-conpty & exit 5"] });
  const once = await exited("once");
  check("cmd /c exits with its code", once?.exit_code === 5, once);
  const screen = await call("term_read", { session: "once", mode: "screen" });
  check("its output is on the screen", String(screen.output).includes("from-conpty"), screen);

  await call("term_open", { name: "cmd", command: "cmd.exe" });
  const typed = await call("term_send", { session: "cmd", text: "echo typed-%OS%", until: "typed-Windows_NT" });
  check("typed input reaches cmd.exe", typed.matched === "typed-Windows_NT", typed);
  await call("term_resize", { session: "cmd", cols: 91, rows: 27 });
  const mode = await call("term_send", { session: "cmd", text: "mode con", until: "Columns:\\s+91" });
  check("resize reaches the console", typeof mode.matched === "string", mode);
  await call("term_send", { session: "cmd", text: "exit 7", wait_ms: 1000 });
  const cmd = await exited("cmd");
  check("exit 7 ends the session with code 7", cmd?.exit_code === 7, cmd);

  // term_exec on shell integration: cmd.exe's markers, PowerShell's prompt function (never run
  // anywhere before this job: PowerShell does not run under Wine's test set-up).
  await call("term_open", { name: "exec", command: "cmd.exe" });
  const hi = await call("term_exec", { session: "exec", command: "echo hi" });
  check(
    "cmd.exe term_exec: done, exit 0, output hi",
    hi.status === "done" && hi.exit_code === 0 && hi.output === "hi",
    hi,
  );
  const three = await call("term_exec", { session: "exec", command: "cmd /c exit 3" });
  check("cmd.exe term_exec: exit code 3", three.status === "done" && three.exit_code === 3, three);
  const missing = await call("term_exec", { session: "exec", command: "dir nonexistent" });
  check("cmd.exe term_exec: a failed dir's errorlevel", missing.exit_code === 1, missing);
  // ctrl+c in a marked line: cmd must come back to its prompt (not ask "Terminate batch job?" when
  // the end marker runs), and the next term_exec works.
  const long = await call("term_exec", { session: "exec", command: "ping -n 30 127.0.0.1", timeout_ms: 3000 });
  check("cmd.exe term_exec: a long command is still running", long.status === "running", long);
  await call("term_send", { session: "exec", keys: ["ctrl+c"], wait_ms: 2000 });
  const after = await call("term_exec", { session: "exec", command: "echo after" });
  check("cmd.exe term_exec after ctrl+c", after.status === "done" && after.output === "after", after);
  await call("term_close", { session: "exec" });
  for (const shell of ["powershell.exe", "pwsh.exe"]) {
    if (!Bun.which(shell)) {
      process.stdout.write(`skip ${shell}: not installed\n`);
      continue;
    }
    await call("term_open", { name: "ps", command: shell });
    const out = await call("term_exec", { session: "ps", command: "Write-Output ('p' + 's')" });
    check(`${shell} term_exec: done, exit 0, output ps`, out.exit_code === 0 && out.output === "ps", out);
    const native = await call("term_exec", { session: "ps", command: "cmd /c exit 4" });
    check(`${shell} term_exec: a native program's exit code`, native.exit_code === 4, native);
    const failed = await call("term_exec", { session: "ps", command: "Get-Item C:\\nonexistent-ptyhub" });
    check(`${shell} term_exec: a failed cmdlet is 1`, failed.status === "done" && failed.exit_code === 1, failed);
    const lines = await call("term_exec", { session: "ps", command: "$x = 6\nWrite-Output ($x * 7)" });
    check(`${shell} term_exec: several lines`, lines.exit_code === 0 && lines.output === "42", lines);
    const env = await call("term_exec", { session: "ps", command: "[string]$env:PTYHUB_NONCE" });
    check(`${shell}: the nonce is not in the environment`, env.exit_code === 0 && env.output === "", env);
    await call("term_close", { session: "ps" });
  }

  await call("term_open", { name: "long", command: "cmd.exe" });
  const closed = await call("term_close", { session: "long" });
  check("term_close ends the program", closed.closed === true && closed.exit_code !== null, closed);
  await client.close();

  client = await connect(true);
  const kept = await call("term_open", { name: "kept", command: "cmd.exe", persistent: true });
  check("a persistent session opens in the daemon", kept.persistent === true, kept);
  await call("term_send", { session: "kept", text: "set KEPT=kept-%OS%", wait_ms: 1000 });
  await client.close(); // Ends this server process; the daemon and its session stay.

  client = await connect(true);
  const back = await call("term_send", {
    session: "kept",
    text: "echo value=%KEPT%=",
    until: "value=kept-Windows_NT=",
  });
  check("a new server reads the same cmd.exe", back.matched === "value=kept-Windows_NT=", back);
  await call("term_close", { session: "kept" });
} finally {
  await client.close();
  // The daemon outlives this script otherwise.
  Bun.spawnSync([exe, "daemon", "--stop"], { stdio: ["ignore", "inherit", "inherit"] });
}
