/**
 * A serial line's settings (term_open's `serial` object, term_serial's changes): their types,
 * defaults and validation. Bad values are INVALID_ARGUMENT before anything is opened or changed.
 */
import { AppError } from "../../api/errors.ts";

export type Parity = "none" | "even" | "odd" | "mark" | "space";
export type Flow = "none" | "rtscts" | "xonxoff";
export type Newline = "cr" | "lf" | "crlf";
export type DataBits = 5 | 6 | 7 | 8;
export type StopBits = 1 | 2;

/** What the line is set to: the part term_serial may change on the fly. */
export interface LineSettings {
  baud: number;
  dataBits: DataBits;
  parity: Parity;
  stopBits: StopBits;
  flow: Flow;
}

/** Everything that opens a serial session (the backend's spec). */
export interface SerialSpec extends LineSettings {
  path: string;
  newline: Newline;
  reconnect: boolean;
}

export const PARITIES: readonly Parity[] = ["none", "even", "odd", "mark", "space"];
export const FLOWS: readonly Flow[] = ["none", "rtscts", "xonxoff"];
export const NEWLINES: readonly Newline[] = ["cr", "lf", "crlf"];

export const DEFAULT_BAUD = 115200;
/** Slowest and fastest rates accepted: 50 is the lowest POSIX rate; 16 Mbaud covers FTDI's top. */
export const MIN_BAUD = 50;
export const MAX_BAUD = 16_000_000;

/** The rates with a termios B-constant; others are set as custom rates (Linux BOTHER, macOS IOSSIOSPEED). */
export const STANDARD_BAUDS: readonly number[] = [
  50, 75, 110, 134, 150, 200, 300, 600, 1200, 1800, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800,
  500000, 576000, 921600, 1000000, 1152000, 1500000, 2000000, 2500000, 3000000, 3500000, 4000000,
];

const HINT =
  "Serial settings: baud 50–16000000 (e.g. 9600, 115200), data_bits 5–8, parity none|even|odd|mark|space, " +
  "stop_bits 1|2, flow none|rtscts|xonxoff, newline cr|lf|crlf.";

function isOneOf<T extends string>(list: readonly T[], v: unknown): v is T {
  return typeof v === "string" && (list as readonly string[]).includes(v);
}

function bad(message: string): AppError {
  return new AppError("INVALID_ARGUMENT", message, HINT);
}

/** Checks the line settings given in `raw` (any subset); returns them merged over `base`. */
export function mergeLineSettings(base: LineSettings, raw: Record<string, unknown>): LineSettings {
  const out = { ...base };
  if (raw.baud !== undefined) {
    const b = raw.baud;
    if (typeof b !== "number" || !Number.isInteger(b) || b < MIN_BAUD || b > MAX_BAUD) {
      throw bad(`invalid baud rate ${JSON.stringify(b)}`);
    }
    out.baud = b;
  }
  if (raw.data_bits !== undefined) {
    const d = raw.data_bits;
    if (d !== 5 && d !== 6 && d !== 7 && d !== 8) throw bad(`invalid data_bits ${JSON.stringify(d)}`);
    out.dataBits = d;
  }
  if (raw.parity !== undefined) {
    const p = raw.parity;
    if (!isOneOf(PARITIES, p)) throw bad(`invalid parity ${JSON.stringify(p)}`);
    out.parity = p;
  }
  if (raw.stop_bits !== undefined) {
    const s = raw.stop_bits;
    if (s !== 1 && s !== 2) throw bad(`invalid stop_bits ${JSON.stringify(s)}`);
    out.stopBits = s;
  }
  if (raw.flow !== undefined) {
    const f = raw.flow;
    if (!isOneOf(FLOWS, f)) throw bad(`invalid flow ${JSON.stringify(f)}`);
    out.flow = f;
  }
  return out;
}

export const DEFAULT_LINE: LineSettings = {
  baud: DEFAULT_BAUD,
  dataBits: 8,
  parity: "none",
  stopBits: 1,
  flow: "none",
};

const SPEC_KEYS = new Set(["path", "baud", "data_bits", "parity", "stop_bits", "flow", "newline", "reconnect"]);

/** term_open's `serial` object → a checked spec (throws INVALID_ARGUMENT). */
export function parseSerialSpec(raw: Record<string, unknown>): SerialSpec {
  for (const key of Object.keys(raw)) if (!SPEC_KEYS.has(key)) throw bad(`unknown serial setting '${key}'`);
  const path = raw.path;
  if (typeof path !== "string" || path.length === 0 || path.length > 4096 || path.includes("\0")) {
    throw new AppError(
      "INVALID_ARGUMENT",
      "serial.path is required: the device to open",
      'Pass e.g. {path: "/dev/ttyUSB0"}; term_list {serial_ports: true} lists the ports present.',
    );
  }
  const newline = raw.newline ?? "cr";
  if (!isOneOf(NEWLINES, newline)) throw bad(`invalid newline ${JSON.stringify(newline)}`);
  const reconnect = raw.reconnect ?? false;
  if (typeof reconnect !== "boolean") throw bad("serial.reconnect must be true or false");
  return { path, ...mergeLineSettings(DEFAULT_LINE, raw), newline, reconnect };
}

/** `8N1`-style summary, for targets and logs. */
export function describeLine(s: LineSettings): string {
  const p = { none: "N", even: "E", odd: "O", mark: "M", space: "S" }[s.parity];
  return `${s.dataBits}${p}${s.stopBits}${s.flow === "none" ? "" : ` ${s.flow}`}`;
}
