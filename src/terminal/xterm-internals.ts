/**
 * The one place ptyhub reaches into @xterm/headless's private core. xterm's public `write` is
 * asynchronous (it parses on a later tick); the session needs marks to fire at their exact place
 * in the stream and every reader to see a screen consistent with the bytes received so far, so it
 * parses synchronously through `_core.writeSync`, which xterm marks as internal ("will be removed
 * soon"). The fast path also reads the scroll region and charset, which have no public getters.
 *
 * The xterm version is pinned in package.json. `xtermCore` checks the shape at construction and
 * fails loudly, and test/unit/xterm-internals.test.ts fails the day an upgrade changes it.
 */
import type { IBufferLine, Terminal } from "@xterm/headless";

/** The parts of xterm's internals we rely on. */
export interface XtermCore {
  /** Parses `data` now: handlers (OSC marks) run and the buffer is updated before it returns. */
  writeSync(data: string | Uint8Array): void;
  buffer: { scrollTop: number; scrollBottom: number };
  /** `charset` is the active G-set; xterm assigns it only once a charset is designated. */
  _charsetService: { charset: unknown };
}

function isXtermCore(core: unknown): core is XtermCore {
  if (typeof core !== "object" || core === null) return false;
  const c = core as Record<string, unknown>;
  const buffer = c.buffer as Record<string, unknown> | undefined;
  const charsets = c._charsetService as Record<string, unknown> | undefined;
  return (
    typeof c.writeSync === "function" &&
    typeof buffer?.scrollTop === "number" &&
    typeof buffer?.scrollBottom === "number" &&
    typeof charsets === "object" &&
    charsets !== null &&
    "glevel" in charsets
  );
}

/** The terminal's private core, checked: throws when this xterm build no longer has it. */
export function xtermCore(term: Terminal): XtermCore {
  const core: unknown = Reflect.get(term, "_core");
  if (!isXtermCore(core)) {
    throw new Error(
      "@xterm/headless no longer exposes _core.writeSync/buffer/_charsetService: see src/terminal/xterm-internals.ts",
    );
  }
  return core;
}

/**
 * A buffer line's cells as xterm keeps them: per cell three numbers, the first holding the code
 * point (or a flag saying the text is in `_combined`) and the cell's width.
 */
interface InternalLine {
  _data: Uint32Array;
  _combined: Record<number, string>;
  getTrimmedLength(): number;
}

/** Masks of a cell's first number (xterm's `Content` constants). */
const CODEPOINT_MASK = 0x1fffff;
const IS_COMBINED_MASK = 0x200000;
const WIDTH_SHIFT = 22;
/** What xterm shows for a cell with nothing in it (WHITESPACE_CELL_CHAR). */
const BLANK_CELL = 0x20;

function isInternalLine(line: unknown): line is InternalLine {
  if (typeof line !== "object" || line === null) return false;
  const l = line as Record<string, unknown>;
  return l._data instanceof Uint32Array && typeof l._combined === "object" && typeof l.getTrimmedLength === "function";
}

/** The public line view's BufferLine, or null when this xterm build no longer has it. */
function internalLine(line: IBufferLine): InternalLine | null {
  const inner: unknown = Reflect.get(line, "_line");
  return isInternalLine(inner) ? inner : null;
}

/** Whether `lineText` reads this line through xterm's internals (tests check it still does). */
export function readsInternals(line: IBufferLine): boolean {
  return internalLine(line) !== null;
}

/** UTF-16 code units of the row being converted, reused from row to row. */
const units: number[] = [];

/**
 * The same text as `line.translateToString(true)`, built as one flat string. xterm's own builds
 * the row one `+=` per cell, which in JavaScriptCore is a tree of rope strings (one per cell) that
 * stays a tree until someone reads the text: measured, 40 MB of 48-character lines left 2 million
 * strings and 65 MB of heap in a 42,000-row history, and ~36 bytes of garbage per byte parsed.
 * Falls back to xterm's own where its internals are not there.
 */
export function lineText(line: IBufferLine): string {
  const inner = internalLine(line);
  if (!inner) return line.translateToString(true);
  const data = inner._data;
  const end = inner.getTrimmedLength();
  let n = 0;
  for (let x = 0; x < end; ) {
    const content = data[3 * x]!;
    const code = content & CODEPOINT_MASK;
    if (content & IS_COMBINED_MASK) {
      const text = inner._combined[x] ?? "";
      for (let k = 0; k < text.length; k++) units[n++] = text.charCodeAt(k);
    } else if (code === 0) {
      units[n++] = BLANK_CELL;
    } else if (code < 0x10000) {
      units[n++] = code;
    } else {
      // Outside the basic plane: a surrogate pair, as String.fromCodePoint would give.
      units[n++] = 0xd800 + ((code - 0x10000) >> 10);
      units[n++] = 0xdc00 + ((code - 0x10000) & 0x3ff);
    }
    // A wide character's second cell is skipped, as xterm does (its width is in the first).
    x += content >> WIDTH_SHIFT || 1;
  }
  units.length = n;
  return String.fromCharCode.apply(null, units);
}
