/**
 * After an upgrade the old daemon keeps running, and new servers would keep talking to it: the
 * new version would never be the one hosting sessions, and nothing would say so. A server that is
 * about to open a session and meets a daemon older than itself replaces it when it hosts no
 * session (nothing is lost), and otherwise says so once, with how to replace it.
 */
import { pidAlive } from "../util/process-tree.ts";
import { AppError } from "../api/errors.ts";
import { logger } from "../log.ts";
import { VERSION } from "../version.ts";
import type { DaemonClient } from "./client.ts";

const log = logger("daemon-upgrade");

/** How long an idle old daemon gets to exit once told to stop (it has no session to close). */
const OLD_DAEMON_EXIT_MS = 5_000;
const EXIT_POLL_MS = 20;

/** Whether version `a` is older than `b` (x.y.z, numerically; anything unparsable is not older). */
export function olderVersion(a: string, b: string): boolean {
  const parse = (v: string) => /^(\d+)\.(\d+)\.(\d+)/.exec(v)?.slice(1).map(Number);
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return false;
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]!;
  return false;
}

let warned = false;

/**
 * When the daemon `c` is older than this ptyhub: stops it if it hosts no session and returns true
 * (the caller starts a new one); otherwise warns once and returns false (it keeps serving, and `c`
 * stays usable). Throws when the old daemon was told to stop but did not exit.
 */
export async function retireOlderDaemon(c: DaemonClient): Promise<boolean> {
  if (!olderVersion(c.daemon.version, VERSION)) return false;
  const st = await c.control("status", {});
  if (st.sessions > 0) {
    if (!warned) {
      warned = true;
      log.warn(
        `the running ptyhub daemon is version ${st.version}, older than this ptyhub (${VERSION}); it keeps ` +
          `hosting its ${st.sessions} session(s). To upgrade it: ptyhub daemon --stop (ends those sessions); ` +
          `the next session starts a ${VERSION} daemon.`,
      );
    }
    return false;
  }
  log.warn(`replacing the idle ptyhub daemon ${st.version} (pid ${st.pid}) with ${VERSION}`);
  const closed = new Promise<void>((resolve) => c.onClose(resolve));
  await c.control("stop", {}).catch(() => {});
  await closed;
  const deadline = Date.now() + OLD_DAEMON_EXIT_MS;
  while (pidAlive(st.pid)) {
    if (Date.now() > deadline) {
      throw new AppError(
        "DAEMON_UNAVAILABLE",
        `the old ptyhub daemon ${st.version} (pid ${st.pid}) was told to stop but has not exited`,
        `Stop it by hand: ptyhub daemon --stop (or kill ${st.pid}), then retry.`,
        true,
      );
    }
    await Bun.sleep(EXIT_POLL_MS);
  }
  return true;
}
