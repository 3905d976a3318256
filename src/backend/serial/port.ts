/**
 * A serial port on bun:ffi, behind @serialport/bindings-interface (so @serialport/binding-mock
 * can stand in for it in tests, and SerialPortStream could sit on it).
 *
 * Measured under Bun 1.4.5 (see /work/shared/notes/pty-and-serial.md), and why it is built so:
 * - The fd is opened O_NONBLOCK and read through `Bun.file(fd).stream()`, which waits in Bun's own
 *   epoll/kqueue: an idle line costs no CPU, and a line is delivered in ~0.1 ms. A polling reader
 *   cost CPU while idle and milliseconds per line.
 * - Writes use writeSync with a timer backoff on EAGAIN: `Bun.file(fd).writer()` clears
 *   O_NONBLOCK on the shared open file, and a large write then blocks the event loop.
 * - Exclusive use is an flock (TIOCEXCL as well, but root bypasses it). Bun closes its dup of the
 *   fd later, on another thread, and that dup keeps the lock: unlock (LOCK_UN) before close, or
 *   an immediate re-open finds the port busy.
 */
import { closeSync, constants as fsConstants, fstatSync, openSync, statSync, writeSync } from "node:fs";
import { isatty } from "node:tty";
import type {
  BindingInterface,
  BindingPortInterface,
  OpenOptions,
  PortInfo,
  PortStatus,
  SetOptions,
  UpdateOptions,
} from "@serialport/bindings-interface";
import { AppError } from "../../api/errors.ts";
import { logger } from "../../log.ts";
import { serialConstants, type SerialOsConstants } from "./constants.ts";
import { libc, LibcError, type Libc } from "./libc.ts";
import { decodeLine, encodeLine, isCustomRate } from "./termios.ts";
import { listSerialPorts, lockHolders } from "./enumerate.ts";
import { PARITIES, type LineSettings } from "./settings.ts";

const log = logger("serial");

/** First wait after a write finds the kernel's output buffer full; doubles up to the maximum. */
const WRITE_RETRY_FIRST_MS = 1;
/** At 9600 baud a 4 KiB tty buffer drains in ~4 s; checking every 50 ms at most is plenty. */
const WRITE_RETRY_MAX_MS = 50;
/** drain() gives up after this long (a line stopped by flow control never drains). */
const DRAIN_TIMEOUT_MS = 10_000;
/** Bits per character on the wire at most (start + 8 data + parity + 2 stop), for drain waits. */
const BITS_PER_CHAR_MAX = 12;

/** The modem lines, where the port has them (a pseudo-terminal has none). */
export interface ModemLines {
  dtr: boolean;
  rts: boolean;
  cts: boolean;
  dsr: boolean;
  dcd: boolean;
  ri: boolean;
}

/**
 * What the session's backend uses: the bindings-interface port, plus what that interface cannot
 * say (all line settings at once, every modem line). Optional, so the mock binding fits too.
 */
export interface LinePort extends BindingPortInterface {
  reconfigure?(s: LineSettings): Promise<void>;
  modemLines?(): Promise<ModemLines | null>;
  /** The line settings as the driver kept them. */
  lineSettings?(): LineSettings;
}

export type LineBinding = BindingInterface<LinePort, OpenOptions, PortInfo>;

/** bindings-interface's options → our settings. */
export function lineFromOptions(o: OpenOptions): LineSettings {
  const parity = PARITIES.find((p) => p === o.parity) ?? "none";
  return {
    baud: o.baudRate,
    dataBits: o.dataBits ?? 8,
    parity,
    stopBits: o.stopBits === 2 ? 2 : 1,
    flow: o.rtscts ? "rtscts" : o.xon || o.xoff ? "xonxoff" : "none",
  };
}

/** Our settings → bindings-interface's options. */
export function optionsFromLine(path: string, s: LineSettings): OpenOptions {
  return {
    path,
    baudRate: s.baud,
    dataBits: s.dataBits,
    parity: s.parity,
    stopBits: s.stopBits,
    rtscts: s.flow === "rtscts",
    xon: s.flow === "xonxoff",
    xoff: s.flow === "xonxoff",
    lock: true,
    hupcl: true,
  };
}

function canceled(): Error & { canceled: true } {
  return Object.assign(new Error("port closed"), { canceled: true as const });
}

function openFailed(path: string, message: string, hint: string): AppError {
  return new AppError("SERIAL_OPEN_FAILED", `cannot open ${path}: ${message}`, hint);
}

