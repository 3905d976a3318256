/**
 * How the completion oracle reaches a session: the in-process session host (cheap: most cases) or
 * the real MCP SDK client talking to a ptyhub server whose persistent sessions live in the daemon
 * (the path users take: fewer cases). Both answer with term_exec's result fields.
 */
import type { ExecResult } from "../../src/session/exec.ts";
import type { TestHost } from "../helpers/host.ts";
import { ctx } from "../helpers/host.ts";
import type { McpClient } from "../helpers/mcp-client.ts";

export type ExecAnswer = Pick<ExecResult, "status" | "via" | "exit_code" | "output">;

export interface Driver {
  exec(command: string, timeoutMs: number): Promise<ExecAnswer>;
  /** The visible screen and the state, for a failure's evidence. */
  screen(): Promise<{ state: string; output: string }>;
  /** New output since the last read, waiting up to `waitMs` for some; its state after. */
  readNew(waitMs: number): Promise<{ state: string }>;
  interrupt(): Promise<void>;
  close(): Promise<void>;
}

const MAX_TOKENS = 4000;

export function hostDriver(host: TestHost, session: string): Driver {
  return {
    exec: (command, timeoutMs) => host.exec({ session, command, timeout_ms: timeoutMs, max_tokens: MAX_TOKENS }, ctx),
    screen: () => host.read({ session, mode: "screen", max_tokens: MAX_TOKENS }, ctx),
    readNew: (waitMs) => host.read({ session, mode: "new", wait_ms: waitMs, max_tokens: MAX_TOKENS }, ctx),
    interrupt: async () => {
      await host.send({ session, keys: ["ctrl+c"], wait_ms: 5000, max_tokens: MAX_TOKENS }, ctx);
    },
    close: async () => {
      await host.close({ session }, ctx);
    },
  };
}

export function mcpDriver(mcp: McpClient, session: string): Driver {
  return {
    exec: async (command, timeoutMs) =>
      (await mcp.ok("term_exec", { session, command, timeout_ms: timeoutMs, max_tokens: MAX_TOKENS })) as ExecAnswer,
    screen: async () => {
      const r = await mcp.ok("term_read", { session, mode: "screen", max_tokens: MAX_TOKENS });
      return { state: String(r.state), output: String(r.output) };
    },
    readNew: async (waitMs) => {
      const r = await mcp.ok("term_read", { session, mode: "new", wait_ms: waitMs, max_tokens: MAX_TOKENS });
      return { state: String(r.state) };
    },
    interrupt: async () => {
      await mcp.ok("term_send", { session, keys: ["ctrl+c"], wait_ms: 5000, max_tokens: MAX_TOKENS });
    },
    close: async () => {
      await mcp.ok("term_close", { session });
    },
  };
}
