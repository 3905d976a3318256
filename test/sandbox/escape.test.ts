/**
 * Issue 35, item 1: a sandboxed session must not reach ptyhub itself. The attacks as the tester
 * ran them, live through MCP on a real PTY: a read-only session double-forks a ptyhub client
 * (`env -u PTYHUB_SESSION setsid -f …`) that asks the daemon for an unsandboxed session writing
 * outside the sandbox; it reads the HTTP token file and connects to the daemon's socket by its
 * path and through /proc; and, with `serve --http` running, a double-forked curl sends the token
 * it read. None of it may get anywhere: the paths are hidden by the OS (sandbox/hidden-paths.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stopDaemon, daemonStatus } from "../helpers/daemon.ts";
import { CLI, connectHttp, startMcp, type Env, type McpClient } from "../helpers/mcp-client.ts";
import { startHttpServer, type HttpServerProc } from "../http/helpers.ts";
import { landlockAbi } from "../../src/backend/local/sandbox/landlock.ts";
import { resolveHttpToken } from "../../src/config/http-token.ts";
import { resolveSocket } from "../../src/daemon-client/daemon-paths.ts";

const abi = landlockAbi();
/** The escaped client keeps its stdin open this long (the tester's `sleep 8`). */
const CLIENT_STDIN_SECONDS = 8;
/** How long the escaped client may take to start, reach a daemon and run its command. */
const ESCAPE_WAIT_MS = 30_000;
const POLL_MS = 500;
/** Longer than any wait above, so each term_exec answers "done". */
const EXEC_TIMEOUT_MS = 45_000;
/** Long enough for `sleep` to have started before ctrl+c is sent. */
const INTERRUPT_AFTER_MS = 1000;
/** A shell's exit status for a command ended by SIGINT: 128 + 2. */
const SIGINT_EXIT = 130;

let mcp: McpClient;
let root: string;
const servers: HttpServerProc[] = [];
const httpClients: McpClient[] = [];

beforeAll(async () => {
  mcp = await startMcp({ transport: "in-process", config: { shell: "/bin/bash" } });
  root = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-escape-")));
  mkdirSync(join(root, "work"));
});
afterAll(async () => {
  for (const c of httpClients) await c.close().catch(() => undefined);
  for (const s of servers) await s.terminate();
  await mcp.close();
  await stopDaemon();
});

async function openRo(client: McpClient, name: string): Promise<void> {
  const r = await client.call("term_open", { name, cwd: join(root, "work"), command: "bash", sandbox: "read-only" });
  expect(r.error ?? null).toBeNull();
}

async function exec(client: McpClient, session: string, command: string): Promise<{ output: string; code: number }> {
  const r = await client.call("term_exec", { session, command, timeout_ms: EXEC_TIMEOUT_MS });
  expect(r.isError).toBe(false);
  return { output: String(r.data.output), code: Number(r.data.exit_code) };
}

/** A `serve --http` of this environment over `env`, and a client of it. */
async function serveHttp(env: Env): Promise<{ server: HttpServerProc; httpClient: McpClient }> {
  const server = await startHttpServer({ ...(process.env as Env), ...env });
  servers.push(server);
  const httpClient = await connectHttp(server.url, server.token);
  httpClients.push(httpClient);
  return { server, httpClient };
}

/** An MCP initialize request, the body a curl sends. */
const INITIALIZE_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "escape", version: "1" } },
});

/** A curl of `url` sending the bearer token the shell expression `token` gives; prints the HTTP status. */
function curlCommand(url: string, token: string): string {
  return (
    `curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer ${token}"` +
    ` -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'` +
    ` --data ${quote(INITIALIZE_BODY)} ${quote(url)}`
  );
}

