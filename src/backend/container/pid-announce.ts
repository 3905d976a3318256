/**
 * How a plain exec's shell tells this side its pid inside the container: an exec cannot be
 * signalled through the engine's API, so term_close signals the shell's process group from a
 * second exec, and needs that pid. The exec starts as `/bin/sh -c ANNOUNCE_AND_EXEC` which prints
 * the pid in a private escape sequence as its very first bytes, then execs the shell (same pid;
 * with a TTY the exec is a session leader, so the pid is also its process group). The reader
 * takes that sequence off the stream before the session sees any output. No file is written, so
 * it works on a read-only root and in images with nothing but a shell.
 */

const PREFIX = "\x1b]ptyhub-exec-pid;";
const BEL = 0x07;
/** More than the announcement can take: anything else first means the shell did not announce itself. */
const MAX_ANNOUNCE_BYTES = 64;

/** For `/bin/sh -c`: announces `$$`, then runs its arguments ($0 is a name, "$@" the program). */
export const ANNOUNCE_AND_EXEC = `printf '\\033]ptyhub-exec-pid;%s\\007' "$$"; exec "$@"`;

export class PidAnnouncement {
  private head = new Uint8Array(0);
  private done = false;
  /** The shell's pid inside the container, once announced. */
  pid: number | null = null;

  /** Takes a chunk of the stream; returns what of it is the session's output. */
  take(chunk: Uint8Array): Uint8Array {
    if (this.done) return chunk;
    const buf = new Uint8Array(this.head.length + chunk.length);
    buf.set(this.head);
    buf.set(chunk, this.head.length);
    const end = buf.indexOf(BEL);
    if (end < 0 && buf.length < MAX_ANNOUNCE_BYTES) {
      this.head = buf;
      return new Uint8Array(0);
    }
    this.done = true;
    this.head = new Uint8Array(0);
    const text = end < 0 ? "" : new TextDecoder().decode(buf.subarray(0, end));
    if (!text.startsWith(PREFIX)) return buf;
    const pid = Number(text.slice(PREFIX.length));
    this.pid = Number.isInteger(pid) && pid > 0 ? pid : null;
    return buf.subarray(end + 1);
  }

  /** The stream ended: whatever was held back while looking for the announcement is output after all. */
  rest(): Uint8Array {
    this.done = true;
    const held = this.head;
    this.head = new Uint8Array(0);
    return held;
  }
}
