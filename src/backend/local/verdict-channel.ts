/**
 * The private channel for the guard's verdicts on the commands bash is about to run
 * (shell-scripts.ts, src/guard/accepted-line.ts). Never the terminal: an answer written there
 * would be read among keys typed ahead. Two parts, both handed to the shell at its start:
 *
 * - the answers: NONCE_FD, the socket the nonce came on, kept open (the shell moves it to
 *   VERDICT_FD); ptyhub writes, the shell reads.
 * - a turn: a pipe holding one byte (TOKEN_FDS). bash reads a socket one byte at a time, so two of
 *   its processes waiting at once (a pipeline of two `{ …; }`, a background subshell) would each
 *   take bytes of the other's answer and neither could read its own. A process takes the byte
 *   before it asks and puts it back after the answer: one asks at a time. The byte is lost when
 *   its holder dies mid-question (ctrl+c); at each prompt ptyhub makes it one byte again.
 *
 * Linux only (pipe2 with O_CLOEXEC, so other programs ptyhub starts do not inherit the pipe).
 */
import { closeSync, readSync, writeSync } from "node:fs";
import { FFIType, ptr } from "bun:ffi";
import { openLibc } from "../../util/libc.ts";
import { readable } from "./pty/open.ts";
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
    /** Our copies of the turn pipe's ends: to count the bytes in it and to put one back. */
    private readonly turnRead: number,
    private readonly turnWrite: number,
  ) {}

  /** A turn pipe for a shell about to start: its ends go into the child's stdio at TOKEN_FDS. */
  static turnPipe(): [number, number] {
    return pipeCloexec();
  }

  /** Takes over our end of the socket and the turn pipe once the shell has started; puts the first turn in. */
  static open(answers: number, turn: [number, number]): VerdictChannel {
    const channel = new VerdictChannel(answers, turn[0], turn[1]);
    writeSync(turn[1], TOKEN);
    return channel;
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

  /**
   * The shell is at its prompt: exactly one turn in the pipe again. None left means its holder
   * died mid-question; more than one, that a background holder put its turn back after one was
   * added. (A background question in flight right now may then share its turn: at worst two
   * answers are garbled, and both commands refused.)
   */
  restoreTurn(): void {
    if (this.closed) return;
    const count = readable(this.turnRead);
    if (count === 0) writeSync(this.turnWrite, TOKEN);
    else if (count > 1) readSync(this.turnRead, Buffer.alloc(count - 1));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const fd of [this.answers, this.turnRead, this.turnWrite]) closeSync(fd);
  }
}
