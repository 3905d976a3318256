/**
 * A container session on a plain exec TTY (`container.persist: false`, or where no ptyhub can be
 * placed inside): the exec's stream is the terminal; resize goes through the engine; the exit
 * code is the engine's record of the exec. An exec whose client went away keeps running and
 * cannot be re-attached, so close() ends the shell inside: a second exec hangs up the shell's
 * process group by the pid the exec announced (pid-announce.ts), then kills it if it lingers.
 */
import { logger } from "../../log.ts";
import { BackendSinks, type Backend, type CloseSignal, type ExitInfo, type TtyModes } from "../backend.ts";
import type { EngineClient, ExecState } from "./engine-client.ts";
import { runExec, settledExecState } from "./exec-run.ts";
import { PidAnnouncement } from "./pid-announce.ts";
import type { ExecStream } from "./exec-stream.ts";

const log = logger("container-exec");

/** How long close() waits for the hung-up shell's stream to end before killing its group. */
export const CLOSE_GRACE_MS = 2000;

/**
 * How a plain exec's shell is closed, in a container or a pod: `signal` to its process group from
 * inside; if its stream has not ended after CLOSE_GRACE_MS, KILL to the group and the stream cut.
 */
export async function closeExecShell(
  signal: CloseSignal,
  shell: { signalGroup(signal: CloseSignal): Promise<void>; exited: Promise<ExitInfo>; cutStream(): void },
): Promise<ExitInfo> {
  await shell.signalGroup(signal);
  const lingered = await Promise.race([shell.exited.then(() => false), Bun.sleep(CLOSE_GRACE_MS).then(() => true)]);
  if (lingered) {
    await shell.signalGroup("KILL");
    shell.cutStream();
  }
  return shell.exited;
}
/** Exit codes above this are 128 + a signal's number. */
const SIGNAL_EXIT_BASE = 128;
/**
 * How long a container whose shell was killed may take to be recorded as stopped (docker kill or
 * stop): the engine records the exec's end first, the container's up to seconds later under load.
 */
const CONTAINER_SETTLE_MS = 3000;
/** Between looks at the container's state meanwhile: a quick answer, ~60 inspects at most. */
const CONTAINER_POLL_MS = 50;
/** Bound on the small exec that signals the shell from inside. */
const SIGNAL_EXEC_MS = 10_000;

/**
 * Signals ($1) the process group led by pid $0: the shell and every job; the pid alone where the
 * group is gone. Builtins only (kill is one in every POSIX sh).
 */
export const SIGNAL_GROUP = 'kill -s "$1" -- "-$0" 2>/dev/null || kill -s "$1" "$0" 2>/dev/null; exit 0';

export interface ExecBackendOptions {
  engine: EngineClient;
  containerId: string;
  containerName: string;
  execId: string;
  stream: ExecStream;
  user?: string;
}

export class ContainerExecBackend implements Backend {
  readonly kind = "container" as const;
  readonly pid = null;
  private readonly sinks = new BackendSinks();
  private readonly announcement = new PidAnnouncement();
  /** Resizes and the writes after them, in the order they were asked for. */
  private pending: Promise<void> = Promise.resolve();
  private inOrder = 0;
  private exitInfo: ExitInfo | null = null;
  private closing: Promise<ExitInfo> | null = null;
  private closedByUs = false;
  private readonly exited: Promise<ExitInfo>;
  private resolveExited!: (info: ExitInfo) => void;

  constructor(private readonly o: ExecBackendOptions) {
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    o.stream.onData((bytes) => {
      const output = this.announcement.take(bytes);
      if (output.length > 0) this.sinks.data(output);
    });
    o.stream.onClose(() => void this.streamEnded());
  }

  onData(sink: (data: Uint8Array) => void): void {
    this.sinks.onData(sink);
  }

  onExit(sink: (info: ExitInfo) => void): void {
    this.sinks.onExit(sink);
  }

  write(data: string | Uint8Array): void {
    if (this.exitInfo) return;
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data.slice();
    if (this.inOrder === 0) this.o.stream.write(bytes);
    else this.afterPending(async () => this.o.stream.write(bytes));
  }

