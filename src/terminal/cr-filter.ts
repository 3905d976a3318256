/**
 * Progress-bar semantics for a bare carriage return. A real terminal shows
 * `printf 'loading\rdone\n'` as "doneing"; what the program meant, and what a model should read,
 * is "done". So while a program's output is flowing on the normal screen, a CR that is not part
 * of CR LF is followed by "erase to end of line" (ESC [ K). Line editors (readline at a prompt)
 * redraw with bare CRs too and rely on the rest of the line surviving, so the session turns this
 * off while its shell is at the prompt, and it never applies on the alternate screen.
 */

const CR = 0x0d;
const LF = 0x0a;
const ERASE_TO_EOL = new Uint8Array([0x1b, 0x5b, 0x4b]);

export class BareCrFilter {
  /** The previous chunk ended in a CR whose successor was not known yet. */
  private pendingCr = false;

  constructor(private readonly enabled: () => boolean) {}

  /** A CR ended the last chunk and its meaning depends on the next byte. */
  get pending(): boolean {
    return this.pendingCr;
  }

  apply(data: Uint8Array, altScreen: boolean): Uint8Array {
    if (altScreen || !this.enabled()) {
      this.pendingCr = false;
      return data;
    }
    let extra = 0;
    const lead = this.pendingCr && data.length > 0 && data[0] !== LF && data[0] !== CR;
    if (lead) extra++;
    let idx = data.indexOf(CR);
    if (idx < 0 && !lead) {
      this.pendingCr = false;
      return data;
    }
    const bare: number[] = [];
    while (idx >= 0) {
      if (idx + 1 < data.length) {
        const next = data[idx + 1];
        if (next !== LF && next !== CR) bare.push(idx);
      }
      idx = data.indexOf(CR, idx + 1);
    }
    this.pendingCr = data.length > 0 && data[data.length - 1] === CR;
    extra += bare.length;
    if (extra === 0) return data;
    const out = new Uint8Array(data.length + extra * ERASE_TO_EOL.length);
    let o = 0;
    if (lead) {
      out.set(ERASE_TO_EOL, 0);
      o = ERASE_TO_EOL.length;
    }
    let from = 0;
    for (const at of bare) {
      out.set(data.subarray(from, at + 1), o);
      o += at + 1 - from;
      out.set(ERASE_TO_EOL, o);
      o += ERASE_TO_EOL.length;
      from = at + 1;
    }
    out.set(data.subarray(from), o);
    return out;
  }
}
