/**
 * What the stdio server loads to answer initialize and tools/list: the MCP layer and the
 * configuration, not the session stack, the daemon client or the host API table. Those load with
 * the first call that needs them (src/host/local-slot.ts, src/host/daemon-host.ts, src/mcp/server.ts),
 * which is what keeps the compiled binary's cold start near a minimal SDK server's.
 *
 * The real server from source under strace (which files it opens), driven by the real SDK client.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, startMcp } from "../helpers/mcp-client.ts";
import { alive, waitFor } from "../helpers/wait.ts";

/** Start-up under strace on a loaded 2-core machine is slow; the server then exits on stdin's close. */
const TEST_TIMEOUT_MS = 60_000;
const EXIT_WAIT_MS = 20_000;

/** Source files and packages that tools/list must not need (each a substring of an opened path). */
const NOT_AT_START = [
  "/node_modules/@xterm/headless/",
  "/node_modules/ssh2/",
  "/node_modules/@kubernetes/client-node/",
  "/src/host/local-host.ts",
  "/src/session/manager.ts",
  "/src/session/session.ts",
  // The backends themselves; a kind's params.ts (its term_open schema, zod only) is part of the listing.
  "/src/backend/backend.ts",
  "/src/backend/descriptor.ts",
  "/src/backend/registry/",
  "/src/backend/local/",
  "/src/backend/ssh/ssh-backend.ts",
  "/src/backend/ssh/connect.ts",
  "/src/backend/serial/serial-backend.ts",
  "/src/host/gate.ts",
  "/src/audit/trail.ts",
  "/src/api/table.ts",
  "/src/daemon-client/client.ts",
  "/src/daemon-client/start.ts",
];

const strace = Bun.which("strace");
const dir = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? tmpdir(), "cold-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Paths the traced process tree opened, once it has exited (strace has written its log by then). */
function openedPaths(log: string): string[] {
  return [...readFileSync(log, "utf8").matchAll(/openat\([^,]+, "([^"]+)"/g)].map((m) => m[1]!);
}

describe("cold start", () => {
  test.skipIf(!strace)(
    "initialize and tools/list load neither the session stack nor the daemon client",
    async () => {
      const log = join(dir, "openat.log");
      const mcp = await startMcp({
        command: strace!,
        args: ["-f", "-qq", "-e", "trace=openat", "-o", log, process.execPath, CLI],
      });
      const { tools } = await mcp.client.listTools();
      expect(tools.map((t) => t.name)).toContain("term_exec");
      const pid = mcp.pid!;
      await mcp.close();
      await waitFor(() => !alive(pid), EXIT_WAIT_MS, `strace ${pid} to exit`);

      const opened = openedPaths(log);
      // The trace saw the server: the check below has something to check.
      expect(opened.some((p) => p.endsWith("/src/mcp/stdio.ts"))).toBe(true);
      expect(opened.some((p) => p.endsWith("/src/mcp/server.ts"))).toBe(true);
      expect(NOT_AT_START.filter((part) => opened.some((p) => p.includes(part)))).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});
