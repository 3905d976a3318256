/**
 * A loopback sshd the oracle's SSH share logs into with a key of the test run's own HOME (the test
 * runner isolates HOME, so ~/.ssh here is scratch): the key, known_hosts and the server are made
 * here and the server ended by `stop`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { haveSshd, isRoot, keygen, type Sshd, startSshd } from "../ssh/sshd.ts";

const isolatedHome = process.env.PTYHUB_TEST_ROOT !== undefined && homedir().startsWith(process.env.PTYHUB_TEST_ROOT);
/** As test/ssh: sshd needs its privilege separation dir, which only root can create. */
export const sshUsable =
  haveSshd && isolatedHome && process.platform === "linux" && (isRoot || existsSync("/run/sshd"));

export async function startLoopbackSshd(): Promise<Sshd> {
  const dir = join(homedir(), ".ssh");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const key = join(dir, "id_ed25519");
  if (!existsSync(key)) await keygen(key);
  const server = await startSshd({ authorizedKeys: readFileSync(`${key}.pub`, "utf8") });
  const [type, blob] = server.hostKeyPub.split(/\s+/);
  writeFileSync(join(dir, "known_hosts"), `[127.0.0.1]:${server.port} ${type} ${blob}\n`, { mode: 0o600 });
  return server;
}
