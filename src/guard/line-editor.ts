/**
 * What a shell's line editor (readline, zle, libedit, busybox's) will submit when given bytes:
 * the guard judges those lines before any byte that submits one is written. The model starts from
 * the line as the screen shows it and the cursor in it, applies the editing keys that change a
 * line in every common editor (insert, move, delete, kill and yank), and ends a line at each byte
 * that submits it: CR, LF (^J, ^M in any spelling) and ^O (bash's operate-and-get-next). Pasted
 * text (bracketed paste) is inserted, newlines included; a paste with a newline is judged as if
 * it submitted the line (some programs run it), without ending the line.
 *
 * Keys whose effect depends on state it cannot see (history, completion) leave the line as it
 * was, and the result says a line was submitted after one (`unseen`): the caller cannot know it.
 */

const ESC = "\x1b";
const PASTE_START = `${ESC}[200~`;
const PASTE_END = `${ESC}[201~`;
/** Bytes that make a line editor submit its line. */
export const SUBMIT_BYTES = /[\r\n\x0f]/;
/**
 * The same keys with a modifier, as xterm's modifyOtherKeys (CSI 27 ; mod ; code ~) and the kitty
 * keyboard protocol (CSI code ; mod u) send them: 13 (Enter, ^M), 10 (^J), 15 (^O).
 */
const MODIFIED_SUBMIT_KEY = "\\x1b\\[(?:27;\\d+;(?:13|10|15)~|(?:13|10|15);\\d+u)";
const MODIFIED_SUBMIT = new RegExp(`^${MODIFIED_SUBMIT_KEY}`);
const SUBMITS_ANYWHERE = new RegExp(`${SUBMIT_BYTES.source}|${MODIFIED_SUBMIT_KEY}`);

/** Whether typing `bytes` may submit a line (cheap: decides whether the line editor is modelled). */
export function maySubmit(bytes: string): boolean {
  return SUBMITS_ANYWHERE.test(bytes);
}

/** Escape sequences (after ESC) that move the cursor or delete, by their final form. */
const SEQUENCE_ACTIONS: Record<string, Action> = {
  "[H": "home",
  OH: "home",
  "[1~": "home",
  "[7~": "home",
  "[F": "end",
  OF: "end",
  "[4~": "end",
  "[8~": "end",
  "[D": "left",
  OD: "left",
  "[C": "right",
  OC: "right",
  "[3~": "delete",
  b: "wordLeft",
  f: "wordRight",
  d: "killWordRight",
  "\x7f": "killWordLeft",
  "\b": "killWordLeft",
};

/** Keys that put on the line what the model cannot see: history, search, completion, last argument. */
const UNSEEN_SEQUENCES = new Set(["[A", "[B", "OA", "OB", "[5~", "[6~", ".", "_", "y", "\x19", "<", ">"]);
const UNSEEN_CONTROLS = new Set(["\x10", "\x0e", "\x12", "\x13", "\t", "\x18"]);

/** Control characters' editing actions (emacs bindings, the default of bash, zsh, busybox sh). */
const CONTROL_ACTIONS: Record<string, Action> = {
  "\x01": "home",
  "\x05": "end",
  "\x02": "left",
  "\x06": "right",
  "\x7f": "backspace",
  "\b": "backspace",
  "\x04": "delete",
  "\x0b": "killRight",
  "\x15": "killLeft",
  "\x17": "killWordLeft",
  "\x19": "yank",
  "\x03": "cancel",
};

type Action =
  | "home"
  | "end"
  | "left"
  | "right"
  | "wordLeft"
  | "wordRight"
  | "backspace"
  | "delete"
  | "killRight"
  | "killLeft"
  | "killWordLeft"
  | "killWordRight"
  | "yank"
  | "cancel";

export interface EditResult {
  /** Each line the bytes submit, in order. */
  submitted: string[];
  /** A ^C came before the last submission: lines pending before it were abandoned. */
  cancelled: boolean;
  /** A line was submitted after a key whose effect cannot be seen here (history, completion). */
  unseen: boolean;
}

class LineModel {
  private killed = "";
  cancelled = false;

  constructor(
    public line: string,
    public cursor: number,
  ) {
    this.cursor = Math.max(0, Math.min(cursor, line.length));
  }

  insert(text: string): void {
    this.line = this.line.slice(0, this.cursor) + text + this.line.slice(this.cursor);
    this.cursor += text.length;
  }

  private kill(from: number, to: number): void {
    this.killed = this.line.slice(from, to);
    this.line = this.line.slice(0, from) + this.line.slice(to);
    this.cursor = from;
  }

  private wordStartBefore(): number {
    let i = this.cursor;
    while (i > 0 && /\s/.test(this.line[i - 1]!)) i--;
    while (i > 0 && !/\s/.test(this.line[i - 1]!)) i--;
    return i;
  }

