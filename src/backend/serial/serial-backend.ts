/**
 * Serial backend: a session's bytes over a serial line (a board's console, a router's console
 * port, a modem). The port is a @serialport/bindings-interface port: our bun:ffi binding
 * (src/backend/serial/port.ts) in production, @serialport/binding-mock in fast tests. SerialPortStream
 * is not used: it is a Node stream layer (buffering, backpressure, events) over the same port
 * methods, and a backend only needs the port's read/write loop, so it would add a third buffer
 * and a second event system without doing anything this file does not.
 *
 * - Enter: the session types CR; `newline` maps it on the way out as picocom's --omap does
 *   (`lf`: CR → LF, `crlf`: CR → CR LF), so every layer above stays the same.
 * - Writes of one event-loop turn go out as one write, in order: text then ctrl+c can never be
 *   reordered (see the notes on lost ctrl+c).
 * - A device that goes away (USB unplugged, the far end hung up) ends the session with the
 *   reason, or with `reconnect` is waited for (directory watch, plus a slow retry for file
 *   systems without notifications) and reopened with the same settings; meanwhile the session's
 *   state says "reconnecting".
 */
import { watch, type FSWatcher } from "node:fs";
import { dirname } from "node:path";
import { BackendSinks, type Backend, type CloseSignal, type ExitInfo, type TtyModes } from "../backend.ts";
import { AppError } from "../../api/errors.ts";
import { logger } from "../../log.ts";
import { FfiBinding, optionsFromLine, type LineBinding, type LinePort, type ModemLines } from "./port.ts";
import { describeLine, type LineSettings, type SerialSpec } from "./settings.ts";

export type { SerialSpec } from "./settings.ts";

const log = logger("serial");

/** Largest read per call: a 4 MBd line delivers ~400 KB/s, so this is ~150 ms of data. */
const READ_CHUNK_BYTES = 64 * 1024;
/** While waiting for a device to come back, also retry this often (for missed notifications). */
const RECONNECT_RETRY_MS = 1000;
/** Longest break term_serial sends (a break is 0.25–0.5 s by convention; SysRq needs ~0.5 s). */
export const MAX_BREAK_MS = 5000;
/** The break `keys: ["break"]` sends: what tcsendbreak(fd, 0) sends on Linux. */
export const DEFAULT_BREAK_MS = 250;

/** The line as term_serial reports it. */
export interface LineStatus {
  baud: number;
  data_bits: number;
  parity: string;
  stop_bits: number;
  flow: string;
  dtr: boolean | null;
  rts: boolean | null;
  cts: boolean | null;
  dsr: boolean | null;
  dcd: boolean | null;
  ri: boolean | null;
}

export interface LineControl {
  settings?: LineSettings;
  dtr?: boolean;
  rts?: boolean;
  /** With dtr/rts: hold them so for this long, then set them back (a board's reset pulse). */
  pulseMs?: number;
  breakMs?: number;
}

const CR = 0x0d;

/** CR → the line's newline, picocom's --omap (crlf: "map CR to CR LF"; lf: "map CR to LF"). */
export function mapNewlines(data: Uint8Array, newline: SerialSpec["newline"]): Uint8Array {
  if (newline === "cr" || !data.includes(CR)) return data;
  const out: number[] = [];
  for (const b of data) {
    if (b !== CR) out.push(b);
    else if (newline === "lf") out.push(0x0a);
    else out.push(CR, 0x0a);
  }
  return Uint8Array.from(out);
}

export class SerialBackend implements Backend {
  readonly kind = "serial" as const;
  readonly pid = null;
  private readonly sinks = new BackendSinks();
  private port: LinePort | null;
  private settings: LineSettings;
  private lines = { dtr: true, rts: true };
  private queued: Uint8Array[] = [];
  private flushScheduled = false;
  private flushing: Promise<void> | null = null;
  private closing: Promise<ExitInfo> | null = null;
  private exitInfo: ExitInfo | null = null;
  private reconnecting = false;
  /** How many times the line was reopened after the device came back. */
  generation = 0;
  private stopWaiting: (() => void) | null = null;
  private connectionListener: (() => void) | null = null;
  private readonly exited: Promise<ExitInfo>;
  private resolveExited!: (info: ExitInfo) => void;

  constructor(
    readonly spec: SerialSpec,
    port: LinePort,
    private readonly binding: LineBinding,
  ) {
    this.port = port;
    const { baud, dataBits, parity, stopBits, flow } = spec;
    this.settings = { baud, dataBits, parity, stopBits, flow };
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    void this.pump(port);
  }

  get baud(): number {
    return this.settings.baud;
  }

  /** `/dev/ttyUSB0@115200`: the session's target. */
  get target(): string {
    return `${this.spec.path}@${this.settings.baud}`;
  }

