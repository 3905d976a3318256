/**
 * A short fingerprint of the settings in effect, so that two processes can tell whether they run
 * with the same ones: the daemon reports the one it started with (its `status`), and an MCP server
 * compares it with what config.json and the environment say now (daemon-client/notices.ts). The
 * daemon reads its settings once, at its start; this is how a change it has not taken is shown.
 */
import type { Config } from "./config.ts";

/** Hex digits kept: enough that two different settings never meet by chance in practice. */
const FINGERPRINT_CHARS = 16;

export function configFingerprint(config: Config): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(JSON.stringify(config));
  return hasher.digest("hex").slice(0, FINGERPRINT_CHARS);
}
