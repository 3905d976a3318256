/**
 * Local PTY backend: Bun.spawn with its `terminal` option gives the program a real controlling
 * tty (ctrl+c interrupts, resize delivers SIGWINCH). The program is a session leader, so closing
 * ends its whole session: background jobs included (see process-tree.ts).
 */
import type { Subprocess } from "bun";
import { AppError } from "../errors.ts";
import { BackendSinks, type Backend, type CloseSignal, type ExitInfo, type TtyModes } from "./backend.ts";
import { foregroundCommands, signalNumber, terminateSession } from "./process-tree.ts";

/** After the program exits, how long to wait for the PTY's last bytes before reporting the exit. */
const DRAIN_AFTER_EXIT_MS = 50;

/** termios c_lflag bits, which differ between Linux and the BSDs (macOS). */
const LFLAG = process.platform === "linux" ? { ICANON: 0x2, ECHO: 0x8 } : { ICANON: 0x100, ECHO: 0x8 };


export interface LocalSpawnOptions {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
}

export class LocalBackend implements Backend {
  readonly kind = "local" as const;
  private readonly proc: Subprocess;
  private readonly sinks = new BackendSinks();
  private exitInfo: ExitInfo | null = null;
  private ptyClosed = false;
  private closing: Promise<ExitInfo> | null = null;

  constructor(opts: LocalSpawnOptions) {
    if (process.platform === "win32") {
      throw new AppError("SPAWN_FAILED", "local terminal sessions are not available on Windows yet", "Use an ssh session (term_open with ssh) from Windows, or run ptyhub under WSL.");
    }
    try {
      this.proc = Bun.spawn(opts.argv, {
        cwd: opts.cwd,
        env: opts.env,
        terminal: {
          cols: opts.cols,
          rows: opts.rows,
          data: (_term, data) => this.deliver(data),
          exit: () => {
            this.ptyClosed = true;
            this.maybeReportExit();
          },
        },
      });
    } catch (err) {
      throw new AppError("SPAWN_FAILED", `cannot start ${opts.argv[0]}: ${(err as Error).message}`, "Check that the program exists and is executable (term_open command/args).");
    }
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
    if (this.exitInfo) return;
    this.proc.terminal?.write(data);
  }

  resize(cols: number, rows: number): void {
    if (!this.exitInfo) this.proc.terminal?.resize(cols, rows);
  }

  ttyModes(): TtyModes | null {
    const term = this.proc.terminal;
    if (!term || term.closed || this.exitInfo) return null;
    const flags = term.localFlags;
    return { echo: (flags & LFLAG.ECHO) !== 0, canonical: (flags & LFLAG.ICANON) !== 0 };
  }

  foregroundCommands(): string[] {
    return this.exitInfo ? [] : foregroundCommands(this.proc.pid);
  }

  close(signal: CloseSignal = "HUP"): Promise<ExitInfo> {
    if (this.closing) return this.closing;
    this.closing = (async () => {
      // Even after the leader exited, jobs it left behind may remain in its session.
      await terminateSession(this.proc.pid, `SIG${signal}` as NodeJS.Signals);
      await this.proc.exited;
      try {
        this.proc.terminal?.close();
      } catch {
        // Already closed.
      }
      this.ptyClosed = true;
      this.maybeReportExit();
      return this.exitInfo!;
    })();
    return this.closing;
  }

  private deliver(data: Uint8Array): void {
    // Bun may reuse the buffer after the callback returns; sinks that keep data must copy.
    this.sinks.data(data);
  }

  /** The exit is final once the program exited and the PTY delivered its last bytes. */
  private maybeReportExit(): void {
    if (this.exitInfo && this.ptyClosed) this.sinks.exited(this.exitInfo);
  }
}
