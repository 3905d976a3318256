/**
 * The raw bytes each daemon session printed, kept (bounded) so that a remote ptyhub that lost its
 * connection can reattach at the byte it had reached and receive everything after it exactly once:
 * the shell-integration marks (and so the exit codes of commands that ended meanwhile) are in those
 * bytes. A serialized screen, which is what a human's `ptyhub attach` gets, would lose them.
 *
 * Offsets count every byte the session's program printed since the session started (the
 * emulator's `bytesIn`), so both ends agree on them without any bookkeeping of their own.
 */
import type { HostEvent } from "../api/host.ts";
import type { Session } from "../session/session.ts";
import { ByteLog } from "../util/byte-log.ts";

/**
 * Bytes kept per session a remote ptyhub is attached to. A drop of a few minutes during a chatty
 * build prints far less; if more was printed, the oldest part is missing after reattaching (and the
 * local log says so).
 */
export const REPLAY_LOG_BYTES = 4 * 1024 * 1024;
/**
 * Bytes kept per session until a remote ptyhub first attaches: enough for what a shell prints
 * before that (its start-up and first prompt, moments after the open), while the many sessions no
 * remote ptyhub ever attaches to cost little.
 */
export const REPLAY_LOG_INITIAL_BYTES = 256 * 1024;

/** A session's bytes from the offset where its log started (ByteLog, raised to REPLAY_LOG_BYTES on attach). */
export class ReplayLog extends ByteLog {
  constructor(startOffset: number, maxBytes = REPLAY_LOG_BYTES) {
    super(startOffset, maxBytes);
  }
}

interface LoggedHost {
  readonly manager: { get(id: string): Session };
  onSessionEvent?(listener: (event: HostEvent) => void): () => void;
}

/** A replay log for every session of a daemon, from the moment it opens until it closes. */
export class ReplayLogs {
  private readonly logs = new Map<string, { log: ReplayLog; untap: () => void }>();

  constructor(host: LoggedHost) {
    host.onSessionEvent?.((event) => {
      if (event.kind === "opened") this.track(host.manager.get(event.session));
      else if (event.kind === "closed") this.forget(event.session);
    });
  }

  /** The session's log for a remote ptyhub attaching (started now if it was not yet kept), at its full bound. */
  of(session: Session): ReplayLog {
    const log = this.logs.get(session.id)?.log ?? this.track(session);
    log.maxBytes = Math.max(log.maxBytes, REPLAY_LOG_BYTES);
    return log;
  }

  private track(session: Session): ReplayLog {
    this.forget(session.id);
    // The session registered its data sink before this event: bytes already parsed are not kept.
    const log = new ReplayLog(session.emulator.bytesIn, REPLAY_LOG_INITIAL_BYTES);
    const untap = session.tapOutput((data) => log.append(data));
    this.logs.set(session.id, { log, untap });
    return log;
  }

  private forget(id: string): void {
    const entry = this.logs.get(id);
    if (!entry) return;
    entry.untap();
    this.logs.delete(id);
  }
}
