/**
 * Local terminals on Windows: a pseudo console (ConPTY) opened through bun:ffi, behind the same
 * Backend interface as the POSIX PTY.
 *
 *   CreatePipe ×2 → CreatePseudoConsole(size, input read end, output write end)
 *   → an attribute list holding the pseudo console → CreateProcessW (suspended)
 *   → the process joins a job object (kill-on-close: closing ends its whole tree) → resumed.
 *
 * Reads never block the event loop: the output pipe is asked how much it holds (PeekNamedPipe)
 * and only that is read, on a timer that runs fast while output flows and slows down when idle.
 * The same tick notices the exit (GetExitCodeProcess); the pseudo console is then closed, which
 * ends the output pipe once its last bytes are read. Writes go out in order, synchronously.
 */
import { AppError } from "../../../api/errors.ts";
import { BackendSinks, type Backend, type CloseSignal, type ExitInfo, type TtyModes } from "../../backend.ts";
import { environmentBlock, windowsCommandLine } from "./command-line.ts";
import {
  CREATE_SUSPENDED,
  CREATE_UNICODE_ENVIRONMENT,
  ERROR_BROKEN_PIPE,
  EXTENDED_STARTUPINFO_PRESENT,
  JOB_EXTENDED_LIMIT_SIZE,
  JOB_LIMIT_FLAGS_OFFSET,
  JOB_OBJECT_EXTENDED_LIMIT_INFORMATION_CLASS,
  JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
  PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE,
  PROCESS_INFORMATION_SIZE,
  STARTF_USESTDHANDLES,
  STARTUPINFO_FLAGS_OFFSET,
  STARTUPINFOEX_ATTRIBUTES_OFFSET,
  STARTUPINFOEX_SIZE,
  STILL_ACTIVE,
  coord,
  kernel32,
  pointerOf,
  wide,
  type Kernel32,
} from "../../../util/kernel32.ts";

/** Poll interval while output flows, and the idle ceiling it backs off to. */
const POLL_ACTIVE_MS = 4;
const POLL_IDLE_MAX_MS = 50;
/** The most read in one tick before yielding to the event loop. */
const READ_SLICE_BYTES = 64 * 1024;
/** The exit code a closed session's processes are ended with (TerminateJobObject). */
const CLOSED_EXIT_CODE = 1;

const SPAWN_HINT = "Check that the program exists (term_open command/args); on Windows, give its full path or name.";

/**
 * PTYHUB_CONPTY_LAUNCHER: a program put before every command started on a pseudo console. For
 * Wine 8.0, which leaves a child's std handles on the parent's instead of on the pseudo console:
 * its tests run commands through a launcher that reopens CONIN$/CONOUT$ (test/ship/wine/stdfix.c).
 * Real Windows needs none.
 */
export const CONPTY_LAUNCHER_ENV = "PTYHUB_CONPTY_LAUNCHER";

function launcherWords(): string[] {
  const launcher = process.env[CONPTY_LAUNCHER_ENV];
  return launcher ? [launcher] : [];
}

export interface ConptySpawnOptions {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
}

function fail(k: Kernel32, what: string): AppError {
  return new AppError("SPAWN_FAILED", `${what} failed (Windows error ${k.GetLastError()})`, SPAWN_HINT);
}

export class ConptyBackend implements Backend {
  readonly kind = "local" as const;
  readonly pid: number;
  private readonly k = kernel32();
  private readonly sinks = new BackendSinks();
  private readonly console: bigint;
  private readonly input: bigint;
  private readonly output: bigint;
  private readonly process: bigint;
  private readonly job: bigint;
  private readonly readBuffer = new Uint8Array(READ_SLICE_BYTES);
  private readonly count = new Uint32Array(1);
  private timer: ReturnType<typeof setTimeout> | null = null;
  private pollMs = POLL_ACTIVE_MS;
  private exitInfo: ExitInfo | null = null;
  private consoleClosed = false;
  private finished = false;
  private closing: Promise<ExitInfo> | null = null;
  private exitWaiters: ((info: ExitInfo) => void)[] = [];