const LIST_HINT = "term_list {serial_ports: true} lists the ports present.";
const MISSING_HINT = `Check the path (is the device plugged in?). ${LIST_HINT}`;

/** Opens `path` non-blocking and exclusive, or fails with SERIAL_OPEN_FAILED and a hint. */
function openExclusive(path: string, c: SerialOsConstants, lib: Libc): number {
  let fd: number;
  try {
    fd = openSync(path, fsConstants.O_RDWR | fsConstants.O_NOCTTY | fsConstants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw openFailed(path, "no such device", MISSING_HINT);
    if (code === "EACCES" || code === "EPERM") {
      const hint = "Add the user to the group owning the device (often `dialout` or `uucp`), then log in again.";
      throw openFailed(path, "permission denied", hint);
    }
    if (code === "EBUSY") {
      const hint = "Another program holds it (picocom, screen, ModemManager…): close it and retry.";
      throw openFailed(path, "the device is busy", hint);
    }
    throw openFailed(path, (err as Error).message, LIST_HINT);
  }
  try {
    if (!isatty(fd)) {
      const kind = fstatSync(fd).isFile() ? "a regular file" : "not a terminal device";
      const hint = `Pass a serial device such as /dev/ttyUSB0 or /dev/ttyACM0. ${LIST_HINT}`;
      throw openFailed(path, `${kind}, not a serial port`, hint);
    }
    try {
      lib.flock(fd, c.LOCK_EX | c.LOCK_NB);
    } catch (err) {
      if (err instanceof LibcError && (err.code === "EWOULDBLOCK" || err.code === "EAGAIN")) {
        const holders = lockHolders(path);
        const who = holders.length > 0 ? holders.join(", ") : "another program";
        const hint = "Close the program holding it (another ptyhub session, picocom, screen, minicom), then retry.";
        throw openFailed(path, `the port is in use by ${who}`, hint);
      }
      throw err;
    }
    try {
      lib.ioctl(fd, c.TIOCEXCL, null, "TIOCEXCL");
    } catch (err) {
      log.debug(`TIOCEXCL on ${path}: ${(err as Error).message}`);
    }
    return fd;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** Reads the fd in Bun's event loop (epoll/kqueue): no thread, no polling. */
function openReader(fd: number) {
  return Bun.file(fd).stream().getReader();
}
type ByteReader = ReturnType<typeof openReader>;
type ReadResult = Awaited<ReturnType<ByteReader["read"]>>;

/** How a kernel without termios2 ioctls (or an emulator that does not pass them on) answers. */
const TERMIOS2_MISSING: ReadonlySet<string> = new Set(["ENOSYS", "EINVAL", "ENOTTY"]);

export class FfiPort implements LinePort {
  isOpen = true;
  private readonly reader: ByteReader;
  /** A read of the stream that has not been consumed yet: never dropped (that loses its chunk). */
  private pendingRead: Promise<ReadResult> | null = null;
  private leftover: Uint8Array | null = null;
  private settings: LineSettings;
  /** DTR and RTS as last set (both asserted on open, as the OS does). */
  private lines = { dtr: true, rts: true };
  private closing: Promise<void> | null = null;
  private readonly termios: Uint8Array;

  constructor(
    readonly openOptions: Required<OpenOptions>,
    private readonly fd: number,
    private readonly c: SerialOsConstants,
    private readonly lib: Libc,
  ) {
    this.termios = new Uint8Array(c.termiosSize);
    this.settings = lineFromOptions(openOptions);
    this.apply(this.settings);
    this.reader = openReader(fd);
  }

  /** The line settings the driver kept (a pty, for one, keeps cs8 and no parity whatever is asked). */
  lineSettings(): LineSettings {
    this.getAttr();
    return decodeLine(this.termios, this.c);
  }

  async reconfigure(s: LineSettings): Promise<void> {
    this.assertOpen();
    this.apply(s);
    this.settings = s;
  }

  async read(buffer: Buffer, offset: number, length: number): Promise<{ buffer: Buffer; bytesRead: number }> {
    for (;;) {
      if (!this.isOpen) throw canceled();
      if (this.leftover) {
        const n = Math.min(length, this.leftover.length);
        buffer.set(this.leftover.subarray(0, n), offset);
        this.leftover = n < this.leftover.length ? this.leftover.subarray(n) : null;
        return { buffer, bytesRead: n };
      }
      this.pendingRead ??= this.reader.read();
      let r: ReadResult;
      try {
        r = await this.pendingRead;
      } catch (err) {
        this.pendingRead = null;
        if (!this.isOpen) throw canceled();
        throw err;
      }
      this.pendingRead = null;
      if (!this.isOpen) throw canceled();
      // The end of the stream on a tty is a hang-up: the device went away.
      if (r.done) throw new Error("the device hung up (end of stream)");
      if (r.value.length > 0) this.leftover = r.value;
    }
  }

  async write(buffer: Buffer): Promise<void> {
    let off = 0;
    let wait = WRITE_RETRY_FIRST_MS;
    while (off < buffer.length) {
      if (!this.isOpen) throw canceled();
      try {
        off += writeSync(this.fd, buffer, off, buffer.length - off);
        wait = WRITE_RETRY_FIRST_MS;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EAGAIN") throw err;
        await Bun.sleep(wait);
        wait = Math.min(wait * 2, WRITE_RETRY_MAX_MS);
      }
    }
  }

  async update(options: UpdateOptions): Promise<void> {
    await this.reconfigure({ ...this.settings, baud: options.baudRate });
  }

  async set(options: SetOptions): Promise<void> {
    this.assertOpen();
    if (options.brk) this.lib.ioctl(this.fd, this.c.TIOCSBRK, null, "TIOCSBRK");
    else this.lib.ioctl(this.fd, this.c.TIOCCBRK, null, "TIOCCBRK");
    const want = { dtr: options.dtr ?? true, rts: options.rts ?? true };
    if (want.dtr === this.lines.dtr && want.rts === this.lines.rts) return;
    const bits = this.getModemBits();
    if (bits === null) {
      throw new AppError(
        "INVALID_ARGUMENT",
        `${this.openOptions.path} has no modem control lines (DTR/RTS)`,
        "This port (e.g. a pseudo-terminal) cannot set DTR or RTS; break and line settings still work.",
      );
    }
    let next = bits & ~(this.c.TIOCM_DTR | this.c.TIOCM_RTS);
    if (want.dtr) next |= this.c.TIOCM_DTR;
    if (want.rts) next |= this.c.TIOCM_RTS;
    const buf = new Uint8Array(4);
    new DataView(buf.buffer).setInt32(0, next, true);
    this.lib.ioctl(this.fd, this.c.TIOCMSET, buf, "TIOCMSET");
    this.lines = want;
  }

  async get(): Promise<PortStatus> {
    const m = await this.modemLines();
    return { cts: m?.cts ?? false, dsr: m?.dsr ?? false, dcd: m?.dcd ?? false };
  }

  async modemLines(): Promise<ModemLines | null> {
    this.assertOpen();
    const bits = this.getModemBits();
    if (bits === null) return null;
    const c = this.c;
    const on = (bit: number) => (bits & bit) !== 0;
    return {
      dtr: on(c.TIOCM_DTR),
      rts: on(c.TIOCM_RTS),
      cts: on(c.TIOCM_CTS),
      dsr: on(c.TIOCM_DSR),
      dcd: on(c.TIOCM_CAR),
      ri: on(c.TIOCM_RNG),
    };
  }

  async getBaudRate(): Promise<{ baudRate: number }> {
    return { baudRate: this.lineSettings().baud };
  }

  async flush(): Promise<void> {
    this.assertOpen();
    this.lib.tcflush(this.fd, this.c.TCIOFLUSH);
    this.leftover = null;
  }

  /**
   * Waits until the kernel has sent what was written. tcdrain() would block the event loop, so
   * the output queue (TIOCOUTQ) is checked, sleeping as long as its bytes take on the wire.
   */
  async drain(): Promise<void> {
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    const buf = new Uint8Array(4);
    for (;;) {
      this.assertOpen();
      this.lib.ioctl(this.fd, this.c.TIOCOUTQ, buf, "TIOCOUTQ");
      const queued = new DataView(buf.buffer).getInt32(0, true);
      if (queued <= 0) return;
      if (Date.now() > deadline) throw new Error(`drain: ${queued} bytes still queued after ${DRAIN_TIMEOUT_MS} ms`);
      await Bun.sleep(Math.max(1, Math.ceil((queued * BITS_PER_CHAR_MAX * 1000) / this.settings.baud)));
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.isOpen = false;
      await this.reader.cancel().catch(() => undefined);
      // Unlock first: Bun's own dup of the fd, closed later, would otherwise keep the lock.
      try {
        this.lib.flock(this.fd, this.c.LOCK_UN);
      } catch (err) {
        log.debug(`unlock: ${(err as Error).message}`);
      }
      try {
        closeSync(this.fd);
      } catch (err) {
        log.debug(`close: ${(err as Error).message}`);
      }
    })();
    return this.closing;
  }

  private getModemBits(): number | null {
    const buf = new Uint8Array(4);
    try {
      this.lib.ioctl(this.fd, this.c.TIOCMGET, buf, "TIOCMGET");
    } catch (err) {
      // A pseudo-terminal answers ENOTTY; some USB adapters EINVAL: no modem lines to report.
      if (err instanceof LibcError && (err.code === "ENOTTY" || err.code === "EINVAL")) return null;
      throw err;
    }
    return new DataView(buf.buffer).getInt32(0, true);
  }

  private getAttr(): void {
    if (!this.c.TCGETS) {
      this.lib.tcgetattr(this.fd, this.termios);
      return;
    }
    // termios2 tells a custom rate; where the kernel or an emulator (qemu-user 7.2) lacks it,
    // the plain struct (a prefix of termios2) still tells every standard rate.
    try {
      this.lib.ioctl(this.fd, this.c.TCGETS2, this.termios, "TCGETS2");
    } catch (err) {
      if (!(err instanceof LibcError) || !TERMIOS2_MISSING.has(err.code)) throw err;
      this.lib.ioctl(this.fd, this.c.TCGETS, this.termios, "TCGETS");
    }
  }

  private apply(s: LineSettings): void {
    this.getAttr();
    encodeLine(this.termios, this.c, s);
    if (this.c.TCSETS) {
      if (isCustomRate(this.c, s.baud)) this.lib.ioctl(this.fd, this.c.TCSETS2, this.termios, "TCSETS2");
      else this.lib.ioctl(this.fd, this.c.TCSETS, this.termios, "TCSETS");
    } else {
      this.lib.tcsetattr(this.fd, this.termios);
      // macOS: any rate, standard or not, through IOSSIOSPEED (speed_t is the rate itself).
      const speed = new Uint8Array(8);
      new DataView(speed.buffer).setBigUint64(0, BigInt(s.baud), true);
      this.lib.ioctl(this.fd, this.c.IOSSIOSPEED, speed, "IOSSIOSPEED");
    }
  }

  private assertOpen(): void {
    if (!this.isOpen) throw canceled();
  }
}

/** The binding: opens ports on bun:ffi; `list` is src/backend/serial/enumerate.ts. */
export class FfiBinding implements LineBinding {
  async list(): Promise<PortInfo[]> {
    return (await listSerialPorts()).map((p) => ({
      path: p.path,
      manufacturer: undefined,
      serialNumber: p.usb?.serial ?? undefined,
      pnpId: p.by_id ?? undefined,
      locationId: undefined,
      productId: p.usb?.pid,
      vendorId: p.usb?.vid,
    }));
  }

  async open(options: OpenOptions): Promise<LinePort> {
    const c = serialConstants();
    if (!c) {
      throw new AppError(
        "SERIAL_OPEN_FAILED",
        `serial ports are not supported on ${process.platform} yet`,
        "Serial lines work on Linux and macOS; on Windows, use the port from a program of the OS for now.",
      );
    }
    const lib = libc();
    const path = options.path;
    try {
      statSync(path);
    } catch {
      throw openFailed(path, "no such device", MISSING_HINT);
    }
    const fd = openExclusive(path, c, lib);
    const full: Required<OpenOptions> = {
      dataBits: 8,
      lock: true,
      stopBits: 1,
      parity: "none",
      rtscts: false,
      xon: false,
      xoff: false,
      xany: false,
      hupcl: true,
      ...options,
    };
    try {
      return new FfiPort(full, fd, c, lib);
    } catch (err) {
      try {
        lib.flock(fd, c.LOCK_UN);
      } finally {
        closeSync(fd);
      }
      const msg = err instanceof LibcError ? err.message : (err as Error).message;
      const hint = "The driver refused the line settings: try a standard baud rate (e.g. 115200) and 8N1.";
      throw new AppError("SERIAL_OPEN_FAILED", `cannot set up ${path}: ${msg}`, hint);
    }
  }
}
