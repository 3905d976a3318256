/**
 * Per-OS numbers for serial ports: termios layout and flags, ioctl requests. Values
 * come from the system headers (Linux: asm-generic, which x86_64, arm64 and riscv share; not
 * mips/ppc/sparc; macOS: sys/termios.h, sys/ttycom.h) and were checked on Linux against strace
 * (see /work/shared/notes/pty-and-serial.md). One table per OS so the code above stays OS-free.
 */

export interface SerialOsConstants {
  /** The termios struct the set/get path uses (Linux: the kernel's termios2, read with TCGETS2). */
  termiosSize: number;
  /** Width of tcflag_t: 4 bytes on Linux, 8 on macOS. */
  flagBytes: 4 | 8;
  ccOffset: number;
  VMIN: number;
  VTIME: number;
  /** Offsets of the input and output speeds inside the termios struct. */
  ispeedOffset: number;
  ospeedOffset: number;
  CSIZE: number;
  CS5: number;
  CS6: number;
  CS7: number;
  CS8: number;
  CSTOPB: number;
  CREAD: number;
  PARENB: number;
  PARODD: number;
  HUPCL: number;
  CLOCAL: number;
  CRTSCTS: number;
  /** Mark/space parity (with PARENB, PARODD picks mark); 0 where the OS has none. */
  CMSPAR: number;
  /** Linux: the speed bits of c_cflag, and BOTHER (the rate is in c_ispeed/c_ospeed). */
  CBAUD: number;
  CIBAUD: number;
  BOTHER: number;
  IXON: number;
  IXOFF: number;
  IXANY: number;
  TCIFLUSH: number;
  TCOFLUSH: number;
  TCIOFLUSH: number;
  TIOCMGET: number;
  TIOCMSET: number;
  TIOCOUTQ: number;
  TIOCSBRK: number;
  TIOCCBRK: number;
  TIOCEXCL: number;
  TIOCNXCL: number;
  /**
   * Linux: read/write the kernel's struct termios (standard rates, as B-codes in c_cflag: what
   * stty, glibc and every driver understand) and termios2 (custom rates only, with BOTHER); macOS:
   * tcgetattr/tcsetattr + IOSSIOSPEED, and 0 here.
   */
  TCGETS: number;
  TCSETS: number;
  TCGETS2: number;
  TCSETS2: number;
  /** Linux: the c_cflag speed code of each standard rate; empty where the rate is set apart. */
  speedCodes: ReadonlyMap<number, number>;
  IOSSIOSPEED: number;
  /** Modem line bits of TIOCMGET/TIOCMSET. */
  TIOCM_DTR: number;
  TIOCM_RTS: number;
  TIOCM_CTS: number;
  TIOCM_CAR: number;
  TIOCM_RNG: number;
  TIOCM_DSR: number;
  /** flock(2). */
  LOCK_EX: number;
  LOCK_NB: number;
  LOCK_UN: number;
}

/** asm-generic/termbits.h: B50 … B38400 are 1–15, B57600 … B4000000 are 0o10001–0o10017. */
const LINUX_SPEED_CODES: ReadonlyMap<number, number> = new Map([
  ...[50, 75, 110, 134, 150, 200, 300, 600, 1200, 1800, 2400, 4800, 9600, 19200, 38400].map(
    (baud, i): [number, number] => [baud, i + 1],
  ),
  ...[
    57600, 115200, 230400, 460800, 500000, 576000, 921600, 1000000, 1152000, 1500000, 2000000, 2500000, 3000000,
    3500000, 4000000,
  ].map((baud, i): [number, number] => [baud, 0o10001 + i]),
]);

