/**
 * The private channel for the guard's verdicts on what the shell is about to run (the scripts in
 * src/terminal/shells/, src/guard/accepted-line.ts). Never the terminal: an answer written there
 * would be read among keys typed ahead. Two parts, both handed to the shell at its start:
 *
 * - the answers: NONCE_FD, the socket the nonce came on, kept open (the shell moves it to
 *   VERDICT_FD, zsh to one of its own, fish cannot move it); ptyhub writes, the shell reads.
 * - a turn: a pipe holding one byte (TOKEN_FDS). bash reads a socket one byte at a time, so two of
 *   its processes waiting at once (a pipeline of two `{ …; }`, a background subshell) would each
 *   take bytes of the other's answer and neither could read its own. A process takes the byte
 *   before it asks and puts it back after the answer: one asks at a time. The byte is lost when
 *   its holder dies mid-question (ctrl+c); at each prompt the shell makes it one byte again
 *   (ptyhub cannot: the end mark it would do it at may reach it after the next line's first
 *   question took the byte, and two bytes would let two processes ask at once). ptyhub puts the
 *   first byte in and keeps no end of the pipe.
 *
 * Linux only (pipe2 with O_CLOEXEC, so other programs ptyhub starts do not inherit the pipe).
 */
import { closeSync, writeSync } from "node:fs";
import { FFIType, ptr } from "bun:ffi";
import { openLibc } from "../../util/libc.ts";
import { logger } from "../../log.ts";

const log = logger("verdicts");

/** Where the shell finds the turn pipe's read and write ends at its start (moved by the script). */
export const TOKEN_FDS = [4, 5] as const;
/** The turn byte. */
const TOKEN = "t";
/** Linux's O_CLOEXEC: the pipe is not inherited by programs ptyhub starts unless handed over. */
const O_CLOEXEC = 0x80000;

/** Whether this platform can make the turn pipe (and so offer the channel at all). */
export function verdictChannelSupported(): boolean {
  return process.platform === "linux";
}

function pipeCloexec(): [number, number] {
  const lib = openLibc({ pipe2: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 } });
  try {
    const fds = new Int32Array(2);
    if (lib.symbols.pipe2(ptr(fds), O_CLOEXEC) !== 0) throw new Error(`pipe2 failed (errno ${lib.errno()})`);
    return [fds[0] ?? -1, fds[1] ?? -1];
  } finally {
    lib.close();
  }
}

export class VerdictChannel {
  private closed = false;

  private constructor(
    /** Our end of the answers' socket. */
    private readonly answers: number,
  ) {}

  /** A turn pipe for a shell about to start: its ends go into the child's stdio at TOKEN_FDS. */
  static turnPipe(): [number, number] {
    return pipeCloexec();
  }

  /**
   * Takes over our end of the socket once the shell has started; puts the first turn in the pipe
   * and closes our copies of its ends (the shell has its own).
   */
  static open(answers: number, turn: [number, number]): VerdictChannel {
    // When this throws, the caller still holds the ends, and closes them.
    writeSync(turn[1], TOKEN);
    for (const fd of turn) closeSync(fd);
    return new VerdictChannel(answers);
  }

  send(line: string): void {
    if (this.closed) return;
    try {
      writeSync(this.answers, line);
    } catch (err) {
      // A full or closed channel: the shell gets no answer, and refuses the command (fail closed).
      log.warn(`verdict not delivered: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.answers);
  }
}
