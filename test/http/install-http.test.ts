/**
 * `ptyhub install CLIENT --http URL`: the documented URL entry with the bearer token header for
 * Claude Code, VS Code and Cursor in a temporary HOME; a command entry switched to a URL entry
 * (and back) keeps no contradicting fields; clients without a documented URL entry, project
 * configs (shared files) and bad URLs are refused with nothing written.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInstall, type InstallIo } from "../../src/install/command.ts";
import { findClient } from "../../src/install/clients/all-clients.ts";
import { nodeValue, parseJsonc } from "../../src/util/jsonc.ts";
import { CLI } from "../helpers/mcp-client.ts";

const TOKEN = "test-token-0123456789abcdefghijklmnopqrstuvwxyz";
const URL_ = "http://127.0.0.1:6420/mcp";
const LAUNCH = { command: "/opt/ptyhub/bin/ptyhub", args: [] as string[] };

let home: string;

beforeEach(() => {
  home = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "install-http-"));
  mkdirSync(join(home, "project"));
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

async function install(args: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const io: InstallIo = {
    machine: { home, cwd: join(home, "project"), platform: "linux", env: {} },
    launch: LAUNCH,
    out: (line) => stdout.push(line),
    err: (line) => stderr.push(line),
    now: () => new Date("2025-01-02T03:04:05.678Z"),
    httpToken: () => TOKEN,
  };
  const code = await runInstall(args, io);
  return { code, stdout: stdout.join("\n"), stderr: stderr.join("\n") };
}

function entryIn(clientId: string): unknown {
  const client = findClient(clientId)!;
  const path = client.configPath({ home, cwd: join(home, "project"), platform: "linux", env: {} }, "user")!;
  if (client.format.kind !== "json") throw new Error("json clients only");
  return (nodeValue(parseJsonc(readFileSync(path, "utf8")).root!) as any)[client.format.serversKey]?.ptyhub;
}

const BEARER = { Authorization: `Bearer ${TOKEN}` };

describe("ptyhub install --http", () => {
  test("--dry-run neither creates nor prints the token", async () => {
    let asked = 0;
    const stdout: string[] = [];
    const io: InstallIo = {
      machine: { home, cwd: join(home, "project"), platform: "linux", env: {} },
      launch: LAUNCH,
      out: (line) => stdout.push(line),
      err: (line) => stdout.push(line),
      now: () => new Date("2025-01-02T03:04:05.678Z"),
      httpToken: () => {
        asked++; // resolving the token creates its file when there is none
        return TOKEN;
      },
    };
    expect(await runInstall(["cursor", "--http", URL_, "--dry-run"], io)).toBe(0);
    expect(asked).toBe(0);
    const text = stdout.join("\n");
    expect(text).not.toContain(TOKEN);
    expect(text).toContain("Bearer <token>");
    expect(existsSync(join(home, ".cursor", "mcp.json"))).toBe(false);
  });

  test("--dry-run through the real command line leaves no token file", async () => {
    const state = join(home, "state");
    const proc = Bun.spawn([process.execPath, CLI, "install", "cursor", "--http", URL_, "--dry-run"], {
      env: { ...(process.env as Record<string, string>), HOME: home, XDG_STATE_HOME: state, PTYHUB_HTTP_TOKEN: "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect(out).toContain("Bearer <token>");
    expect(existsSync(join(state, "ptyhub", "http-token"))).toBe(false);
  });

  test("Claude Code, VS Code and Cursor get their documented URL entries with the token header; re-running changes nothing", async () => {
    const expected: Record<string, unknown> = {
      "claude-code": { type: "http", url: URL_, headers: BEARER },
      vscode: { type: "http", url: URL_, headers: BEARER },
      cursor: { url: URL_, headers: BEARER },
    };
    for (const [id, entry] of Object.entries(expected)) {
      const r = await install([id, "--http", URL_]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`ptyhub endpoint: ${URL_}`);
      expect(r.stdout).not.toContain(TOKEN); // the token goes into the file, not the terminal
      expect(entryIn(id)).toEqual(entry);
      const again = await install([id, "--http", URL_]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain("already registered");
    }
  });

  test("switching a command entry to a URL entry and back leaves no contradicting fields", async () => {
    expect((await install(["claude-code"])).code).toBe(0);
    expect(entryIn("claude-code")).toEqual({ type: "stdio", command: LAUNCH.command, args: [] });
    expect((await install(["claude-code", "--http", URL_])).code).toBe(0);
    expect(entryIn("claude-code")).toEqual({ type: "http", url: URL_, headers: BEARER });
    expect((await install(["claude-code"])).code).toBe(0);
    expect(entryIn("claude-code")).toEqual({ type: "stdio", command: LAUNCH.command, args: [] });
    expect((await install(["claude-code", "--uninstall", "--http", URL_])).code).toBe(0);
    expect(entryIn("claude-code")).toBeUndefined();
  });

  test("refused with nothing written: a client with no URL entry, a project config, a non-http URL", async () => {
    const codex = await install(["codex", "--http", URL_]);
    expect(codex.code).toBe(2);
    expect(codex.stderr).toContain("no documented HTTP server entry");
    const project = await install(["claude-code", "--project", "--http", URL_]);
    expect(project.code).toBe(2);
    expect(project.stderr).toContain("must not go into a project's shared config");
    expect(existsSync(join(home, "project", ".mcp.json"))).toBe(false);
    for (const bad of ["ftp://127.0.0.1/mcp", "not a url", "127.0.0.1:6420"]) {
      const r = await install(["cursor", "--http", bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("--http needs");
    }
    expect(existsSync(join(home, ".cursor", "mcp.json"))).toBe(false);
    expect(existsSync(join(home, ".codex"))).toBe(false);
  });
});
