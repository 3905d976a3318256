/**
 * Opening a PTY pair ourselves: /dev/ptmx (non-blocking master, so reads and writes never stall
 * the event loop) + grantpt/unlockpt/ptsname_r, which are in libc everywhere (openpty moves
 * between libutil, libc and libSystem). The slave is opened blocking: it becomes
 * the child's stdin, stdout and stderr, and programs expect a blocking terminal.
 */
import { closeSync, openSync, constants as fsc } from "node:fs";
import { ptr } from "bun:ffi";
import { AppError } from "../../../api/errors.ts";
import { ptyConstants } from "./constants.ts";
import { libc } from "./libc.ts";

export interface PtyPair {
  master: number;
  slave: number;
  /** /dev/pts/N: reopened to read the program's tty modes (the master has its own termios). */
  slavePath: string;
}

export function openPty(cols: number, rows: number): PtyPair {
  let master: number;
  try {
    master = openSync("/dev/ptmx", fsc.O_RDWR | fsc.O_NOCTTY | fsc.O_NONBLOCK);
  } catch (err) {
    throw new AppError(
      "SPAWN_FAILED",
      `cannot open /dev/ptmx: ${(err as Error).message}`,
      "The system is out of ptys or /dev/ptmx is missing; close sessions or check kernel.pty.max.",
    );
  }
  try {
    libc.grantpt(master);
    libc.unlockpt(master);
    const slavePath = libc.ptsname(master);
    setWindowSize(master, cols, rows);
    const slave = openSync(slavePath, fsc.O_RDWR | fsc.O_NOCTTY);
    return { master, slave, slavePath };
  } catch (err) {
    closeSync(master);
    if (err instanceof AppError) throw err;
    const message = `cannot open the terminal's slave side: ${(err as Error).message}`;
    throw new AppError("SPAWN_FAILED", message, "Check the permissions of /dev/pts.");
  }
}

/** TIOCSWINSZ: the kernel sends SIGWINCH to the foreground process group when the size changes. */
export function setWindowSize(fd: number, cols: number, rows: number): boolean {
  // struct winsize { unsigned short ws_row, ws_col, ws_xpixel, ws_ypixel; }
  const ws = new Uint16Array([rows, cols, 0, 0]);
  return libc.ioctl(fd, ptyConstants().TIOCSWINSZ, ptr(ws)) === 0;
}

/** Bytes readable from a descriptor (FIONREAD): 0 when none; -1 when unknown. */
export function readable(fd: number): number {
  const count = new Int32Array(1);
  return libc.ioctl(fd, ptyConstants().FIONREAD, ptr(count)) === 0 ? count[0]! : -1;
}

/** Bytes the program wrote that wait in the master to be read (0 when none; -1 when unknown). */
export function pendingOutput(master: number): number {
  return readable(master);
}

/**
 * Input the program could read now but has not (keys typed into a raw terminal, whole lines into
 * a canonical one; a partial line does not count): 0 when none; -1 when unknown.
 */
export function pendingInput(slavePath: string): number {
  let fd: number;
  try {
    fd = openSync(slavePath, fsc.O_RDONLY | fsc.O_NOCTTY | fsc.O_NONBLOCK);
  } catch {
    return -1;
  }
  try {
    return readable(fd);
  } finally {
    closeSync(fd);
  }
}

export interface TtyLocalModes {
  echo: boolean;
  canonical: boolean;
}

/** The program's echo and canonical modes, read from the slave side; null once it is gone. */
export function readLocalModes(slavePath: string): TtyLocalModes | null {
  const k = ptyConstants();
  let fd: number;
  try {
    fd = openSync(slavePath, fsc.O_RDONLY | fsc.O_NOCTTY | fsc.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const termios = new Uint8Array(k.termiosSize);
    if (!libc.tcgetattr(fd, termios)) return null;
    const view = new DataView(termios.buffer);
    // Both flags sit in the low 32 bits of c_lflag; on macOS tcflag_t is 64-bit (little-endian).
    const lflag = k.lflag64
      ? Number(view.getBigUint64(k.lflagOffset, true) & 0xffffffffn)
      : view.getUint32(k.lflagOffset, true);
    return { echo: (lflag & k.ECHO) !== 0, canonical: (lflag & k.ICANON) !== 0 };
  } finally {
    closeSync(fd);
  }
}
