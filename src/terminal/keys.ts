/**
 * Named keys → the bytes a terminal sends for them. Names are case-insensitive; `ctrl+c`, `C-c`,
 * `^C`, `alt+x`, `M-x`, `shift+tab`, `ctrl+left`, `f5` are all accepted, and multi-word names in
 * any common spelling (`pgup`, `page_up`, `page-up`, `prior`). Every name is validated before
 * anything is written, so a typo never sends half a key sequence.
 *
 * Every modifier reaches the program, in xterm's encodings: CSI 1;mod X for cursor keys and
 * F1–F4 (shift+f1 = ESC [ 1 ; 2 P), CSI n;mod ~ for editing keys and F5–F12, ESC prefix for alt.
 * Where xterm's default encoding has no room for the modifier (shift+enter, ctrl+tab,
 * ctrl+shift+a...), the key goes in xterm's modifyOtherKeys form, CSI 27 ; mod ; code ~, which
 * the programs that tell those keys apart (vim, emacs, neovim, TUIs on modern key protocols) read.
 */
import { AppError } from "../api/errors.ts";

/** Cursor keys differ when the application enabled DECCKM (vim, less): ESC O A instead of ESC [ A. */
export interface KeyModes {
  applicationCursorKeys: boolean;
}

const ESC = "\x1b";

const CURSOR_FINALS: Record<string, string> = { up: "A", down: "B", right: "C", left: "D", home: "H", end: "F" };

const PLAIN_KEYS: Record<string, string> = {
  enter: "\r",
  return: "\r",
  tab: "\t",
  escape: ESC,
  esc: ESC,
  space: " ",
  backspace: "\x7f",
  bs: "\x7f",
  delete: `${ESC}[3~`,
  del: `${ESC}[3~`,
  insert: `${ESC}[2~`,
  ins: `${ESC}[2~`,
  pageup: `${ESC}[5~`,
  pgup: `${ESC}[5~`,
  prior: `${ESC}[5~`,
  pagedown: `${ESC}[6~`,
  pgdn: `${ESC}[6~`,
  pgdown: `${ESC}[6~`,
  next: `${ESC}[6~`,
  f1: `${ESC}OP`,
  f2: `${ESC}OQ`,
  f3: `${ESC}OR`,
  f4: `${ESC}OS`,
  f5: `${ESC}[15~`,
  f6: `${ESC}[17~`,
  f7: `${ESC}[18~`,
  f8: `${ESC}[19~`,
  f9: `${ESC}[20~`,
  f10: `${ESC}[21~`,
  f11: `${ESC}[23~`,
  f12: `${ESC}[24~`,
};

/** Keys xterm sends as SS3 final (ESC O P): with a modifier they become CSI 1 ; mod final. */
const SS3_PREFIX = `${ESC}O`;

/** The character codes of keys whose plain byte cannot carry shift or ctrl (modifyOtherKeys form). */
const OTHER_KEY_CODES: Record<string, number> = { enter: 13, return: 13, tab: 9, escape: 27, esc: 27, space: 32 };

/** Control characters for ctrl+<symbol> beyond the letters. */
const CTRL_SYMBOLS: Record<string, string> = {
  "@": "\x00",
  space: "\x00",
  "[": ESC,
  "\\": "\x1c",
  "]": "\x1d",
  "^": "\x1e",
  _: "\x1f",
  "?": "\x7f",
};

/** xterm modifier parameter: 1 + shift(1) + alt(2) + ctrl(4). */
function modifierParam(shift: boolean, alt: boolean, ctrl: boolean): number {
  return 1 + (shift ? 1 : 0) + (alt ? 2 : 0) + (ctrl ? 4 : 0);
}

interface ParsedKey {
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
  base: string;
}

function parseKeyName(raw: string): ParsedKey {
  const name = raw.trim();
  if (name.length === 0) throw badKey(raw);
  // Caret notation: ^C
  if (/^\^.$/.test(name)) return { ctrl: true, alt: false, shift: false, base: name[1]!.toLowerCase() };
  let ctrl = false;
  let alt = false;
  let shift = false;
  // Modifiers come first, each followed by + or -; the rest is the key, whose own name may hold a
  // separator too (page-up, ctrl+-).
  let rest = name;
  for (;;) {
    const m = /^([A-Za-z]+)[+-](.+)$/.exec(rest);
    if (m === null) break;
    const mod = m[1]!.toLowerCase();
    if (mod === "ctrl" || mod === "control" || mod === "c") ctrl = true;
    else if (mod === "alt" || mod === "meta" || mod === "option" || mod === "m") alt = true;
    else if (mod === "shift" || mod === "s") shift = true;
    else break;
    rest = m[2]!;
  }
  // A single character keeps its case (alt+X differs from alt+x); names are case-insensitive and
  // written with or without separators (page_up, page-up, pageup).
  return { ctrl, alt, shift, base: rest.length === 1 ? rest : rest.toLowerCase().replace(/[-_ ]/g, "") };
}

