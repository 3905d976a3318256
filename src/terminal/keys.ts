/**
 * Named keys → the bytes a terminal sends for them. Names are case-insensitive; `ctrl+c`, `C-c`,
 * `^C`, `alt+x`, `M-x`, `shift+tab`, `ctrl+left`, `f5` are all accepted. Every name is validated
 * before anything is written, so a typo never sends half a key sequence.
 */
import { AppError } from "../errors.ts";

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
  pagedown: `${ESC}[6~`,
  pgdn: `${ESC}[6~`,
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
  // Split on + or - separators but keep a trailing literal '+'/'-' (e.g. "ctrl+-").
  const parts: string[] = [];
  let current = "";
  for (let i = 0; i < name.length; i++) {
    const ch = name[i]!;
    if ((ch === "+" || ch === "-") && current.length > 0 && i < name.length - 1) {
      parts.push(current);
      current = "";
    } else {
      current += ch;
    }
  }
  parts.push(current);
  const base = parts.pop()!;
  for (const mod of parts) {
    switch (mod.toLowerCase()) {
      case "ctrl":
      case "control":
      case "c":
        ctrl = true;
        break;
      case "alt":
      case "meta":
      case "option":
      case "m":
        alt = true;
        break;
      case "shift":
      case "s":
        shift = true;
        break;
      default:
        throw badKey(raw);
    }
  }
  // A single character keeps its case (alt+X differs from alt+x); names are case-insensitive.
  return { ctrl, alt, shift, base: base.length === 1 ? base : base.toLowerCase() };
}

function badKey(raw: string): AppError {
  return new AppError(
    "INVALID_ARGUMENT",
    `unknown key name '${raw}'`,
    "Use names like enter, tab, escape, backspace, up, down, left, right, home, end, pageup, pagedown, delete, " +
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
  const lower = base.toLowerCase();
  const mod = modifierParam(shift, alt, ctrl);

  const cursorFinal = CURSOR_FINALS[lower];
  if (cursorFinal) {
    if (mod > 1) return `${ESC}[1;${mod}${cursorFinal}`;
    return modes.applicationCursorKeys ? `${ESC}O${cursorFinal}` : `${ESC}[${cursorFinal}`;
  }
  if (lower === "tab" && shift && !ctrl && !alt) return `${ESC}[Z`;

  if (base.length === 1) {
    let ch = base;
    if (ctrl) {
      const code = ch.toLowerCase().charCodeAt(0);
      if (code >= 97 && code <= 122) ch = String.fromCharCode(code - 96);
      else if (CTRL_SYMBOLS[ch] !== undefined) ch = CTRL_SYMBOLS[ch]!;
      else throw badKey(raw);
    } else if (shift) {
      ch = ch.toUpperCase();
    }
    return alt ? ESC + ch : ch;
  }

  if (ctrl && CTRL_SYMBOLS[lower] !== undefined) return (alt ? ESC : "") + CTRL_SYMBOLS[lower]!;
  const plain = PLAIN_KEYS[lower];
  if (plain === undefined) throw badKey(raw);
  if (mod > 1 && plain.startsWith(`${ESC}[`) && plain.endsWith("~")) {
    // Modified editing/function keys: CSI n ; mod ~
    return plain.slice(0, -1) + `;${mod}~`;
  }
  if (ctrl && lower === "backspace") return (alt ? ESC : "") + "\x08";
  return alt ? ESC + plain : plain;
}

/** Validates and encodes a list of keys; nothing is returned (or sent) unless all are valid. */
export function encodeKeys(names: readonly string[], modes?: KeyModes): string {
  return names.map((k) => encodeKey(k, modes)).join("");
}
