/**
 * The terminal constants an owned PTY needs, per OS. Linux values hold for x86_64, arm64 and
 * riscv (not mips/ppc/sparc); macOS values come from its headers (<sys/ttycom.h>,
 * <sys/termios.h>), see ../shared/notes/pty-and-serial.md. Only Linux is exercised by the tests.
 */

export interface PtyConstants {
  TIOCSWINSZ: number;
  TIOCSCTTY: number;
  /** Bytes waiting to be read on a descriptor (the program's output not read from the master yet). */
  FIONREAD: number;
  /** sizeof(struct termios). */
  termiosSize: number;
  /** Byte offset of c_lflag in struct termios, and whether tcflag_t is 64-bit. */
  lflagOffset: number;
  lflag64: boolean;
  ECHO: number;
  ICANON: number;
}

const LINUX: PtyConstants = {
  TIOCSWINSZ: 0x5414,
  TIOCSCTTY: 0x540e,
  FIONREAD: 0x541b,
  termiosSize: 60,
  lflagOffset: 12,
  lflag64: false,
  ECHO: 0o10,
  ICANON: 0o2,
};

const DARWIN: PtyConstants = {
  TIOCSWINSZ: 0x80087467,
  TIOCSCTTY: 0x20007461,
  FIONREAD: 0x4004667f,
  termiosSize: 72,
  lflagOffset: 24,
  lflag64: true,
  ECHO: 0x8,
  ICANON: 0x100,
};

export function ptyConstants(platform: NodeJS.Platform = process.platform): PtyConstants {
  return platform === "darwin" ? DARWIN : LINUX;
}
