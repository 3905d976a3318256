/**
 * Raw line settings in a termios struct: pure functions over its bytes (so they are tested
 * without a port), for the layout of the running OS (constants.ts). Raw means what picocom sets:
 * no echo, no line editing, no signals, no CR/NL translation, VMIN 1 / VTIME 0; the receiver on
 * (CREAD), modem status ignored for opening (CLOCAL), DTR dropped on the last close (HUPCL).
 */
import type { SerialOsConstants } from "./constants.ts";
import type { DataBits, Flow, LineSettings, Parity, StopBits } from "./settings.ts";

export interface TermiosFields {
  iflag: number;
  oflag: number;
  cflag: number;
  lflag: number;
}

const FLAG_OFFSETS = { iflag: 0, oflag: 1, cflag: 2, lflag: 3 } as const;

function view(buf: Uint8Array): DataView {
  return new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
}

function getFlag(buf: Uint8Array, c: SerialOsConstants, field: keyof TermiosFields): number {
  const at = FLAG_OFFSETS[field] * c.flagBytes;
  return c.flagBytes === 4 ? view(buf).getUint32(at, true) : Number(view(buf).getBigUint64(at, true));
}

function setFlag(buf: Uint8Array, c: SerialOsConstants, field: keyof TermiosFields, value: number): void {
  const at = FLAG_OFFSETS[field] * c.flagBytes;
  if (c.flagBytes === 4) view(buf).setUint32(at, value >>> 0, true);
  else view(buf).setBigUint64(at, BigInt(value >>> 0), true);
}

function getSpeed(buf: Uint8Array, c: SerialOsConstants, at: number): number {
  return c.flagBytes === 4 ? view(buf).getUint32(at, true) : Number(view(buf).getBigUint64(at, true));
}

function setSpeed(buf: Uint8Array, c: SerialOsConstants, at: number, baud: number): void {
  if (c.flagBytes === 4) view(buf).setUint32(at, baud, true);
  else view(buf).setBigUint64(at, BigInt(baud), true);
}

/** Writes `s` into the termios bytes in `buf` as a raw line (bits the line does not own are kept). */
export function encodeLine(buf: Uint8Array, c: SerialOsConstants, s: LineSettings): void {
  setFlag(buf, c, "iflag", s.flow === "xonxoff" ? c.IXON | c.IXOFF : 0);
  setFlag(buf, c, "oflag", 0);
  setFlag(buf, c, "lflag", 0);
  let cflag = getFlag(buf, c, "cflag");
  cflag &= ~(c.CSIZE | c.CSTOPB | c.PARENB | c.PARODD | c.CMSPAR | c.CRTSCTS | c.CBAUD | c.CIBAUD);
  cflag |= c.CREAD | c.CLOCAL | c.HUPCL | sizeBits(c, s.dataBits);
  if (s.stopBits === 2) cflag |= c.CSTOPB;
  cflag |= parityBits(c, s.parity);
  if (s.flow === "rtscts") cflag |= c.CRTSCTS;
  // Linux: a standard rate is its B-code in c_cflag (set with TCSETS: stty and drivers without
  // BOTHER support read it); any other rate is BOTHER, "the rate is in c_ispeed/c_ospeed" (TCSETS2).
  // CIBAUD left 0 makes the input rate follow the output rate.
  cflag |= c.speedCodes.get(s.baud) ?? c.BOTHER;
  setFlag(buf, c, "cflag", cflag);
  setSpeed(buf, c, c.ispeedOffset, s.baud);
  setSpeed(buf, c, c.ospeedOffset, s.baud);
  buf[c.ccOffset + c.VMIN] = 1;
  buf[c.ccOffset + c.VTIME] = 0;
}

function sizeBits(c: SerialOsConstants, bits: DataBits): number {
  return { 5: c.CS5, 6: c.CS6, 7: c.CS7, 8: c.CS8 }[bits];
}

function parityBits(c: SerialOsConstants, p: Parity): number {
  switch (p) {
    case "none":
      return 0;
    case "even":
      return c.PARENB;
    case "odd":
      return c.PARENB | c.PARODD;
    case "mark":
      return c.PARENB | c.CMSPAR | c.PARODD;
    case "space":
      return c.PARENB | c.CMSPAR;
  }
}

/** Reads the line settings back from termios bytes (what the driver actually kept). */
export function decodeLine(buf: Uint8Array, c: SerialOsConstants): LineSettings {
  const cflag = getFlag(buf, c, "cflag");
  const iflag = getFlag(buf, c, "iflag");
  const size = cflag & c.CSIZE;
  const dataBits: DataBits = size === c.CS5 ? 5 : size === c.CS6 ? 6 : size === c.CS7 ? 7 : 8;
  let parity: Parity = "none";
  if (cflag & c.PARENB) {
    const odd = (cflag & c.PARODD) !== 0;
    if (c.CMSPAR && cflag & c.CMSPAR) parity = odd ? "mark" : "space";
    else parity = odd ? "odd" : "even";
  }
  const stopBits: StopBits = cflag & c.CSTOPB ? 2 : 1;
  const flow: Flow = cflag & c.CRTSCTS ? "rtscts" : iflag & c.IXON ? "xonxoff" : "none";
  return { baud: decodeBaud(buf, c, cflag), dataBits, parity, stopBits, flow };
}

/** Linux: the B-code in c_cflag names a standard rate; BOTHER (or macOS) means c_ospeed holds it. */
function decodeBaud(buf: Uint8Array, c: SerialOsConstants, cflag: number): number {
  const code = cflag & c.CBAUD;
  if (c.CBAUD !== 0 && code !== c.BOTHER) {
    for (const [baud, known] of c.speedCodes) if (known === code) return baud;
  }
  return getSpeed(buf, c, c.ospeedOffset);
}

/** Whether `baud` must be set apart from c_cflag (Linux: termios2 with BOTHER). */
export function isCustomRate(c: SerialOsConstants, baud: number): boolean {
  return c.CBAUD !== 0 && !c.speedCodes.has(baud);
}

/** Whether the line is raw as encodeLine leaves it (no echo, no canonical mode, no output processing). */
export function isRaw(buf: Uint8Array, c: SerialOsConstants): boolean {
  return getFlag(buf, c, "lflag") === 0 && getFlag(buf, c, "oflag") === 0;
}
