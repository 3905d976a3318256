/** An in-process session host for integration tests on real PTYs. */
import { loadConfig, type Config } from "../../src/config.ts";
import { LocalHost, type CallContext } from "../../src/session/host.ts";

export const ctx: CallContext = { clientId: "test-client" };

export function newHost(overrides: Partial<Config> = {}): LocalHost {
  return new LocalHost({ ...loadConfig({}, {}), shell: "/bin/bash", ...overrides });
}

export const defaults = { timeout_ms: 30_000, max_tokens: 4000 };
export const sendDefaults = { wait_ms: 5000, max_tokens: 4000 };
