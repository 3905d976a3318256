/**
 * The shell's questions (J marks: bash and zsh ask before each command they run, fish before each line) cut
 * out of its output before anything else sees it. They are ptyhub's, not the program's, and they
 * come between two commands of one line: left in, one could split a character the first command
 * left unfinished from the rest the second prints (the emulator drops a UTF-8 sequence an escape
 * interrupts). A mark split across two reads is not cut here; the emulator's OSC handler still
 * takes it as a question, so nothing is lost but that one character's chance.
 */
import { OSC_MARK_ID } from "../terminal/shell-scripts.ts";

const BEL = 0x07;

/** The OSC payloads (`nonce;J;…`, for parseMark) of the questions in `data`, and the rest of it. */
export interface CutQuestions {
  rest: Uint8Array;
  payloads: string[];
}

export class QuestionCutter {
  private readonly prefix: Buffer;
  /** Where the payload starts within a mark: after ESC ] and the mark id's `NNNN;`. */
  private readonly payloadOffset: number;

  constructor(nonce: string) {
    const intro = `\x1b]${OSC_MARK_ID};`;
    this.prefix = Buffer.from(`${intro}${nonce};J;`);
    this.payloadOffset = intro.length;
  }

  /** null when `data` holds no whole question (the common case: nothing is copied). */
  cut(data: Uint8Array): CutQuestions | null {
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    let at = bytes.indexOf(this.prefix);
    if (at < 0) return null;
    const kept: Uint8Array[] = [];
    const payloads: string[] = [];
    let from = 0;
    while (at >= 0) {
      const end = bytes.indexOf(BEL, at + this.prefix.length);
      if (end < 0) break; // Its end comes in a later read: left to the emulator.
      kept.push(bytes.subarray(from, at));
      payloads.push(bytes.subarray(at + this.payloadOffset, end).toString("utf8"));
      from = end + 1;
      at = bytes.indexOf(this.prefix, from);
    }
    if (payloads.length === 0) return null;
    kept.push(bytes.subarray(from));
    return { rest: Buffer.concat(kept), payloads };
  }
}
