/**
 * Recovers a JSON-RPC message's top-level `id` and `method` from a line too large to keep, one
 * byte at a time and in constant memory, so an oversized request can still get an answer
 * (clients may put `id` anywhere: the TypeScript SDK writes it last, after `params`).
 */

/** Longest `id`/`method` value recovered; longer ones cannot be echoed back and are given up. */
const MAX_CAPTURED_BYTES = 256;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

export interface Envelope {
  id: string | number | null;
  method: string | null;
}

export class EnvelopeScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private expectKey = false;
  private stringIsKey = false;
  private lastKey: string | null = null;
  /** The top-level key whose value is being read ("id" or "method"), else null. */
  private valueFor: string | null = null;
  private captured: number[] = [];
  private capturing = false;
  private overflow = false;
  private readonly found: Envelope = { id: null, method: null };

  feed(bytes: Uint8Array): void {
    for (const b of bytes) this.step(b);
  }

  result(): Envelope {
    this.finishBareValue();
    return { ...this.found };
  }

  private step(b: number): void {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (b === BACKSLASH) this.escaped = true;
      else if (b === QUOTE) return this.endString();
      this.capture(b);
      return;
    }
    switch (b) {
      case QUOTE:
        this.inString = true;
        this.stringIsKey = this.depth === 1 && this.expectKey;
        this.expectKey = false;
        this.startCapture(this.stringIsKey || (this.depth === 1 && this.valueFor !== null));
        return;
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        if (this.depth === 1) this.valueFor = null;
        this.depth++;
        this.expectKey = this.depth === 1 && b === OPEN_OBJECT;
        return;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        this.finishBareValue();
        this.depth--;
        return;
      case COLON:
        if (this.depth === 1) {
          this.valueFor = this.lastKey === "id" || this.lastKey === "method" ? this.lastKey : null;
          this.startCapture(this.valueFor !== null);
        }
        return;
      case COMMA:
        this.finishBareValue();
        if (this.depth === 1) this.expectKey = true;
        return;
      default:
        // Whitespace ends a bare value (a number); anything else is part of one.
        if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) this.finishBareValue();
        else this.capture(b);
    }
  }

  private startCapture(on: boolean): void {
    this.captured = [];
    this.overflow = false;
    this.capturing = on;
  }

  private capture(b: number): void {
    if (!this.capturing) return;
    if (this.captured.length >= MAX_CAPTURED_BYTES) this.overflow = true;
    else this.captured.push(b);
  }

  private text(): string | null {
    return this.overflow ? null : Buffer.from(this.captured).toString("utf8");
  }

  private endString(): void {
    this.inString = false;
    const raw = this.capturing ? this.text() : null;
    this.capturing = false;
    let value: string | null = null;
    try {
      value = raw === null ? null : JSON.parse(`"${raw}"`);
    } catch {
      value = null;
    }
    if (this.stringIsKey) this.lastKey = value;
    else if (this.valueFor === "id") this.found.id = value;
    else if (this.valueFor === "method") this.found.method = value;
    this.stringIsKey = false;
    this.valueFor = null;
  }

  /** A number (the only bare value an id can be) ends at `,`, `}`, whitespace or the line's end. */
  private finishBareValue(): void {
    if (this.valueFor === "id" && this.capturing && this.captured.length > 0) {
      const n = Number(this.text());
      if (Number.isFinite(n)) this.found.id = n;
    }
    if (this.capturing && this.captured.length > 0) {
      this.valueFor = null;
      this.capturing = false;
    }
  }
}