  private wordEndAfter(): number {
    let i = this.cursor;
    while (i < this.line.length && /\s/.test(this.line[i]!)) i++;
    while (i < this.line.length && !/\s/.test(this.line[i]!)) i++;
    return i;
  }

  apply(action: Action): void {
    const len = this.line.length;
    switch (action) {
      case "home":
        this.cursor = 0;
        break;
      case "end":
        this.cursor = len;
        break;
      case "left":
        this.cursor = Math.max(0, this.cursor - 1);
        break;
      case "right":
        this.cursor = Math.min(len, this.cursor + 1);
        break;
      case "wordLeft":
        this.cursor = this.wordStartBefore();
        break;
      case "wordRight":
        this.cursor = this.wordEndAfter();
        break;
      case "backspace":
        if (this.cursor > 0) this.kill(this.cursor - 1, this.cursor);
        break;
      case "delete":
        if (this.cursor < len) this.kill(this.cursor, this.cursor + 1);
        break;
      case "killRight":
        this.kill(this.cursor, len);
        break;
      case "killLeft":
        this.kill(0, this.cursor);
        break;
      case "killWordLeft":
        this.kill(this.wordStartBefore(), this.cursor);
        break;
      case "killWordRight":
        this.kill(this.cursor, this.wordEndAfter());
        break;
      case "yank":
        this.insert(this.killed);
        break;
      case "cancel":
        this.line = "";
        this.cursor = 0;
        this.cancelled = true;
        break;
    }
  }

  /** Submits the line: it is returned and the editor starts a new, empty one. */
  submit(): string {
    const line = this.line;
    this.line = "";
    this.cursor = 0;
    return line;
  }
}

/** The escape sequence starting at `bytes[i]` (ESC): its text after ESC, and its length. */
function escapeSequence(bytes: string, i: number): { body: string; length: number } {
  const rest = bytes.slice(i + 1);
  const csi = /^\[[0-9;?]*[ -/]*[@-~]/.exec(rest);
  if (csi) return { body: csi[0].replace(/;\d+(?=[A-Z~])/, ""), length: 1 + csi[0].length };
  const ss3 = /^O./.exec(rest);
  if (ss3) return { body: ss3[0], length: 1 + ss3[0].length };
  return { body: rest.slice(0, 1), length: rest.length > 0 ? 2 : 1 };
}

/**
 * The lines `bytes` submit, typed at a line editor that holds `line` with the cursor at `cursor`.
 * Bytes after the last submission only edit the next line (not returned: nothing submits it).
 */
export function submittedLines(line: string, cursor: number, bytes: string): EditResult {
  const model = new LineModel(line, cursor);
  const submitted: string[] = [];
  let cancelledBefore = false;
  let unseenKey = false;
  let unseen = false;
  let i = 0;
  while (i < bytes.length) {
    if (bytes.startsWith(PASTE_START, i)) {
      const end = bytes.indexOf(PASTE_END, i);
      const stop = end === -1 ? bytes.length : end;
      const pasted = bytes.slice(i + PASTE_START.length, stop).replace(/\r\n?/g, "\n");
      model.insert(pasted);
      // Editors differ on a pasted newline (bash inserts it, others run the line): judged as submitted.
      if (pasted.includes("\n")) submitted.push(model.line);
      i = end === -1 ? bytes.length : end + PASTE_END.length;
      continue;
    }
    const c = bytes[i]!;
    if (SUBMIT_BYTES.test(c)) {
      submitted.push(model.submit());
      cancelledBefore ||= model.cancelled;
      unseen ||= unseenKey;
      unseenKey = false;
      i++;
      continue;
    }
    if (c === ESC && MODIFIED_SUBMIT.test(bytes.slice(i))) {
      // Enter, ^J or ^O with a modifier (term_send's shift+enter, ctrl+enter): a program that reads
      // modified keys takes it for the key itself, so it submits like the plain byte.
      submitted.push(model.submit());
      cancelledBefore ||= model.cancelled;
      unseen ||= unseenKey;
      unseenKey = false;
      i += MODIFIED_SUBMIT.exec(bytes.slice(i))![0].length;
      continue;
    }
    if (c === ESC) {
      const seq = escapeSequence(bytes, i);
      const action = SEQUENCE_ACTIONS[seq.body];
      if (action) model.apply(action);
      unseenKey ||= UNSEEN_SEQUENCES.has(seq.body);
      i += seq.length;
      continue;
    }
    if (c === "\x16" && i + 1 < bytes.length) {
      // ^V: the next character is inserted as it is (a literal ^M does not submit).
      model.insert(bytes[i + 1]!);
      i += 2;
      continue;
    }
    const action = CONTROL_ACTIONS[c];
    unseenKey ||= UNSEEN_CONTROLS.has(c);
    if (action) model.apply(action);
    else if (c >= " ") model.insert(c);
    i++;
  }
  return { submitted, cancelled: cancelledBefore, unseen };
}