  constructor(opts: ConptySpawnOptions) {
    const k = this.k;
    const handles = new BigUint64Array(2);
    if (!k.CreatePipe(pointerOf(handles.subarray(0, 1)), pointerOf(handles.subarray(1, 2)), null, 0))
      throw fail(k, "CreatePipe (input)");
    const [inputRead, inputWrite] = [handles[0]!, handles[1]!];
    if (!k.CreatePipe(pointerOf(handles.subarray(0, 1)), pointerOf(handles.subarray(1, 2)), null, 0))
      throw fail(k, "CreatePipe (output)");
    const [outputRead, outputWrite] = [handles[0]!, handles[1]!];
    const hpc = new BigUint64Array(1);
    const hr = k.CreatePseudoConsole(coord(opts.cols, opts.rows), inputRead, outputWrite, 0, pointerOf(hpc));
    // The pseudo console holds its own ends of the pipes now.
    k.CloseHandle(inputRead);
    k.CloseHandle(outputWrite);
    if (hr !== 0) {
      k.CloseHandle(inputWrite);
      k.CloseHandle(outputRead);
      throw new AppError(
        "SPAWN_FAILED",
        `CreatePseudoConsole failed (HRESULT 0x${(hr >>> 0).toString(16)})`,
        SPAWN_HINT,
      );
    }
    this.console = hpc[0]!;
    this.input = inputWrite;
    this.output = outputRead;
    try {
      const started = this.start(opts);
      this.process = started.process;
      this.pid = started.pid;
      this.job = started.job;
    } catch (err) {
      k.ClosePseudoConsole(this.console);
      k.CloseHandle(this.input);
      k.CloseHandle(this.output);
      throw err;
    }
    this.schedule(0);
  }

  /** CreateProcessW on the pseudo console, suspended until it is in the job. */
  private start(opts: ConptySpawnOptions): { process: bigint; pid: number; job: bigint } {
    const k = this.k;
    const size = new BigUint64Array(1);
    k.InitializeProcThreadAttributeList(null, 1, 0, pointerOf(size));
    const attributes = new Uint8Array(Number(size[0]));
    if (!k.InitializeProcThreadAttributeList(pointerOf(attributes), 1, 0, pointerOf(size)))
      throw fail(k, "InitializeProcThreadAttributeList");
    try {
      // The attribute's value is the HPCON itself (not a pointer to it), sizeof(HPCON) bytes.
      if (
        !k.UpdateProcThreadAttribute(
          pointerOf(attributes),
          0,
          PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE,
          this.console,
          8n,
          null,
          null,
        )
      )
        throw fail(k, "UpdateProcThreadAttribute");
      const startup = new Uint8Array(STARTUPINFOEX_SIZE);
      const view = new DataView(startup.buffer);
      view.setUint32(0, STARTUPINFOEX_SIZE, true);
      // Null std handles, used: otherwise a child inherits ours (the MCP server's stdio pipes)
      // and writes there instead of to the pseudo console.
      view.setUint32(STARTUPINFO_FLAGS_OFFSET, STARTF_USESTDHANDLES, true);
      view.setBigUint64(STARTUPINFOEX_ATTRIBUTES_OFFSET, BigInt(pointerOf(attributes)), true);
      const info = new Uint8Array(PROCESS_INFORMATION_SIZE);
      const commandLine = wide(windowsCommandLine([...launcherWords(), ...opts.argv]));
      const flags = EXTENDED_STARTUPINFO_PRESENT | CREATE_UNICODE_ENVIRONMENT | CREATE_SUSPENDED;
      const env = environmentBlock(opts.env);
      const ok = k.CreateProcessW(
        null,
        pointerOf(commandLine),
        null,
        null,
        0,
        flags,
        pointerOf(env),
        pointerOf(wide(opts.cwd)),
        pointerOf(startup),
        pointerOf(info),
      );
      if (!ok)
        throw new AppError(
          "SPAWN_FAILED",
          `cannot start ${opts.argv[0]} (Windows error ${k.GetLastError()})`,
          SPAWN_HINT,
        );
      const infoView = new DataView(info.buffer);
      const process = infoView.getBigUint64(0, true);
      const thread = infoView.getBigUint64(8, true);
      const pid = infoView.getUint32(16, true);
      const job = this.jobFor(process);
      k.ResumeThread(thread);
      k.CloseHandle(thread);
      return { process, pid, job };
    } finally {
      k.DeleteProcThreadAttributeList(pointerOf(attributes));
    }
  }

