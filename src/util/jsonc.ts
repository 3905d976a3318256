/**
 * A small JSON-with-comments parser that keeps source offsets, so config files can be edited by
 * splicing text instead of re-serializing them. Re-serializing would reformat the user's file,
 * drop their comments and round big numbers; splicing changes only the bytes we mean to change.
 *
 * Accepts what VS Code's jsonc accepts: `//` and `/* *\/` comments and trailing commas. Anything
 * else that is not JSON is a JsoncSyntaxError with a line and column.
 */

export type JsonNode = JsonObjectNode | JsonArrayNode | JsonScalarNode;

interface NodeRange {
  /** Offset of the node's first character. */
  start: number;
  /** Offset just past the node's last character. */
  end: number;
}

export interface JsonObjectNode extends NodeRange {
  type: "object";
  properties: JsonProperty[];
}

export interface JsonArrayNode extends NodeRange {
  type: "array";
  items: JsonNode[];
}

export interface JsonScalarNode extends NodeRange {
  type: "string" | "number" | "boolean" | "null";
  value: string | number | boolean | null;
}

export interface JsonProperty {
  key: string;
  /** Offset of the key's opening quote: where the property starts. */
  start: number;
  value: JsonNode;
  /** Offset of the comma after the value, or -1 when none follows. */
  commaAt: number;
}

export interface JsoncDocument {
  text: string;
  /** null for a file that holds only whitespace. */
  root: JsonNode | null;
  /** [start, end) of every comment, in order. */
  comments: Array<[number, number]>;
}

export class JsoncSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`line ${line}, column ${column}: ${message}`);
    this.name = "JsoncSyntaxError";
  }
}

const NUMBER_PATTERN = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const BYTE_ORDER_MARK = "\uFEFF";

class Parser {
  private pos = 0;
  readonly comments: Array<[number, number]> = [];

  constructor(private readonly text: string) {
    if (text.startsWith(BYTE_ORDER_MARK)) this.pos = BYTE_ORDER_MARK.length;
  }

  parseDocument(): JsoncDocument {
    this.skipTrivia();
    if (this.pos >= this.text.length) return { text: this.text, root: null, comments: this.comments };
    const root = this.parseValue();
    this.skipTrivia();
    if (this.pos < this.text.length) this.fail("unexpected content after the end of the document");
    return { text: this.text, root, comments: this.comments };
  }

  private fail(message: string, at = this.pos): never {
    const before = this.text.slice(0, at);
    const line = before.split("\n").length;
    const column = at - before.lastIndexOf("\n");
    throw new JsoncSyntaxError(message, line, column);
  }

  private skipTrivia(): void {
    const text = this.text;
    while (this.pos < text.length) {
      const ch = text[this.pos]!;
      if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r") {
        this.pos++;
      } else if (text.startsWith("//", this.pos)) {
        const start = this.pos;
        while (this.pos < text.length && text[this.pos] !== "\n" && text[this.pos] !== "\r") this.pos++;
        this.comments.push([start, this.pos]);
      } else if (text.startsWith("/*", this.pos)) {
        const start = this.pos;
        const close = text.indexOf("*/", this.pos + 2);
        if (close < 0) this.fail("unterminated /* comment");
        this.pos = close + 2;
        this.comments.push([start, this.pos]);
      } else {
        return;
      }
    }
  }

  private parseValue(): JsonNode {
    const ch = this.text[this.pos];
    if (ch === "{") return this.parseObject();
    if (ch === "[") return this.parseArray();
    if (ch === '"') {
      const start = this.pos;
      const value = this.parseString();
      return { type: "string", start, end: this.pos, value };
    }
    for (const [word, value] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (this.text.startsWith(word, this.pos)) {
        const start = this.pos;
        this.pos += word.length;
        return { type: value === null ? "null" : "boolean", start, end: this.pos, value };
      }
    }
    NUMBER_PATTERN.lastIndex = this.pos;
    const number = NUMBER_PATTERN.exec(this.text);
    if (number) {
      const start = this.pos;
      this.pos += number[0].length;
      return { type: "number", start, end: this.pos, value: Number(number[0]) };
    }
    return this.fail(ch === undefined ? "unexpected end of file" : `unexpected character '${ch}'`);
  }

  private parseString(): string {
    const start = this.pos;
    this.pos++; // opening quote
    while (this.pos < this.text.length) {
      const ch = this.text[this.pos]!;
      if (ch === '"') {
        this.pos++;
        try {
          // JSON.parse applies exactly JSON's escape rules, and rejects raw control characters.
          return JSON.parse(this.text.slice(start, this.pos)) as string;
        } catch {
          return this.fail("invalid string", start);
        }
      }
      if (ch === "\n" || ch === "\r") break;
      this.pos += ch === "\\" ? 2 : 1;
    }
    return this.fail("unterminated string", start);
  }

  private parseObject(): JsonObjectNode {
    const start = this.pos;
    this.pos++; // {
    const properties: JsonProperty[] = [];
    this.skipTrivia();
    while (this.text[this.pos] !== "}") {
      if (this.text[this.pos] !== '"') this.fail("expected a property name in double quotes or '}'");
      const keyStart = this.pos;
      const key = this.parseString();
      this.skipTrivia();
      if (this.text[this.pos] !== ":") this.fail("expected ':' after the property name");
      this.pos++;
      this.skipTrivia();
      const value = this.parseValue();
      this.skipTrivia();
      const property: JsonProperty = { key, start: keyStart, value, commaAt: -1 };
      properties.push(property);
      if (this.text[this.pos] === ",") {
        property.commaAt = this.pos;
        this.pos++;
        this.skipTrivia();
      } else if (this.text[this.pos] !== "}") {
        this.fail("expected ',' or '}'");
      }
    }
    this.pos++; // }
    return { type: "object", start, end: this.pos, properties };
  }

  private parseArray(): JsonArrayNode {
    const start = this.pos;
    this.pos++; // [
    const items: JsonNode[] = [];
    this.skipTrivia();
    while (this.text[this.pos] !== "]") {
      items.push(this.parseValue());
      this.skipTrivia();
      if (this.text[this.pos] === ",") {
        this.pos++;
        this.skipTrivia();
      } else if (this.text[this.pos] !== "]") {
        this.fail("expected ',' or ']'");
      }
    }
    this.pos++; // ]
    return { type: "array", start, end: this.pos, items };
  }
}

export function parseJsonc(text: string): JsoncDocument {
  return new Parser(text).parseDocument();
}

/** The plain value of a node. Duplicate keys resolve as JSON.parse does: the last one wins. */
export function nodeValue(node: JsonNode): unknown {
  switch (node.type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const p of node.properties) {
        // defineProperty, not assignment: a "__proto__" key must stay an ordinary key.
        Object.defineProperty(out, p.key, {
          value: nodeValue(p.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    case "array":
      return node.items.map(nodeValue);
    default:
      return node.value;
  }
}

/** Whether any comment overlaps [start, end). */
export function hasCommentIn(doc: JsoncDocument, start: number, end: number): boolean {
  return doc.comments.some(([cStart, cEnd]) => cStart < end && cEnd > start);
}
