/**
 * A bound on what an unterminated control string may hold. xterm buffers the payload of an OSC
 * (title, hyperlink, our marks) or DCS it has a handler for until its terminator, up to 10 MB per
 * string, as a rope of small pieces: a program printing `ESC ] 2 ;` and then text without end took
 * the daemon from 77 to 391 MB (issue 23). Past MAX_STRING_BYTES of payload this filter ends the
 * string for xterm itself (ST) and drops the rest of it, up to its real terminator; every other
 * byte passes unchanged, and a chunk without such a string is returned as it came (no copy).
 *
 * As in xterm's parser, a string starts at ESC ] (OSC) or ESC P (DCS) and ends at BEL, CAN, SUB
 * or ESC (ESC \ is ST; any other ESC also ends it and begins a new sequence).
 */

/** Longer than any mark, title, hyperlink or clipboard set a terminal session needs to see. */
export const MAX_STRING_BYTES = 64 * 1024;

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const OSC_INTRO = 0x5d; // ]
const DCS_INTRO = 0x50; // P
const ST_FINAL = 0x5c; // backslash
const ST = new Uint8Array([ESC, ST_FINAL]);

type State =
  | "text"
  /** An ESC ended the last chunk: the next byte says whether a string starts. */
  | "escape"
  | "string"
  /** Past the bound: bytes are dropped until the terminator. */
  | "discard"
  /** An ESC ended the last chunk while discarding: ST (dropped too) or a new sequence (kept). */
  | "discard-escape";

const endsString = (b: number) => b === BEL || b === CAN || b === SUB || b === ESC;

export class StringBound {
  private state: State = "text";
  private held = 0;

  apply(data: Uint8Array): Uint8Array {
    const out: Uint8Array[] = [];
    let kept = 0; // Start of the bytes not yet copied to `out`.
    let changed = false;
    let i = 0;
    const drop = (from: number, to: number) => {
      if (from > kept) out.push(data.subarray(kept, from));
      kept = to;
      changed = true;
    };
    while (i < data.length) {
      const b = data[i]!;
      switch (this.state) {
        case "text": {
          const esc = data.indexOf(ESC, i);
          if (esc < 0) {
            i = data.length;
            break;
          }
          this.state = "escape";
          i = esc + 1;
          break;
        }
        case "escape":
          if (b === OSC_INTRO || b === DCS_INTRO) {
            this.state = "string";
            this.held = 0;
            i++;
          } else {
            this.state = "text"; // Not a string: this byte is looked at as text (it may be ESC).
          }
          break;
        case "string": {
          // The payload runs to its terminator or to the bound, whichever comes first.
          const room = MAX_STRING_BYTES - this.held;
          let j = i;
          while (j < data.length && j - i <= room && !endsString(data[j]!)) j++;
          if (j < data.length && endsString(data[j]!)) {
            this.held += j - i;
            this.state = "text"; // The terminator (or a new ESC) is looked at as text.
            i = j;
          } else if (j - i > room) {
            drop(i + room, i + room);
            out.push(ST);
            this.state = "discard";
            i += room;
          } else {
            this.held += j - i;
            i = j;
          }
          break;
        }
        case "discard": {
          let j = i;
          while (j < data.length && !endsString(data[j]!)) j++;
          if (j === data.length) {
            drop(i, j);
            i = j;
            break;
          }
          drop(i, j + 1);
          this.state = data[j] === ESC ? "discard-escape" : "text";
          i = j + 1;
          break;
        }
        case "discard-escape":
          if (b === ST_FINAL) {
            drop(i, i + 1);
            i++;
          } else {
            // The dropped ESC began a new sequence: give it back, and look at this byte after it.
            drop(i, i);
            out.push(new Uint8Array([ESC]));
            this.state = "escape";
            break;
          }
          this.state = "text";
          break;
      }
    }
    if (!changed) return data;
    if (kept < data.length) out.push(data.subarray(kept));
    return concat(out);
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
