/**
 * The daemon that owns persistent sessions: its private directory (ours, 0700) and socket (0600),
 * whether one runs or can be started, and whether the running one is as new as this ptyhub (an
 * older daemon keeps serving after an upgrade until it is stopped, with only a line in a log).
 */
import { statSync } from "node:fs";
import { AppError } from "../api/errors.ts";
import { configFilePath } from "../config/config.ts";
import { DaemonConnectError, type DaemonClient } from "../daemon-client/client.ts";
import { daemonPaths, isNamedPipe } from "../daemon-client/daemon-paths.ts";
import { reachDaemon } from "../daemon-client/start.ts";
import { olderVersion } from "../daemon-client/upgrade.ts";
import { VERSION } from "../version.ts";
import { errorText, type Finding, findingsOf } from "./finding.ts";

const is = findingsOf("daemon");

const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_SOCKET_MODE = 0o600;
const PERMISSION_BITS = 0o777;
const DOCTOR_ROLE = "cli";

function octal(mode: number): string {
  return `0${(mode & PERMISSION_BITS).toString(8)}`;
}

/** A file's permission bits and owner against what they must be; undefined when it is fine. */
function modeProblem(path: string, wanted: number): string | undefined {
  const st = statSync(path);
  const uid = typeof process.getuid === "function" ? process.getuid() : st.uid;
  if (st.uid !== uid) return `${path} belongs to uid ${st.uid}, not to you (uid ${uid})`;
  if ((st.mode & PERMISSION_BITS) !== wanted) return `${path} is mode ${octal(st.mode)}, not ${octal(wanted)}`;
  return undefined;
}

export async function checkDaemon(): Promise<Finding[]> {
  let paths: ReturnType<typeof daemonPaths>;
  try {
    paths = daemonPaths();
  } catch (err) {
    const fix =
      err instanceof AppError && err.hint ? err.hint : "Set PTYHUB_SOCKET to a socket path in a directory you own.";
    return [is.fail("socket directory", errorText(err), fix)];
  }
  const findings: Finding[] = [];
  const pipe = isNamedPipe(paths.socket);
  if (!pipe) {
    const problem = modeProblem(paths.dir, PRIVATE_DIR_MODE);
    findings.push(
      problem
        ? is.fail(paths.dir, problem, `chmod 700 ${paths.dir} (and chown it to you), or set PTYHUB_SOCKET elsewhere.`)
        : is.ok(paths.dir, "the socket's directory is yours, mode 0700"),
    );
  }
  let client: DaemonClient;
  let started = false;
  try {
    ({ client, started } = await connectOrStart());
  } catch (err) {
    const hint = err instanceof AppError && err.hint ? err.hint : `Its log: ${paths.log}`;
    const fix =
      err instanceof DaemonConnectError && err.kind === "incompatible"
        ? `ptyhub daemon --stop (it ends that daemon's sessions), then run ptyhub doctor again. ${hint}`
        : hint;
    findings.push(is.fail(paths.socket, `cannot reach or start the daemon: ${errorText(err)}`, fix));
    return findings;
  }
  try {
    const st = await client.control("status", {});
    const lifetime =
      st.idle_exit_ms > 0 ? `it exits after ${Math.round(st.idle_exit_ms / 1000)} s with nothing to do` : "it stays";
    const running = started
      ? `started one (pid ${st.pid}; ${lifetime})`
      : `running, pid ${st.pid}, ${st.sessions} session(s)`;
    findings.push(versionFinding(st.version, running, st.sessions));
    const stale = started ? undefined : staleSettings(st.uptime_ms);
    if (stale) findings.push(stale);
    if (!pipe) {
      const problem = modeProblem(paths.socket, PRIVATE_SOCKET_MODE);
      findings.push(
        problem
          ? is.fail(paths.socket, problem, "ptyhub daemon --stop, then let ptyhub start it again (it makes it 0600).")
          : is.ok(paths.socket, "the socket is yours, mode 0600"),
      );
    }
  } finally {
    client.close();
  }
  return findings;
}

/** The running daemon, or a new one this check started (it then reports `started`). */
async function connectOrStart(): Promise<{ client: DaemonClient; started: boolean }> {
  try {
    return { client: await reachDaemon({ role: DOCTOR_ROLE, start: false }), started: false };
  } catch (err) {
    if (!(err instanceof DaemonConnectError) || !err.notRunning) throw err;
  }
  return { client: await reachDaemon({ role: DOCTOR_ROLE, start: true }), started: true };
}

/**
 * The daemon reads the configuration once, at its start: a config.json changed since then is not
 * what its sessions use (a new `cols`, a guard rule) until it is restarted.
 */
function staleSettings(uptimeMs: number): Finding | undefined {
  const path = configFilePath();
  let changedAt: number;
  try {
    changedAt = statSync(path).mtimeMs;
  } catch {
    return undefined; // no config file: nothing to be stale
  }
  if (changedAt <= Date.now() - uptimeMs) return undefined;
  return is.warn(
    path,
    "changed after the running daemon started: its sessions still use the settings it read then",
    "ptyhub daemon --stop (it ends its sessions); the next session starts a daemon with the new settings.",
  );
}

function versionFinding(daemonVersion: string, running: string, sessions: number): Finding {
  const subject = `daemon ${daemonVersion}`;
  if (olderVersion(daemonVersion, VERSION)) {
    const keeps = sessions > 0 ? ` (that ends its ${sessions} session(s))` : "";
    return is.warn(
      subject,
      `${running}; older than this ptyhub (${VERSION}), so sessions still run on the old version`,
      `ptyhub daemon --stop${keeps}; the next session starts a ${VERSION} daemon.`,
    );
  }
  if (olderVersion(VERSION, daemonVersion)) {
    return is.warn(
      subject,
      `${running}; newer than this ptyhub (${VERSION})`,
      "Update this ptyhub (a client may launch an older copy: see the clients lines), or ignore if intended.",
    );
  }
  return is.ok(subject, `${running}; the same version as this ptyhub`);
}
