/**
 * Local PTY backend, on a PTY we own: we open the master (src/backend/local/pty/open.ts), the program
 * gets the slave as its controlling terminal (pty/launcher.ts), and we read the master in bounded
 * slices that yield to the event loop (pty/reader.ts) and write it in merged, ordered writes
 * (pty/writer.ts). So a session that floods never slows the others, and a program that prints
 * faster than we parse is paused by the kernel rather than buffered in memory. The program is a
 * session leader, so closing ends its whole session: background jobs included (process-tree.ts).
 * POSIX only: Windows sessions run on a pseudo console (conpty/backend.ts).
 */
import type { Subprocess } from "bun";
import { accessSync, closeSync, constants as fsc, readlinkSync, writeSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { AppError } from "../../api/errors.ts";
import { BackendSinks, type Backend, type CloseSignal, type ExitInfo, type TtyModes } from "../backend.ts";
import {
  groupBusy,
  groupCommands,
  groupExecutables,
  groupLeader,
  signalNumber,
  terminateSession,
} from "../../util/process-tree.ts";
import { groupTtyWait, groupWatchesTty, processWatchesTty, type TtyWait } from "../../util/tty-wait.ts";
import { openPty, pendingInput, pendingOutput, readLocalModes, setWindowSize, type PtyPair } from "./pty/open.ts";
import { controllingTtyArgv, type CttyLauncher } from "./pty/launcher.ts";
import { PtyReader } from "./pty/reader.ts";
import { PtyWriter } from "./pty/writer.ts";
import { libc } from "./pty/libc.ts";
import { NONCE_FD, VERDICT_CHANNEL_LINE } from "../../terminal/shell-scripts.ts";
import { TOKEN_FDS, VerdictChannel, verdictChannelSupported } from "./verdict-channel.ts";

/**
 * After the program exits, how long to wait for the PTY's last bytes before reporting the exit
 * (a background job may keep the slave open, so the master's end of file may never come).
 */
const DRAIN_AFTER_EXIT_MS = 50;

const SPAWN_HINT = "Check that the program exists and is executable (term_open command/args).";

export interface LocalSpawnOptions {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  /** How the child gets its controlling terminal; default: `setsid --ctty` where available. */
  cttyLauncher?: CttyLauncher;
  /** Written to the child's NONCE_FD, then closed: the shell-integration nonce (shell-scripts.ts). */
  nonceInput?: string;
  /**
   * Keep NONCE_FD open after the nonce, as the private channel for the guard's verdicts on the
   * commands the shell is about to run (VERDICT_CHANNEL_LINE tells the shell so).
   */
  verdictChannel?: boolean;
}

/** The program's path as exec would find it, or null: checked up front for a clear SPAWN_FAILED. */
function findExecutable(program: string, cwd: string, path: string): string | null {
  if (program.includes("/")) {
    const full = isAbsolute(program) ? program : resolve(cwd, program);
    try {
      accessSync(full, fsc.X_OK);
      return full;
    } catch {
      return null;
    }
  }
  return Bun.which(program, { PATH: path, cwd });
}

/**
 * Writes `text` to the child's NONCE_FD (a few bytes: the socket never blocks), then closes our end,
 * or keeps it and returns it when it is to carry the guard's verdicts.
 */
function handOver(proc: Subprocess, text: string, keep: boolean): number | null {
  const fd = proc.stdio[NONCE_FD];
  if (typeof fd !== "number") throw new Error(`no descriptor ${NONCE_FD} for the shell's nonce`);
  try {
    writeSync(fd, keep ? `${text}${VERDICT_CHANNEL_LINE}\n` : text);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  if (keep) return fd;
  closeSync(fd);
  return null;
}

export class LocalBackend implements Backend {
  readonly kind = "local" as const;
  private readonly proc: Subprocess;
  private readonly pty: PtyPair;
  private readonly reader: PtyReader;
  private readonly writer: PtyWriter;
  private readonly sinks = new BackendSinks();
  private exitInfo: ExitInfo | null = null;
  private ptyClosed = false;
  private masterClosed = false;
  private closing: Promise<ExitInfo> | null = null;
  /** The private channel the shell reads the guard's verdicts from (verdictChannel), or null. */
  private verdicts: VerdictChannel | null = null;

  constructor(opts: LocalSpawnOptions) {
    const program = opts.argv[0] ?? "";
    if (!findExecutable(program, opts.cwd, opts.env.PATH ?? "")) {
      throw new AppError("SPAWN_FAILED", `cannot start ${program}: not found or not executable`, SPAWN_HINT);
    }
    this.pty = openPty(opts.cols, opts.rows);
    const keepChannel = opts.nonceInput !== undefined && opts.verdictChannel === true && verdictChannelSupported();
    let turn: [number, number] | null = null;
    try {
      if (keepChannel) turn = VerdictChannel.turnPipe();
      const tty = [this.pty.slave, this.pty.slave, this.pty.slave] as const;
      // NONCE_FD is the fourth entry: a socket pair Bun makes, of which we write our end (and close
      // it, unless it carries the verdicts). A socket, unlike a pipe or file, cannot be reopened
      // through /proc/PID/fd by another process. The turn pipe follows at TOKEN_FDS.
      const extra = opts.nonceInput === undefined ? [] : turn ? (["pipe", ...turn] as const) : (["pipe"] as const);
      if (turn && TOKEN_FDS[0] !== NONCE_FD + 1) throw new Error("the turn pipe must follow NONCE_FD");
      this.proc = Bun.spawn(controllingTtyArgv(opts.argv, opts.cttyLauncher), {
        cwd: opts.cwd,
        env: opts.env,
        stdio: [...tty, ...extra],
      });
      if (opts.nonceInput !== undefined) {
        try {
          const answers = handOver(this.proc, opts.nonceInput, turn !== null);
          if (answers !== null && turn) this.verdicts = VerdictChannel.open(answers, turn);
        } catch (err) {
          this.proc.kill("SIGKILL"); // A shell without its nonce would never report a command done.
          throw err;
        }
      }
    } catch (err) {
      closeSync(this.pty.master);
      if (turn && !this.verdicts) for (const fd of turn) closeSync(fd);
      throw new AppError("SPAWN_FAILED", `cannot start ${program}: ${(err as Error).message}`, SPAWN_HINT);
    } finally {
      // The child has its copies; ours would keep the slave open and hide the master's end of file.
      closeSync(this.pty.slave);
    }
    this.writer = new PtyWriter(this.pty.master);
    this.reader = new PtyReader(this.pty.master, (data) => this.sinks.data(data));
    this.reader.ended.then(() => {
      this.ptyClosed = true;
      this.maybeReportExit();
    });
    this.proc.exited.then(() => {
      const signal = this.proc.signalCode ? String(this.proc.signalCode) : null;
      const exitCode = signal ? 128 + (signalNumber(signal) ?? 0) : (this.proc.exitCode ?? null);
      this.exitInfo = { exitCode, signal, reason: signal ? `killed by ${signal}` : `exited with code ${exitCode}` };
      // Output may still be in flight from the PTY; give it a moment, unless the PTY already closed.
      setTimeout(() => {
        this.ptyClosed = true;
        this.maybeReportExit();
      }, DRAIN_AFTER_EXIT_MS);
      this.maybeReportExit();
    });
  }

  get pid(): number {
    return this.proc.pid;
  }

  onData(sink: (data: Uint8Array) => void): void {
    this.sinks.onData(sink);
  }

  onExit(sink: (info: ExitInfo) => void): void {
    this.sinks.onExit(sink);
  }

  write(data: string | Uint8Array): void {
    if (!this.exitInfo && !this.masterClosed) this.writer.write(data);
  }

  sendVerdict(line: string): void {
    this.verdicts?.send(line);
  }

  resize(cols: number, rows: number): void {
    if (!this.exitInfo && !this.masterClosed) setWindowSize(this.pty.master, cols, rows);
  }

  ttyModes(): TtyModes | null {
    if (this.exitInfo || this.masterClosed) return null;
    return readLocalModes(this.pty.slavePath);
  }

  outputDrained(): boolean {
    if (process.platform !== "linux" || this.exitInfo || this.masterClosed) return false;
    return this.reader.idle && !libc.readableNow(this.pty.master);
  }

  foregroundGroup(): number | null {
    if (this.exitInfo || this.masterClosed) return null;
    return libc.tcgetpgrp(this.pty.master);
  }

  foregroundBusy(): boolean {
    if (this.exitInfo || this.masterClosed) return false;
    // Output it wrote before going idle, not read yet: the process is ahead of the screen, and
    // its prompt may be in there (a REPL on a loaded machine).
    if (pendingOutput(this.pty.master) > 0) return true;
    const pgrp = this.foregroundGroup();
    return pgrp !== null && groupBusy(this.proc.pid, pgrp);
  }

  foregroundTtyWait(): TtyWait {
    const pgrp = this.foregroundGroup();
    if (pgrp === null) return null;
    // Keys not yet written or not yet read: it has input and will wake up.
    if (this.writer.pendingBytes > 0 || pendingInput(this.pty.slavePath) !== 0) return null;
    // Output it wrote before blocking may still wait in the master: it has not been seen yet.
    if (pendingOutput(this.pty.master) !== 0) return null;
    return groupTtyWait(this.proc.pid, pgrp, this.pty.slavePath);
  }

  foregroundWatchesTty(): boolean | null {
    const pgrp = this.foregroundGroup();
    return pgrp === null ? null : groupWatchesTty(this.proc.pid, pgrp, this.pty.slavePath);
  }

  foregroundLeaderWatchesTty(): boolean | null {
    const pgrp = this.foregroundGroup();
    if (pgrp === null) return false;
    // Keys it has not read yet wake it; output it wrote and we have not read is not seen yet.
    // (-1, not known, where the slave cannot be opened: the leader's own state decides then.)
    if (this.writer.pendingBytes > 0 || pendingInput(this.pty.slavePath) > 0) return false;
    if (pendingOutput(this.pty.master) > 0) return false;
    return processWatchesTty(pgrp, this.pty.slavePath);
  }

  foregroundCommands(): string[] {
    if (this.exitInfo || this.masterClosed) return [];
    const pgrp = this.foregroundGroup();
    return pgrp === null ? [] : groupCommands(this.proc.pid, pgrp);
  }

  foregroundExecutables(): string[] {
    if (this.exitInfo || this.masterClosed) return [];
    const pgrp = this.foregroundGroup();
    return pgrp === null ? [] : groupExecutables(this.proc.pid, pgrp);
  }

  foregroundCwd(): string | null {
    if (this.exitInfo || this.masterClosed || process.platform !== "linux") return null;
    const pgrp = this.foregroundGroup();
    const leader = pgrp === null ? null : groupLeader(this.proc.pid, pgrp);
    try {
      return readlinkSync(`/proc/${leader?.pid ?? this.proc.pid}/cwd`);
    } catch {
      return null; // Gone in the meantime, or not ours to read.
    }
  }

  close(signal: CloseSignal = "HUP"): Promise<ExitInfo> {
    if (this.closing) return this.closing;
    this.closing = (async () => {
      // Even after the leader exited, jobs it left behind may remain in its session. The first
      // signal goes out synchronously; then the master closes, and the kernel hangs up the tty.
      const terminated = terminateSession(this.proc.pid, `SIG${signal}` as NodeJS.Signals);
      this.closeMaster();
      await terminated;
      await this.proc.exited;
      this.ptyClosed = true;
      this.maybeReportExit();
      return this.exitInfo!;
    })();
    return this.closing;
  }

  /** Stops reading and writing and releases our master descriptor (once). */
  private closeMaster(): void {
    if (this.masterClosed) return;
    this.masterClosed = true;
    this.reader.cancel();
    this.writer.close();
    closeSync(this.pty.master);
    this.verdicts?.close();
  }

  /** The exit is final once the program exited and the PTY delivered its last bytes. */
  private maybeReportExit(): void {
    if (!this.exitInfo || !this.ptyClosed) return;
    this.sinks.exited(this.exitInfo);
    // Nobody reads or writes an exited session's terminal: let the pty go.
    this.closeMaster();
  }
}