  /** A job that ends every process in it when closed or terminated: the program's whole tree. */
  private jobFor(process: bigint): bigint {
    const k = this.k;
    const job = k.CreateJobObjectW(null, null);
    if (job === 0n) return 0n;
    const limits = new Uint8Array(JOB_EXTENDED_LIMIT_SIZE);
    new DataView(limits.buffer).setUint32(JOB_LIMIT_FLAGS_OFFSET, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, true);
    k.SetInformationJobObject(job, JOB_OBJECT_EXTENDED_LIMIT_INFORMATION_CLASS, pointerOf(limits), limits.length);
    k.AssignProcessToJobObject(job, process);
    return job;
  }

  onData(sink: (data: Uint8Array) => void): void {
    this.sinks.onData(sink);
  }

  onExit(sink: (info: ExitInfo) => void): void {
    this.sinks.onExit(sink);
  }

  write(data: string | Uint8Array): void {
    if (this.exitInfo || this.consoleClosed) return;
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    let offset = 0;
    while (offset < bytes.length) {
      const chunk = bytes.subarray(offset);
      if (!this.k.WriteFile(this.input, pointerOf(chunk), chunk.length, pointerOf(this.count), null)) return;
      offset += this.count[0]!;
    }
    this.pollMs = POLL_ACTIVE_MS;
  }

  resize(cols: number, rows: number): void {
    if (!this.exitInfo && !this.consoleClosed) this.k.ResizePseudoConsole(this.console, coord(cols, rows));
  }

  ttyModes(): TtyModes | null {
    // A pseudo console has no termios to read; echo and line modes are the console host's.
    return null;
  }

  close(_signal: CloseSignal = "HUP"): Promise<ExitInfo> {
    this.closing ??= new Promise<ExitInfo>((resolve) => {
      if (this.finished) return resolve(this.exitInfo!);
      this.exitWaiters.push(resolve);
      // Windows has no signals to choose from: the job ends the program and all it started.
      if (this.job !== 0n) this.k.TerminateJobObject(this.job, CLOSED_EXIT_CODE);
      else this.k.TerminateProcess(this.process, CLOSED_EXIT_CODE);
      this.schedule(0);
    });
    return this.closing;
  }

  private schedule(ms: number): void {
    if (this.timer || this.finished) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.tick();
    }, ms);
  }

  private tick(): void {
    const got = this.drain();
    if (!this.exitInfo) this.checkExit();
    if (got === "ended") return this.finish();
    this.pollMs = got === "data" ? POLL_ACTIVE_MS : Math.min(this.pollMs * 2, POLL_IDLE_MAX_MS);
    this.schedule(got === "data" ? 0 : this.pollMs);
  }

  /** Reads what the output pipe holds, never more: ReadFile on an empty pipe would block. */
  private drain(): "data" | "idle" | "ended" {
    const k = this.k;
    const available = new Uint32Array(1);
    if (!k.PeekNamedPipe(this.output, null, 0, null, pointerOf(available), null)) {
      return k.GetLastError() === ERROR_BROKEN_PIPE || this.consoleClosed ? "ended" : "idle";
    }
    if (available[0] === 0) return "idle";
    const want = Math.min(available[0]!, this.readBuffer.length);
    if (!k.ReadFile(this.output, pointerOf(this.readBuffer), want, pointerOf(this.count), null)) return "ended";
    const n = this.count[0]!;
    if (n > 0) this.sinks.data(this.readBuffer.slice(0, n));
    return "data";
  }

  /** Once the program has exited, closing the pseudo console ends the output pipe after its last bytes. */
  private checkExit(): void {
    const code = new Uint32Array(1);
    if (!this.k.GetExitCodeProcess(this.process, pointerOf(code)) || code[0] === STILL_ACTIVE) return;
    const exitCode = code[0]!;
    this.exitInfo = { exitCode, signal: null, reason: `exited with code ${exitCode}` };
    if (!this.consoleClosed) {
      this.consoleClosed = true;
      this.k.ClosePseudoConsole(this.console);
    }
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    const k = this.k;
    k.CloseHandle(this.output);
    k.CloseHandle(this.input);
    k.CloseHandle(this.process);
    if (this.job !== 0n) k.CloseHandle(this.job);
    const info = this.exitInfo ?? { exitCode: null, signal: null, reason: "the pseudo console closed" };
    this.exitInfo = info;
    this.sinks.exited(info);
    for (const resolve of this.exitWaiters.splice(0)) resolve(info);
  }
}