const LINUX: SerialOsConstants = {
  // struct termios2: 4 flags (u32), c_line (u8), c_cc[19], c_ispeed, c_ospeed = 44 bytes.
  termiosSize: 44,
  flagBytes: 4,
  ccOffset: 17,
  VMIN: 6,
  VTIME: 5,
  ispeedOffset: 36,
  ospeedOffset: 40,
  CSIZE: 0o60,
  CS5: 0,
  CS6: 0o20,
  CS7: 0o40,
  CS8: 0o60,
  CSTOPB: 0o100,
  CREAD: 0o200,
  PARENB: 0o400,
  PARODD: 0o1000,
  HUPCL: 0o2000,
  CLOCAL: 0o4000,
  CRTSCTS: 0x80000000,
  CMSPAR: 0x40000000,
  CBAUD: 0o10017,
  CIBAUD: 0o2003600000,
  BOTHER: 0o10000,
  IXON: 0x400,
  IXOFF: 0x1000,
  IXANY: 0x800,
  TCIFLUSH: 0,
  TCOFLUSH: 1,
  TCIOFLUSH: 2,
  TIOCMGET: 0x5415,
  TIOCMSET: 0x5418,
  TIOCOUTQ: 0x5411,
  TIOCSBRK: 0x5427,
  TIOCCBRK: 0x5428,
  TIOCEXCL: 0x540c,
  TIOCNXCL: 0x540d,
  TCGETS: 0x5401,
  TCSETS: 0x5402,
  TCGETS2: 0x802c542a,
  TCSETS2: 0x402c542b,
  speedCodes: LINUX_SPEED_CODES,
  IOSSIOSPEED: 0,
  TIOCM_DTR: 0x002,
  TIOCM_RTS: 0x004,
  TIOCM_CTS: 0x020,
  TIOCM_CAR: 0x040,
  TIOCM_RNG: 0x080,
  TIOCM_DSR: 0x100,
  LOCK_EX: 2,
  LOCK_NB: 4,
  LOCK_UN: 8,
};

/** From the macOS headers; not run on a Mac yet (see docs/serial.md). */
const DARWIN: SerialOsConstants = {
  termiosSize: 72,
  flagBytes: 8,
  ccOffset: 32,
  VMIN: 16,
  VTIME: 17,
  ispeedOffset: 56,
  ospeedOffset: 64,
  CSIZE: 0x300,
  CS5: 0,
  CS6: 0x100,
  CS7: 0x200,
  CS8: 0x300,
  CSTOPB: 0x400,
  CREAD: 0x800,
  PARENB: 0x1000,
  PARODD: 0x2000,
  HUPCL: 0x4000,
  CLOCAL: 0x8000,
  CRTSCTS: 0x30000,
  CMSPAR: 0,
  CBAUD: 0,
  CIBAUD: 0,
  BOTHER: 0,
  IXON: 0x200,
  IXOFF: 0x400,
  IXANY: 0x800,
  TCIFLUSH: 1,
  TCOFLUSH: 2,
  TCIOFLUSH: 3,
  TIOCMGET: 0x4004746a,
  TIOCMSET: 0x8004746d,
  TIOCOUTQ: 0x40047473,
  TIOCSBRK: 0x2000747b,
  TIOCCBRK: 0x2000747a,
  TIOCEXCL: 0x2000740d,
  TIOCNXCL: 0x2000740e,
  TCGETS: 0,
  TCSETS: 0,
  TCGETS2: 0,
  TCSETS2: 0,
  speedCodes: new Map(),
  IOSSIOSPEED: 0x80085402,
  TIOCM_DTR: 0x002,
  TIOCM_RTS: 0x004,
  TIOCM_CTS: 0x020,
  TIOCM_CAR: 0x040,
  TIOCM_RNG: 0x080,
  TIOCM_DSR: 0x100,
  LOCK_EX: 2,
  LOCK_NB: 4,
  LOCK_UN: 8,
};

/** The table for this OS, or null where serial ports are not supported (Windows). */
export function serialConstants(platform: NodeJS.Platform = process.platform): SerialOsConstants | null {
  if (platform === "linux") return LINUX;
  if (platform === "darwin") return DARWIN;
  return null;
}
