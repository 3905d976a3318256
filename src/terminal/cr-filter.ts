/**
 * Progress-bar semantics for a bare carriage return. A real terminal shows
 * `printf 'loading\rdone\n'` as "doneing"; what the program meant, and what a model should read,
 * is "done". Line editors (linenoise in redis-cli, readline, busybox) also return with a bare CR,
 * but then redraw the line themselves: they rewrite it and erase the rest (ESC [ K), or move the
 * cursor back over text that must stay (`prompt> hello` CR ESC [ 13 C). Erasing at the CR, as
 * this filter once did, blanked every such line.
 *
 * So the erase is deferred: a bare CR arms the filter, and only when the line is then finished
 * by plain text alone (printable bytes, tabs, colours) and ends with the next CR or LF is the
 * rest of the line erased, at the cursor, before that CR or LF. Any other control (a cursor
 * move, an erase, a backspace, any escape sequence but SGR) means the program is drawing the
 * line itself: the filter disarms and the screen is exactly what a real terminal shows. The one
 * documented difference from a real terminal is therefore the progress-bar case above.
 *
 * The session turns the filter off while its shell is at the prompt, and it never applies on
 * the alternate screen.
 */

const CR = 0x0d;
const LF = 0x0a;
const ESC = 0x1b;
const TAB = 0x09;
const BEL = 0x07;
const ERASE_TO_EOL = new Uint8Array([0x1b, 0x5b, 0x4b]);

export class BareCrFilter {
  /** A bare CR was seen and since then only plain text went to the line. */
  private armed = false;
  /** Plain text was written after the arming CR: the line's rest is erased when it ends. */
  private dirty = false;

  constructor(private readonly enabled: () => boolean) {}

  /**
   * A CR armed the filter and the line has not ended yet: what comes next may get an erase
   * inserted, so the plain-text fast path (which bypasses the filter) must not take it.
   */
  get pending(): boolean {
    return this.armed;
  }

  apply(data: Uint8Array, altScreen: boolean): Uint8Array {
    if (altScreen || !this.enabled()) {
      this.armed = false;
      this.dirty = false;
      return data;
    }
    // Positions before which ESC [ K goes (a CR or LF that ends a plainly rewritten line).
    const eraseAt: number[] = [];
    let i = 0;
    while (i < data.length) {
      if (!this.armed) {
        // Nothing to do until the next CR: skip there at indexOf speed.
        const cr = data.indexOf(CR, i);
        if (cr < 0) break;
        this.armed = true;
        this.dirty = false;
        i = cr + 1;
        continue;
      }
      const b = data[i]!;
      if (b === CR || b === LF) {
        if (this.dirty) eraseAt.push(i);
        // A CR arms again (its successor decides nothing: an LF right after it just disarms).
        this.armed = b === CR;
        this.dirty = false;
        i++;
      } else if (b === ESC) {
        const sgrEnd = sgrEndAt(data, i);
        if (sgrEnd < 0) this.armed = false;
        i = sgrEnd < 0 ? i + 1 : sgrEnd;
      } else if (b >= 0x20 || b === TAB) {
        this.dirty = true;
        i++;
      } else {
        // BEL changes nothing on screen; any other control (BS, VT, FF, SO/SI...) moves or alters.
        if (b !== BEL) this.armed = false;
        i++;
      }
    }
    if (eraseAt.length === 0) return data;
    const out = new Uint8Array(data.length + eraseAt.length * ERASE_TO_EOL.length);
    let o = 0;
    let from = 0;
    for (const at of eraseAt) {
      out.set(data.subarray(from, at), o);
      o += at - from;
      out.set(ERASE_TO_EOL, o);
      o += ERASE_TO_EOL.length;
      from = at;
    }
    out.set(data.subarray(from), o);
    return out;
  }
}

/**
 * The end of an SGR sequence (ESC [ digits/semicolons/colons m) starting at `at`, or -1 when it is
 * anything else or not complete in this chunk (then the filter disarms: the safe side, as the
 * screen is then exactly a real terminal's).
 */
function sgrEndAt(data: Uint8Array, at: number): number {
  if (data[at + 1] !== 0x5b) return -1;
  for (let j = at + 2; j < data.length; j++) {
    const c = data[j]!;
    if (c === 0x6d) return j + 1;
    const digit = c >= 0x30 && c <= 0x39;
    if (!digit && c !== 0x3b && c !== 0x3a) return -1;
  }
  return -1;
}