  /**
   * The size travels by its own API call, the keys by the stream: keys typed after a resize wait
   * until the engine has applied it, so `stty size` right after term_resize sees the new size.
   */
  resize(cols: number, rows: number): void {
    if (this.exitInfo) return;
    this.afterPending(() =>
      this.o.engine.resizeExec(this.o.execId, cols, rows).catch((err: Error) => log.debug(`resize: ${err.message}`)),
    );
  }

  /** Runs `step` after every resize and write queued before it. */
  private afterPending(step: () => Promise<void>): void {
    this.inOrder++;
    this.pending = this.pending.then(step).finally(() => this.inOrder--);
  }

  ttyModes(): TtyModes | null {
    return null;
  }

  close(signal: CloseSignal = "HUP"): Promise<ExitInfo> {
    if (this.closing) return this.closing;
    this.closing = (async () => {
      if (this.exitInfo) return this.exitInfo;
      this.closedByUs = true;
      const signalGroup = (s: CloseSignal) => this.signalGroup(s);
      return closeExecShell(signal, { signalGroup, exited: this.exited, cutStream: () => this.o.stream.close() });
    })();
    return this.closing;
  }

  /** Sends `signal` to the shell's group from inside the container. */
  private async signalGroup(signal: CloseSignal): Promise<void> {
    const pid = this.announcement.pid;
    if (pid === null) {
      // Never announced (the exec failed at once): nothing inside to signal, only the stream to drop.
      this.o.stream.close();
      return;
    }
    const argv = ["/bin/sh", "-c", SIGNAL_GROUP, String(pid), signal];
    try {
      await runExec(this.o.engine, this.o.containerId, argv, { user: this.o.user, timeoutMs: SIGNAL_EXEC_MS });
    } catch (err) {
      log.debug(`signalling the shell (pid ${pid}) in ${this.o.containerName}: ${(err as Error).message}`);
    }
  }

  /**
   * Whether the container stopped. A shell killed by a signal may be the container's stop seen
   * first: the engine records its exec's end before the container's, so then it is asked again
   * for a moment.
   */
  private async containerStopped(killed: boolean): Promise<boolean> {
    const deadline = Date.now() + (killed ? CONTAINER_SETTLE_MS : 0);
    for (;;) {
      const info = await this.o.engine.inspect(this.o.containerId);
      if (!info?.running) return true;
      if (Date.now() >= deadline) return false;
      await Bun.sleep(CONTAINER_POLL_MS);
    }
  }

  /** The stream ended: the shell exited, was closed, or the container stopped. Work out which, once. */
  private async streamEnded(): Promise<void> {
    if (this.exitInfo) return;
    const held = this.announcement.rest();
    if (held.length > 0) this.sinks.data(held);
    const info = await this.whyEnded();
    this.exitInfo = info;
    this.sinks.exited(info);
    this.resolveExited(info);
  }

  private async whyEnded(): Promise<ExitInfo> {
    const ended = (exitCode: number | null, reason: string): ExitInfo => ({ exitCode, signal: null, reason });
    const name = this.o.containerName;
    let state: ExecState;
    try {
      state = await settledExecState(this.o.engine, this.o.execId);
    } catch (err) {
      // The exec's record went with its container, or the engine itself is gone.
      const info = await this.o.engine.inspect(this.o.containerId).catch(() => undefined);
      if (info === undefined) return ended(null, `the container engine stopped answering: ${(err as Error).message}`);
      return ended(null, `the container ${name} stopped`);
    }
    if (state.running && !this.closedByUs) {
      // Our connection dropped, not the shell: an exec cannot be re-attached, so end it rather than leave it.
      await this.signalGroup("HUP");
      return ended(
        null,
        "the engine connection dropped; an exec cannot be re-attached, so its shell was ended " +
          "(container.persist keeps sessions across dropped connections)",
      );
    }
    const code = state.exitCode;
    if (await this.containerStopped(code === null || code > SIGNAL_EXIT_BASE)) {
      return ended(code, `the container ${name} stopped`);
    }
    if (this.closedByUs) return ended(code, "closed (the shell in the container ended)");
    return ended(code, `exited with code ${code}`);
  }
}
