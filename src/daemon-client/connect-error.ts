/**
 * Why the daemon could not be reached. A leaf module: DaemonHost tells these apart before it has
 * loaded the daemon client (src/daemon-client/client.ts, which re-exports them).
 */
import { AppError } from "../api/errors.ts";

/**
 * Why a connection could not be made. `absent` (no socket) and `stale` (a socket nobody listens
 * on: the daemon died) mean "not running" and a new daemon may be started; `closed` is a daemon
 * that hung up during the hello (it was exiting), also safe to replace; `impostor` is a process on
 * a named pipe that could not prove it holds the user's key (pipe-auth.ts): not our daemon, and
 * it got nothing but the client's hello. The others are final too.
 */
export type ConnectFailure =
  | "absent"
  | "stale"
  | "closed"
  | "denied"
  | "incompatible"
  | "refused"
  | "impostor"
  | "timeout";

/** Failures that retrying the same connection cannot cure. */
const FINAL: ReadonlySet<ConnectFailure> = new Set(["incompatible", "denied", "refused", "impostor"]);

export class DaemonConnectError extends AppError {
  constructor(
    readonly kind: ConnectFailure,
    message: string,
    hint: string,
    /** The daemon's pid, when it said hello (an incompatible daemon can still be stopped by it). */
    readonly daemonPid: number | null = null,
  ) {
    super("DAEMON_UNAVAILABLE", message, hint, !FINAL.has(kind));
    this.name = "DaemonConnectError";
  }

  /** True when no daemon is serving this socket (so one may be started). */
  get notRunning(): boolean {
    return this.kind === "absent" || this.kind === "stale" || this.kind === "closed";
  }
}
