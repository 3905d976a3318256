/**
 * A backend moves bytes between a session and something with a terminal on the other end: a
 * local PTY, an SSH channel, a serial line, a container's exec. It never parses output, keeps scrollback or detects
 * prompts: that happens once, above it, in the session.
 */

import type { TtyWait } from "../util/tty-wait.ts";

import type { BackendKind } from "../api/kinds.ts";

export interface ExitInfo {
  /** The program's exit status; 128+n when killed by signal n; null when unknown. */
  exitCode: number | null;
  signal: string | null;
  /** Why it ended, for humans: "exited", "killed by SIGHUP", "connection lost", … */
  reason: string;
}

/** tty local modes as the program set them (local PTYs only). */
export interface TtyModes {
  echo: boolean;
  canonical: boolean;
}

export interface Backend {
  readonly kind: BackendKind;
  /** Process id of the program (local), else null. */
  readonly pid: number | null;
  /** Registers the data sink; called once, before any data flows. */
  onData(sink: (data: Uint8Array) => void): void;
  /** Registers the exit sink: called exactly once, after the last data. */
  onExit(sink: (info: ExitInfo) => void): void;
  /** Writes bytes as they are: never adds a newline. */
  write(data: string | Uint8Array): void;
  /**
   * Sends the guard's verdict line to the shell on a private channel, not through the terminal
   * (local PTYs with a bash that asks, shell-scripts.ts): where the backend has no such channel,
   * the shell never asks.
   */
  sendVerdict?(line: string): void;
  resize(cols: number, rows: number): void;
  /** Ends the program (and everything it started). Idempotent; resolves when it is gone. */
  close(signal?: CloseSignal): Promise<ExitInfo>;
  ttyModes(): TtyModes | null;
  /** Names of the programs in the terminal's foreground process group, where visible (local). */
  foregroundCommands?(): string[];
  /**
   * Base names of the files the foreground processes execute (`/proc/PID/exe`, symlinks resolved),
   * where visible (Linux): a bash started through a symlink named `cat` is `bash` here.
   */
  foregroundExecutables?(): string[];
  /** The terminal's foreground process group (tcgetpgrp: no /proc read), where visible (local). */
  foregroundGroup?(): number | null;
  /** A process of the foreground group is working (on a CPU, or on disk), where visible (local). */
  foregroundBusy?(): boolean;
  /**
   * The kernel says the foreground group waits for keys: blocked reading (or polling only) this
   * terminal, none of it working; "read" without a time limit, "timed" with one (tty-wait.ts).
   * Absent where the processes are out of sight.
   */
  foregroundTtyWait?(): TtyWait;
  /**
   * Some program of the foreground group waits for the terminal among other things (ssh: its
   * socket and the terminal); false when the kernel says none does; null where it cannot say.
   */
  foregroundWatchesTty?(): boolean | null;
  /**
   * The foreground group's leader itself sleeps watching the terminal, none of its threads working,
   * with no typed input left for it and no output of it unread: a shell whose line editor waits
   * at its prompt (tty-wait.ts processWatchesTty). False when it does not; null where the kernel
   * cannot say.
   */
  foregroundLeaderWatchesTty?(): boolean | null;
  /**
   * Every byte the program wrote before this call has reached the session: none waits in the
   * kernel (on Linux a poll of the master first runs the tty's pending flip-buffer work) and none
   * in our reader. Asked from a task of its own (a timer, the next event-loop turn), not while
   * output is being delivered.
   * Absent, or false, where that cannot be told.
   */
  outputDrained?(): boolean;
  /**
   * The working directory of the foreground group's leader (the shell a typed line goes to), read
   * from the kernel rather than from marks a program could print; null where not visible.
   */
  foregroundCwd?(): string | null;
  /**
   * Lets go of the program without ending it, when it can outlive us (a remote persistent session
   * keeps running for a later resume). Used when the host shuts down; absent: close("HUP").
   */
  detach?(): Promise<ExitInfo>;
  /** Holds the line in the break condition (serial lines). */
  sendBreak?(): Promise<void>;
  /** "reconnecting" while a lost device is waited for (serial lines with reconnect), or a remote persistent session has
   * no link to its host. */
  connectionState?(): "reconnecting" | null;
  /** Registers a listener for changes of connectionState(), so waits on `state` wake up. */
  onConnectionChange?(listener: () => void): void;
}

export type CloseSignal = "TERM" | "KILL" | "HUP";

/**
 * The data/exit plumbing every backend shares: output that arrives before the session registers
 * its sink is kept (copied: the caller may reuse its buffer), and the exit is reported exactly
 * once, when the backend says it is final and a sink is there to hear it.
 */
export class BackendSinks {
  private dataSink: ((data: Uint8Array) => void) | null = null;
  private exitSink: ((info: ExitInfo) => void) | null = null;
  private pending: Uint8Array[] = [];
  private exitInfo: ExitInfo | null = null;
  private reported = false;

  onData(sink: (data: Uint8Array) => void): void {
    this.dataSink = sink;
    for (const chunk of this.pending) sink(chunk);
    this.pending = [];
  }

  onExit(sink: (info: ExitInfo) => void): void {
    this.exitSink = sink;
    this.report();
  }

  data(chunk: Uint8Array): void {
    if (this.dataSink) this.dataSink(chunk);
    else this.pending.push(chunk.slice());
  }

  /** The exit is final (its last data was delivered); the first call wins. */
  exited(info: ExitInfo): void {
    this.exitInfo ??= info;
    this.report();
  }

  private report(): void {
    if (this.reported || !this.exitInfo || !this.exitSink) return;
    this.reported = true;
    this.exitSink(this.exitInfo);
  }
}
