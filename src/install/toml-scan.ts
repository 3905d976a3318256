/**
 * Finds the top-level statements of a TOML document (table headers and key/value pairs) with
 * their byte ranges, so one table can be added, replaced or removed by splicing while every other
 * byte stays as it was. It follows strings, multi-line strings, arrays and comments to find where
 * statements end; it does not judge values — callers validate the whole file with Bun.TOML first.
 */
import { ConfigEditError } from "./config-edit.ts";

export interface TomlStatement {
  kind: "table" | "array-table" | "keyval";
  /** The header's key path, or the (dotted) key of a key/value pair. */
  path: string[];
  /** Offset where the statement's line starts. */
  start: number;
  /** Offset just past the newline ending the statement (or the end of the text). */
  end: number;
}

const BARE_KEY = /[A-Za-z0-9_-]+/y;
const BASIC_ESCAPES: Record<string, string> = { b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", '"': '"', "\\": "\\" };

class Scanner {
  private pos = 0;

  constructor(private readonly text: string) {
    if (text.startsWith("\uFEFF")) this.pos = 1;
  }

  private fail(message: string): never {
    const line = this.text.slice(0, this.pos).split("\n").length;
    throw new ConfigEditError(`line ${line}: ${message}`);
  }

  private peek(offset = 0): string | undefined {
    return this.text[this.pos + offset];
  }

  private skipSpaces(): void {
    while (this.peek() === " " || this.peek() === "\t") this.pos++;
  }

  private atLineEnd(): boolean {
    const ch = this.peek();
    return ch === undefined || ch === "\n" || (ch === "\r" && this.peek(1) === "\n");
  }

  private skipToLineEnd(): void {
    while (!this.atLineEnd()) this.pos++;
  }

  /** Consumes the newline at the current position, if any. */
  private consumeNewline(): void {
    if (this.peek() === "\r") this.pos++;
    if (this.peek() === "\n") this.pos++;
  }

  /** After a statement: optional spaces and comment, then the end of the line. */
  private finishLine(): void {
    this.skipSpaces();
    if (this.peek() === "#") this.skipToLineEnd();
    if (!this.atLineEnd()) this.fail("unexpected text after a statement");
    this.consumeNewline();
  }

  statements(): TomlStatement[] {
    const out: TomlStatement[] = [];
    while (this.pos < this.text.length) {
      const start = this.pos;
      this.skipSpaces();
      const ch = this.peek();
      if (ch === "#") {
        this.skipToLineEnd();
        this.consumeNewline();
      } else if (this.atLineEnd()) {
        this.consumeNewline();
      } else if (ch === "[") {
        const array = this.peek(1) === "[";
        this.pos += array ? 2 : 1;
        const path = this.keyPath();
        for (let i = 0; i < (array ? 2 : 1); i++) {
          if (this.peek() !== "]") this.fail("unterminated table header");
          this.pos++;
        }
        this.finishLine();
        out.push({ kind: array ? "array-table" : "table", path, start, end: this.pos });
      } else {
        const path = this.keyPath();
        if (this.peek() !== "=") this.fail("expected '=' after a key");
        this.pos++;
        this.value();
        this.finishLine();
        out.push({ kind: "keyval", path, start, end: this.pos });
      }
    }
    return out;
  }

  private keyPath(): string[] {
    const path: string[] = [];
    for (;;) {
      this.skipSpaces();
      const ch = this.peek();
      if (ch === '"') path.push(this.basicString());
      else if (ch === "'") path.push(this.literalString());
      else {
        BARE_KEY.lastIndex = this.pos;
        const bare = BARE_KEY.exec(this.text);
        if (!bare) this.fail("expected a key");
        path.push(bare[0]);
        this.pos += bare[0].length;
      }
      this.skipSpaces();
      if (this.peek() !== ".") return path;
      this.pos++;
    }
  }

  private basicString(): string {
    this.pos++; // "
    let out = "";
    for (;;) {
      const ch = this.peek();
      if (ch === undefined || ch === "\n" || ch === "\r") this.fail("unterminated string");
      this.pos++;
      if (ch === '"') return out;
      if (ch !== "\\") {
        out += ch;
        continue;
      }
      const esc = this.peek();
      const hexDigits = esc === "u" ? 4 : esc === "U" ? 8 : 0;
      if (hexDigits > 0) {
        out += String.fromCodePoint(parseInt(this.text.slice(this.pos + 1, this.pos + 1 + hexDigits), 16));
        this.pos += 1 + hexDigits;
      } else if (esc !== undefined && BASIC_ESCAPES[esc] !== undefined) {
        out += BASIC_ESCAPES[esc];
        this.pos++;
      } else {
        this.fail("invalid escape in a string");
      }
    }
  }

  private literalString(): string {
    const close = this.text.indexOf("'", this.pos + 1);
    const lineEnd = this.text.indexOf("\n", this.pos + 1);
    if (close < 0 || (lineEnd >= 0 && lineEnd < close)) this.fail("unterminated string");
    const value = this.text.slice(this.pos + 1, close);
    this.pos = close + 1;
    return value;
  }

  /** Skips a multi-line string whose delimiter (`"""` or `'''`) starts at the current position. */
  private multilineString(quote: '"' | "'"): void {
    const delimiter = quote.repeat(3);
    this.pos += 3;
    for (;;) {
      if (this.pos >= this.text.length) this.fail("unterminated multi-line string");
      if (quote === '"' && this.peek() === "\\") {
        this.pos += 2;
      } else if (this.text.startsWith(delimiter, this.pos)) {
        this.pos += 3;
        // Up to two quotes right before the delimiter belong to the content: `""""x"""""`.
        for (let i = 0; i < 2 && this.peek() === quote; i++) this.pos++;
        return;
      } else {
        this.pos++;
      }
    }
  }

  /** Skips one value, which may span lines inside brackets or multi-line strings. */
  private value(): void {
    let depth = 0;
    this.skipSpaces();
    for (;;) {
      const ch = this.peek();
      if (ch === undefined || (depth === 0 && this.atLineEnd())) {
        if (depth > 0) this.fail("unterminated array or inline table");
        return;
      }
      if (ch === '"' || ch === "'") {
        if (this.text.startsWith(ch.repeat(3), this.pos)) this.multilineString(ch);
        else if (ch === '"') this.basicString();
        else this.literalString();
      } else if (ch === "[" || ch === "{") {
        depth++;
        this.pos++;
      } else if (ch === "]" || ch === "}") {
        if (--depth < 0) this.fail(`unbalanced '${ch}'`);
        this.pos++;
      } else if (ch === "#") {
        if (depth === 0) return; // the comment ends the statement; finishLine skips it
        this.skipToLineEnd();
      } else {
        this.pos++;
      }
    }
  }
}

export function scanTomlStatements(text: string): TomlStatement[] {
  return new Scanner(text).statements();
}
