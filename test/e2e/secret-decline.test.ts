/**
 * term_secret when the human (or a client in non-interactive mode, on their behalf) declines or
 * cancels: ELICITATION_UNSUPPORTED with the attach hint, as when the client cannot ask at all,
 * and nothing is typed into the session.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { startMcp, type McpClient } from "../helpers/mcp-client.ts";

const servers: McpClient[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

describe("term_secret answered without a secret", () => {
  for (const action of ["decline", "cancel"] as const) {
    test(`${action}: ELICITATION_UNSUPPORTED naming ptyhub attach; nothing typed`, async () => {
      const config = { persistent: false, shell: "/bin/bash" };
      const s = await startMcp({ transport: "in-process", config, capabilities: { elicitation: {} } });
      servers.push(s);
      s.client.setRequestHandler(ElicitRequestSchema, async () => ({ action }));
      const script = "read -r -s -p 'Password: ' p; echo \"got[$p]\"; sleep 5";
      await s.ok("term_open", { name: "pw", command: "bash", args: ["--norc", "-c", script] });
      const r = await s.raw("term_secret", { session: "pw" });
      expect(r.isError).toBe(true);
      const err = (r.structuredContent as { error: { code: string; message: string; hint: string } }).error;
      expect(err.code).toBe("ELICITATION_UNSUPPORTED");
      expect(err.message).toContain(`"${action}"`);
      expect(err.hint).toContain("ptyhub attach pw");
      const screen = await s.ok("term_read", { session: "pw", mode: "screen" });
      expect(screen.output).not.toContain("got[");
      await s.ok("term_close", { session: "pw" });
    }, 30_000);
  }
});