function badKey(raw: string): AppError {
  return new AppError(
    "INVALID_ARGUMENT",
    `unknown key name '${raw}'`,
    "Use names like enter, tab, escape, backspace, up, down, left, right, home, end, pageup (pgup, page_up), " +
      "pagedown (pgdn, page_down), delete, " +
      "f1–f12, ctrl+c, alt+x, shift+tab (C-c and ^C also work), break (serial lines). Send plain text with `text`.",
  );
}

/** `break` is no bytes but a line condition: serial sessions send it after the rest of the input. */
export function isBreakKey(raw: string): boolean {
  return raw.trim().toLowerCase() === "break";
}

/** Encodes one key name into the bytes to write. Throws INVALID_ARGUMENT for an unknown name. */
export function encodeKey(raw: string, modes: KeyModes = { applicationCursorKeys: false }): string {
  if (isBreakKey(raw)) return "";
  const { ctrl, alt, shift, base } = parseKeyName(raw);
  // Browser-style names (ArrowUp, UpArrow) are the cursor keys.
  const lower = base.toLowerCase().replace(/^arrow(?=up$|down$|left$|right$)|^(up|down|left|right)arrow$/, "$1");
  const mod = modifierParam(shift, alt, ctrl);

  const cursorFinal = CURSOR_FINALS[lower];
  if (cursorFinal) {
    if (mod > 1) return `${ESC}[1;${mod}${cursorFinal}`;
    return modes.applicationCursorKeys ? `${ESC}O${cursorFinal}` : `${ESC}[${cursorFinal}`;
  }
  if ((lower === "tab" && shift && !ctrl) || (lower === "backtab" && !ctrl)) return `${alt ? ESC : ""}${ESC}[Z`;

  if (base.length === 1) {
    let ch = base;
    const code = ch.toLowerCase().charCodeAt(0);
    // ctrl+shift+letter: the control byte cannot say shift (xterm: CSI 27 ; 6 ; 'A' ~).
    if (ctrl && shift && code >= 97 && code <= 122) return otherKey(mod, ch.toUpperCase().charCodeAt(0));
    if (ctrl) {
      if (code >= 97 && code <= 122) ch = String.fromCharCode(code - 96);
      else if (CTRL_SYMBOLS[ch] !== undefined) ch = CTRL_SYMBOLS[ch]!;
      else throw badKey(raw);
    } else if (shift) {
      ch = ch.toUpperCase();
    }
    return alt ? ESC + ch : ch;
  }

  if (ctrl && !shift && CTRL_SYMBOLS[lower] !== undefined) return (alt ? ESC : "") + CTRL_SYMBOLS[lower]!;
  const plain = PLAIN_KEYS[lower];
  if (plain === undefined) throw badKey(raw);
  if (mod > 1 && plain.startsWith(`${ESC}[`) && plain.endsWith("~")) {
    // Modified editing/function keys: CSI n ; mod ~
    return plain.slice(0, -1) + `;${mod}~`;
  }
  // Modified F1–F4: CSI 1 ; mod P..S (shift+f1 = ESC [ 1 ; 2 P).
  if (mod > 1 && plain.startsWith(SS3_PREFIX)) return `${ESC}[1;${mod}${plain.slice(SS3_PREFIX.length)}`;
  if (lower === "backspace") {
    if (shift) return otherKey(mod, 0x7f);
    if (ctrl) return (alt ? ESC : "") + "\x08";
  }
  const other = OTHER_KEY_CODES[lower];
  if (other !== undefined && (shift || ctrl)) return otherKey(mod, other);
  return alt ? ESC + plain : plain;
}

/** xterm's modifyOtherKeys form of a key its plain byte cannot modify: CSI 27 ; mod ; code ~. */
function otherKey(mod: number, code: number): string {
  return `${ESC}[27;${mod};${code}~`;
}

/** Validates and encodes a list of keys; nothing is returned (or sent) unless all are valid. */
export function encodeKeys(names: readonly string[], modes?: KeyModes): string {
  return names.map((k) => encodeKey(k, modes)).join("");
}