  /** "reconnecting" while an unplugged device is waited for, else null. */
  connectionState(): "reconnecting" | null {
    return this.reconnecting && !this.exitInfo ? "reconnecting" : null;
  }

  onConnectionChange(listener: () => void): void {
    this.connectionListener = listener;
  }

  onData(sink: (data: Uint8Array) => void): void {
    this.sinks.onData(sink);
  }

  onExit(sink: (info: ExitInfo) => void): void {
    this.sinks.onExit(sink);
  }

  write(data: string | Uint8Array): void {
    if (this.exitInfo || this.closing) return;
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data.slice();
    this.queued.push(mapNewlines(bytes, this.spec.newline));
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  /** A serial line has no window size to tell the far end. */
  resize(_cols: number, _rows: number): void {}

  ttyModes(): TtyModes | null {
    return null;
  }

  /** Changes settings, sets or pulses DTR/RTS, sends a break; answers the line's status. */
  async control(req: LineControl): Promise<LineStatus> {
    const port = this.livePort();
    if (req.settings) {
      const s = req.settings;
      if (!port.reconfigure && describeLine(s) !== describeLine(this.settings)) {
        const hint = "Close and reopen the session with the new settings.";
        throw new AppError("INVALID_ARGUMENT", "this port can only change its baud rate while open", hint);
      }
      // What was typed before the change goes out at the old settings, as the device expects it.
      await this.flush();
      await port.drain();
      if (port.reconfigure) await port.reconfigure(s);
      else await port.update({ baudRate: s.baud });
      this.settings = s;
    }
    if (req.breakMs !== undefined && req.breakMs > 0) await this.sendBreak(req.breakMs);
    if (req.dtr !== undefined || req.rts !== undefined) {
      const want = { dtr: req.dtr ?? this.lines.dtr, rts: req.rts ?? this.lines.rts };
      await port.set({ ...want, brk: false });
      const before = this.lines;
      this.lines = want;
      if (req.pulseMs !== undefined && req.pulseMs > 0) {
        await Bun.sleep(req.pulseMs);
        const back = {
          dtr: req.dtr !== undefined ? !want.dtr : before.dtr,
          rts: req.rts !== undefined ? !want.rts : before.rts,
        };
        await this.livePort().set({ ...back, brk: false });
        this.lines = back;
      }
    }
    return this.status();
  }

  /** Holds the line in the break condition for `ms`, then releases it. */
  async sendBreak(ms: number = DEFAULT_BREAK_MS): Promise<void> {
    const port = this.livePort();
    // Data typed before the break goes out before it.
    await this.flush();
    await port.set({ ...this.lines, brk: true });
    try {
      await Bun.sleep(ms);
    } finally {
      if (port.isOpen) await port.set({ ...this.lines, brk: false });
    }
  }

  async status(): Promise<LineStatus> {
    const port = this.livePort();
    // Baud and stop bits as the driver kept them (a custom rate may be rounded); data bits, parity
    // and flow as asked: a pseudo-terminal, for one, reports cs8 and no parity whatever is set.
    const kept = port.lineSettings?.() ?? this.settings;
    const m: ModemLines | null = port.modemLines
      ? await port.modemLines()
      : { ...this.lines, ...(await port.get()), ri: false };
    return {
      baud: kept.baud,
      data_bits: this.settings.dataBits,
      parity: this.settings.parity,
      stop_bits: kept.stopBits,
      flow: this.settings.flow,
      dtr: m?.dtr ?? null,
      rts: m?.rts ?? null,
      cts: m?.cts ?? null,
      dsr: m?.dsr ?? null,
      dcd: m?.dcd ?? null,
      ri: m?.ri ?? null,
    };
  }

  /** The settings as asked (what the session reports and term_serial changes from). */
  lineSettings(): LineSettings {
    return { ...this.settings };
  }

  close(_signal?: CloseSignal): Promise<ExitInfo> {
    this.closing ??= (async () => {
      if (!this.exitInfo) {
        this.stopWaiting?.();
        const port = this.port;
        this.port = null;
        if (port?.isOpen) await port.close().catch((err: Error) => log.debug(`close: ${err.message}`));
        this.finish({ exitCode: null, signal: null, reason: "closed (line released by ptyhub)" });
      }
      return this.exited;
    })();
    return this.closing;
  }

  private livePort(): LinePort {
    const path = this.spec.path;
    if (this.exitInfo || this.closing) {
      const hint = "Open it again with term_open {serial: {path}}.";
      throw new AppError("SESSION_EXITED", `the serial line ${path} is closed`, hint);
    }
    if (!this.port) {
      const hint = "Plug the device back in; the session reopens it by itself (reconnect: true).";
      throw new AppError("SERIAL_OPEN_FAILED", `${path} is unplugged; waiting for it to come back`, hint, true);
    }
    return this.port;
  }

  /** Sends what is queued; resolves when it is with the OS (a running flush is waited for, not skipped). */
  private async flush(): Promise<void> {
    this.flushScheduled = false;
    while (this.flushing) await this.flushing;
    if (this.queued.length === 0 || !this.port) return;
    this.flushing = this.writeQueued(this.port);
    try {
      await this.flushing;
    } finally {
      this.flushing = null;
    }
  }

  private async writeQueued(port: LinePort): Promise<void> {
    try {
      while (this.queued.length > 0 && this.port === port) {
        const chunk = Buffer.concat(this.queued);
        this.queued = [];
        await port.write(chunk);
      }
    } catch (err) {
      // The read loop notices a lost device and reports it; a write only logs.
      log.debug(`write to ${this.spec.path} failed: ${(err as Error).message}`);
      this.queued = [];
    }
  }

  /** Reads until the port closes (by us) or fails (the device went away). */
  private async pump(port: LinePort): Promise<void> {
    const buf = Buffer.alloc(READ_CHUNK_BYTES);
    for (;;) {
      try {
        const { bytesRead } = await port.read(buf, 0, buf.length);
        if (bytesRead > 0) this.sinks.data(buf.subarray(0, bytesRead).slice());
      } catch (err) {
        if (this.closing || this.exitInfo) return;
        const why = (err as { canceled?: boolean }).canceled ? "the port was closed" : (err as Error).message;
        await this.lost(port, why);
        return;
      }
    }
  }

  private async lost(port: LinePort, why: string): Promise<void> {
    log.info(`${this.spec.path}: device lost (${why})`);
    if (this.port === port) this.port = null;
    if (port.isOpen) await port.close().catch(() => undefined);
    if (!this.spec.reconnect) {
      this.finish({ exitCode: null, signal: null, reason: `device disconnected: ${this.spec.path} (${why})` });
      return;
    }
    this.setReconnecting(true);
    const next = await this.waitForDevice();
    if (next) {
      this.generation++;
      this.port = next;
    }
    this.setReconnecting(false);
    if (!next) return;
    log.info(`${this.spec.path}: reopened`);
    void this.flush();
    void this.pump(next);
  }

  private setReconnecting(on: boolean): void {
    this.reconnecting = on;
    this.connectionListener?.();
  }

  /** Until the device can be opened again (or the session is closed: null). */
  private waitForDevice(): Promise<LinePort | null> {
    return new Promise((resolve) => {
      let watcher: FSWatcher | null = null;
      let timer: ReturnType<typeof setInterval> | null = null;
      let trying = false;
      let done = false;
      const end = (port: LinePort | null) => {
        if (done) return;
        done = true;
        watcher?.close();
        if (timer) clearInterval(timer);
        this.stopWaiting = null;
        resolve(port);
      };
      const attempt = async () => {
        if (trying || done) return;
        trying = true;
        try {
          const port = await this.binding.open(optionsFromLine(this.spec.path, this.settings));
          if (done) await port.close();
          else end(port);
        } catch (err) {
          log.debug(`${this.spec.path} not back yet: ${(err as Error).message}`);
        } finally {
          trying = false;
        }
      };
      this.stopWaiting = () => end(null);
      // The directory may be gone too (/dev/serial/by-id disappears with its last device): the
      // timer below still finds the device when it is back.
      try {
        watcher = watch(dirname(this.spec.path), () => void attempt());
        // An unhandled watcher error would end the process: log it and rely on the timer.
        watcher.on("error", (err) => {
          log.debug(`watching ${dirname(this.spec.path)}: ${err.message}`);
          watcher?.close();
        });
      } catch (err) {
        log.debug(`cannot watch ${dirname(this.spec.path)}: ${(err as Error).message}`);
      }
      timer = setInterval(() => void attempt(), RECONNECT_RETRY_MS);
      void attempt();
    });
  }

  private finish(info: ExitInfo): void {
    if (this.exitInfo) return;
    this.exitInfo = info;
    log.debug(`serial session ended: ${info.reason}`);
    this.sinks.exited(info);
    this.resolveExited(info);
  }
}

/** Opens the line and starts the session's backend (SERIAL_OPEN_FAILED / INVALID_ARGUMENT). */
export async function openSerialBackend(
  spec: SerialSpec,
  binding: LineBinding = new FfiBinding(),
): Promise<SerialBackend> {
  let port: LinePort;
  try {
    port = await binding.open(optionsFromLine(spec.path, spec));
  } catch (err) {
    if (err instanceof AppError) throw err;
    const hint = "term_list {serial_ports: true} lists the ports present.";
    throw new AppError("SERIAL_OPEN_FAILED", `cannot open ${spec.path}: ${(err as Error).message}`, hint);
  }
  return new SerialBackend(spec, port, binding);
}
