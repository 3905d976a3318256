/**
 * An in-process session host for integration tests on real PTYs. Its named methods are shorthand
 * for `call` (what the tools use), so a test reads as the operation it performs.
 */
import { loadConfig, type Config } from "../../src/config/config.ts";
import { LocalHost } from "../../src/host/local-host.ts";
import { TOOL_TASK_RUNNER } from "../../src/mcp/tasks/host-tasks.ts";
import type { CallContext } from "../../src/api/host.ts";
import type { HostParams } from "../../src/api/table.ts";

export const ctx: CallContext = { clientId: "test-client" };

export class TestHost extends LocalHost {
  open(p: HostParams<"open">, c: CallContext = ctx) {
    return this.call("open", p, c);
  }
  exec(p: HostParams<"exec">, c: CallContext = ctx) {
    return this.call("exec", p, c);
  }
  send(p: HostParams<"send">, c: CallContext = ctx) {
    return this.call("send", p, c);
  }
  read(p: HostParams<"read">, c: CallContext = ctx) {
    return this.call("read", p, c);
  }
  list(c: CallContext = ctx) {
    return this.call("list", {}, c);
  }
  close(p: HostParams<"close">, c: CallContext = ctx) {
    return this.call("close", p, c);
  }
  resize(p: HostParams<"resize">, c: CallContext = ctx) {
    return this.call("resize", p, c);
  }
  typeSecret(p: HostParams<"typeSecret">, c: CallContext = ctx) {
    return this.call("typeSecret", p, c);
  }
  serial(p: HostParams<"serial">, c: CallContext = ctx) {
    return this.call("serial", p, c);
  }
  check(session: string, c: CallContext = ctx) {
    return this.call("check", { session }, c);
  }
}

export function newHost(overrides: Partial<Config> = {}, persistent = false): TestHost {
  return new TestHost({ ...loadConfig({}, {}), shell: "/bin/bash", ...overrides }, TOOL_TASK_RUNNER, persistent);
}

export const defaults = { timeout_ms: 30_000, max_tokens: 4000 };
export const sendDefaults = { wait_ms: 5000, max_tokens: 4000 };
