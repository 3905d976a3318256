/**
 * Container engines for container sessions: a Docker or Podman API socket that answers `GET /_ping`
 * ("OK"). None at all is fine (only container sessions need one); one that is there and does not
 * answer is worth a warning (a stopped engine, or a socket this user may not use).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { errorText, type Finding, findingsOf } from "./finding.ts";

const is = findingsOf("containers");

const PING_TIMEOUT_MS = 2_000;
const DOCKER_SOCKET = "/var/run/docker.sock";
const UNIX_URL_PREFIX = "unix://";

/** The sockets to try, each once: $DOCKER_HOST (a unix:// one), Docker's default, the user's Podman. */
export function engineSockets(env: NodeJS.ProcessEnv = process.env): string[] {
  const sockets: string[] = [];
  if (env.DOCKER_HOST?.startsWith(UNIX_URL_PREFIX)) sockets.push(env.DOCKER_HOST.slice(UNIX_URL_PREFIX.length));
  sockets.push(DOCKER_SOCKET);
  if (env.XDG_RUNTIME_DIR) sockets.push(join(env.XDG_RUNTIME_DIR, "podman", "podman.sock"));
  return [...new Set(sockets)];
}

export async function checkContainers(env: NodeJS.ProcessEnv = process.env): Promise<Finding[]> {
  const present = engineSockets(env).filter((socket) => existsSync(socket));
  const findings = await Promise.all(present.map(pingEngine));
  if (env.DOCKER_HOST && !env.DOCKER_HOST.startsWith(UNIX_URL_PREFIX)) {
    findings.push(is.ok("DOCKER_HOST", `${env.DOCKER_HOST} is not a unix socket; not checked`));
  }
  if (findings.length === 0) {
    findings.push(is.ok("Docker/Podman", "no engine socket found; only container sessions need one"));
  }
  return findings;
}

async function pingEngine(socket: string): Promise<Finding> {
  const fix = "Start the engine (systemctl start docker, or podman system service), or check you may use the socket.";
  try {
    const res = await fetch("http://localhost/_ping", { unix: socket, signal: AbortSignal.timeout(PING_TIMEOUT_MS) });
    const body = (await res.text()).trim();
    if (res.ok && body === "OK") return is.ok(socket, "the engine answers /_ping");
    return is.warn(socket, `the engine answered ${res.status} ${JSON.stringify(body.slice(0, 60))}`, fix);
  } catch (err) {
    return is.warn(socket, `no answer to /_ping: ${errorText(err)}`, fix);
  }
}