/** Runs `curl` double-forked out of `session`, and what it printed (the HTTP status). */
async function forkedCurl(client: McpClient, session: string, curl: string): Promise<string> {
  const fork = `env -u PTYHUB_SESSION setsid -f sh -c ${quote(`${curl} > "$TMPDIR/code"`)}`;
  expect((await exec(client, session, fork)).code).toBe(0);
  const code = await exec(client, session, `${waitUntil('[ -s "$TMPDIR/code" ]')}; echo "code=$(cat "$TMPDIR/code")"`);
  expect(code.output).toMatch(/code=\d{3}/);
  return code.output;
}

/** One JSON-RPC line per message, as a client writes them on a server's stdin. */
function requestLines(command: string): string {
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "escape", version: "1" } },
  };
  const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
  const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "term_exec", arguments: { command } } };
  return [init, initialized, call].map((m) => JSON.stringify(m)).join("\n") + "\n";
}

/** A shell loop that waits, at most ESCAPE_WAIT_MS, until the shell test `cond` holds. */
const waitUntil = (cond: string) =>
  `for i in $(seq ${ESCAPE_WAIT_MS / POLL_MS}); do ${cond} && break; sleep ${POLL_MS / 1000}; done`;

/** A shell word: the text in single quotes. */
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe.if(abi >= 1)("a sandboxed session cannot reach ptyhub", () => {
  test("a double-forked ptyhub client gets no unsandboxed session: nothing is written outside", async () => {
    await openRo(mcp, "esc-mcp");
    const target = join(root, "escaped-by-mcp");
    const req = requestLines(`touch ${target}`);
    const write = await exec(mcp, "esc-mcp", `printf %s ${quote(req)} > "$TMPDIR/req.jsonl" && echo written`);
    expect(write.output).toContain("written");
    const client = `${process.execPath} ${CLI}`;
    const fork =
      `env -u PTYHUB_SESSION setsid -f sh -c '{ cat "$TMPDIR/req.jsonl"; sleep ${CLIENT_STDIN_SECONDS}; }` +
      ` | ${client} > "$TMPDIR/resp.jsonl" 2>&1; touch "$TMPDIR/client-done"'`;
    expect((await exec(mcp, "esc-mcp", fork)).code).toBe(0);
    // The client answers the call (or fails) within its stdin's life; the file must never appear.
    // The client has ended (its stdin closed after the sleep) once the marker is there: nothing it
    // started is left running when the test ends.
    const answered = await exec(
      mcp,
      "esc-mcp",
      `${waitUntil('[ -e "$TMPDIR/client-done" ]')}; cat "$TMPDIR/resp.jsonl"`,
    );
    console.log(`the escaped client said: …${answered.output.slice(-600)}`);
    expect(existsSync(target)).toBe(false);
  }, 60_000);

  test("the HTTP token file and the daemon's socket are out of reach, by path and through /proc", async () => {
    await openRo(mcp, "esc-paths");
    const token = resolveHttpToken({}); // the file (created when absent) of this environment
    expect(token.path).not.toBeNull();
    const socket = resolveSocket();
    const daemon = await daemonStatus();
    expect(daemon).not.toBeNull();
    const read = await exec(mcp, "esc-paths", `cat ${quote(token.path!)}; cat /proc/${daemon!.pid}/root${token.path}`);
    expect(read.output).not.toContain(token.token);
    const connect = (path: string) =>
      `python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("CONNECTED")' ` +
      quote(path);
    const viaPath = await exec(mcp, "esc-paths", connect(socket));
    expect(viaPath.output).not.toContain("CONNECTED");
    const viaProc = await exec(mcp, "esc-paths", connect(`/proc/${daemon!.pid}/root${socket}`));
    expect(viaProc.output).not.toContain("CONNECTED");
    const viaSocat = await exec(
      mcp,
      "esc-paths",
      `socat -u OPEN:/dev/null UNIX-CONNECT:${quote(socket)} && echo CONNECTED`,
    );
    expect(viaSocat.output).not.toContain("CONNECTED");
  }, 60_000);

  test("serve --http: a double-forked curl with the token it can read gets no 200", async () => {
    const { server, httpClient } = await serveHttp({});
    await openRo(httpClient, "esc-http");
    const tokenFile = /token in (\S+)>/.exec(server.banner)?.[1];
    expect(tokenFile).toBeDefined();
    const code = await forkedCurl(httpClient, "esc-http", curlCommand(server.url, `$(cat ${quote(tokenFile!)})`));
    expect(code).not.toContain("code=200");
    expect(code).toContain("code=401");
    expect(readFileSync(tokenFile!, "utf8").trim()).toBe(server.token);
  }, 60_000);

  test("serve --http with PTYHUB_HTTP_TOKEN: the session inherits no token and cannot read the server's", async () => {
    const token = `escape-${"x".repeat(40)}`;
    const { server, httpClient } = await serveHttp({ PTYHUB_HTTP_TOKEN: token });
    await openRo(httpClient, "esc-http-env");
    const seen = await exec(
      httpClient,
      "esc-http-env",
      `echo "tok=\${PTYHUB_HTTP_TOKEN:-none}"; cat /proc/${server.pid}/environ`,
    );
    expect(seen.output).toContain("tok=none");
    expect(seen.output).not.toContain(token);
    const code = await forkedCurl(httpClient, "esc-http-env", curlCommand(server.url, "$PTYHUB_HTTP_TOKEN"));
    expect(code).not.toContain("code=200");
    expect(code).toContain("code=401");
  }, 60_000);

  test("serve --http with a state dir of its own, on the same daemon: its token file is hidden too", async () => {
    // The daemon runs with this test's environment (opening a session starts it); this server keeps
    // its token elsewhere.
    await openRo(mcp, "esc-daemon-first");
    expect(await daemonStatus()).not.toBeNull();
    const stateHome = join(root, "state-of-serve");
    const { server, httpClient } = await serveHttp({ XDG_STATE_HOME: stateHome });
    const tokenFile = /token in (\S+)>/.exec(server.banner)?.[1];
    expect(tokenFile?.startsWith(stateHome)).toBe(true);
    await openRo(httpClient, "esc-http-state");
    expect((await exec(httpClient, "esc-http-state", `cat ${quote(tokenFile!)}`)).output).not.toContain(server.token);
    const code = await forkedCurl(httpClient, "esc-http-state", curlCommand(server.url, `$(cat ${quote(tokenFile!)})`));
    expect(code).toContain("code=401");
  }, 60_000);

  test.if(abi >= 6)(
    "it cannot signal the daemon (Landlock scoping), but ctrl+c still reaches it",
    async () => {
      await openRo(mcp, "esc-signal");
      const daemon = await daemonStatus();
      expect(daemon).not.toBeNull();
      const signal = await exec(mcp, "esc-signal", `kill -0 ${daemon!.pid} && echo SIGNALED`);
      expect(signal.output).not.toContain("SIGNALED");
      expect(signal.output).toContain("Operation not permitted");
      const sent = mcp.call("term_exec", { session: "esc-signal", command: "sleep 30", timeout_ms: EXEC_TIMEOUT_MS });
      await Bun.sleep(INTERRUPT_AFTER_MS);
      await mcp.call("term_send", { session: "esc-signal", keys: ["ctrl+c"] });
      expect((await sent).data.exit_code).toBe(SIGINT_EXIT);
    },
    60_000,
  );

  test("a workspace that holds one of ptyhub's directories is refused: SPAWN_FAILED, nothing started", async () => {
    const stateHome = process.env.XDG_STATE_HOME;
    expect(stateHome).toBeDefined();
    const r = await mcp.call("term_open", { name: "esc-ws", cwd: stateHome, command: "bash", sandbox: "workspace" });
    expect(r.error?.code).toBe("SPAWN_FAILED");
    expect(r.error!.message).toContain("cannot hide");
    const list = await mcp.call("term_list", {});
    expect(list.data.sessions.map((s: { session: string }) => s.session)).not.toContain("esc-ws");
  });
});
