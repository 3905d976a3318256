/**
 * Adds, updates or removes one server entry (`{ "<serversKey>": { "<name>": {...} } }`) in a JSON
 * or JSONC config file by splicing its text. Everything outside that entry stays byte-identical:
 * formatting, key order, comments, unrelated settings. Every edit is re-parsed and compared with
 * the original before it is returned, so a bug here refuses instead of damaging a user's file.
 */
import { ConfigEditError, deepEqual, isPlainObject, type EditAction, type EditResult } from "./config-edit.ts";
import {
  JsoncSyntaxError,
  hasCommentIn,
  nodeValue,
  parseJsonc,
  type JsonObjectNode,
  type JsonProperty,
  type JsoncDocument,
} from "../util/jsonc.ts";

export interface JsonServerEntry {
  /** The object holding the servers: `mcpServers`, or `servers` for VS Code. */
  serversKey: string;
  name: string;
  /** The fields ptyhub owns in its entry. Other fields a user added to the entry are kept. */
  fields: Record<string, unknown>;
  /** Fields of ptyhub's other kind of entry (stdio vs HTTP), removed when switching kinds. */
  drop?: string[];
  /**
   * Keys from the top level to the object that holds `serversKey` (Claude Code's per-directory
   * entries: `["projects", "/the/dir"]`). Such an entry is only ever updated or removed where it
   * already is, never created: a copy kept in step with the main one.
   */
  within?: string[];
}

/** Indentation used when a file gives no hint (an empty or single-line file). */
const DEFAULT_INDENT = "  ";

interface Splice {
  start: number;
  end: number;
  text: string;
}

interface Style {
  newline: string;
  indentUnit: string;
}

export function editJsonServers(original: string | null, entry: JsonServerEntry, action: EditAction): EditResult {
  const text = original ?? "";
  const doc = parse(text);
  const unchanged = (existed: boolean): EditResult => ({ text, changed: false, existed });

  if (doc.root === null) {
    if (action === "remove") return unchanged(false);
    const fresh = JSON.stringify({ [entry.serversKey]: { [entry.name]: entry.fields } }, null, DEFAULT_INDENT) + "\n";
    return { text: fresh, changed: true, existed: false };
  }
  if (doc.root.type !== "object") throw new ConfigEditError("its top level is not a JSON object");
  const holder = entry.within ? objectAt(doc.root, entry.within) : doc.root;
  if (!holder) return unchanged(false);

  const editor = new SpliceEditor(doc);
  const serversProp = uniqueProperty(holder, entry.serversKey);
  const servers = serversProp?.value;
  if (servers && servers.type !== "object") {
    if (action === "remove") return unchanged(false);
    throw new ConfigEditError(`"${entry.serversKey}" is not an object`);
  }
  const serverProp = servers ? uniqueProperty(servers, entry.name) : undefined;
  if (entry.within && !serverProp) return unchanged(false);

  let splices: Splice[];
  let expected: unknown;
  if (action === "remove") {
    if (!servers || !serverProp) return unchanged(false);
    splices = editor.removeProperty(servers, serverProp);
    expected = undefined;
  } else if (!servers) {
    expected = entry.fields;
    splices = editor.insertProperty(holder, entry.serversKey, { [entry.name]: entry.fields });
  } else if (!serverProp) {
    expected = entry.fields;
    splices = editor.insertProperty(servers, entry.name, entry.fields);
  } else {
    const current = nodeValue(serverProp.value);
    const kept = isPlainObject(current)
      ? Object.fromEntries(Object.entries(current).filter(([k]) => !entry.drop?.includes(k)))
      : {};
    expected = isPlainObject(current) ? { ...kept, ...entry.fields } : entry.fields;
    if (deepEqual(current, expected)) return unchanged(true);
    splices = editor.replaceValue(serverProp, expected);
  }

  const edited = applySplices(text, splices);
  verifyEdit(doc, edited, entry, expected);
  return { text: edited, changed: true, existed: serverProp !== undefined };
}

function parse(text: string): JsoncDocument {
  try {
    return parseJsonc(text);
  } catch (err) {
    if (err instanceof JsoncSyntaxError) throw new ConfigEditError(`it is not valid JSON (${err.message})`);
    throw err;
  }
}

/** The object node at `path` below `root`, or undefined where a key is missing or not an object. */
function objectAt(root: JsonObjectNode, path: string[]): JsonObjectNode | undefined {
  let node: JsonObjectNode = root;
  for (const key of path) {
    const next = uniqueProperty(node, key)?.value;
    if (next?.type !== "object") return undefined;
    node = next;
  }
  return node;
}

/** The plain value at `path` below `value`, or undefined. */
function valueAt(value: unknown, path: string[]): unknown {
  let at = value;
  for (const key of path) at = isPlainObject(at) ? at[key] : undefined;
  return at;
}

function uniqueProperty(object: JsonObjectNode, key: string): JsonProperty | undefined {
  const matches = object.properties.filter((p) => p.key === key);
  if (matches.length > 1)
    throw new ConfigEditError(`"${key}" appears ${matches.length} times, so it is unclear which one the client uses`);
  return matches[0];
}

function applySplices(text: string, splices: Splice[]): string {
  let out = text;
  for (const s of [...splices].sort((a, b) => b.start - a.start))
    out = out.slice(0, s.start) + s.text + out.slice(s.end);
  return out;
}

/**
 * Re-parses the edited text and checks that the only difference from the original is our entry.
 * Comparison ignores an emptied (or newly created) servers object, which is the one structural
 * change an edit may make besides the entry itself.
 */
function verifyEdit(before: JsoncDocument, editedText: string, entry: JsonServerEntry, expected: unknown): void {
  const fail = (why: string): never => {
    throw new ConfigEditError(`refusing to write: the edit would ${why} (this is a bug in ptyhub; please report it)`);
  };
  let after: JsoncDocument;
  try {
    after = parseJsonc(editedText);
  } catch {
    return fail("produce invalid JSON");
  }
  if (!before.root || !after.root) return fail("empty the file");
  const beforeRest = withoutEntry(nodeValue(before.root), entry);
  const afterValue = nodeValue(after.root);
  if (!deepEqual(beforeRest.rest, withoutEntry(afterValue, entry).rest))
    fail("change settings other than ptyhub's entry");
  const holder = valueAt(afterValue, entry.within ?? []);
  const servers = isPlainObject(holder) ? holder[entry.serversKey] : undefined;
  const actual = isPlainObject(servers) && Object.hasOwn(servers, entry.name) ? servers[entry.name] : undefined;
  if (!deepEqual(actual, expected)) fail("not leave ptyhub's entry as intended");
}

function withoutEntry(value: unknown, entry: JsonServerEntry, path: string[] = entry.within ?? []): { rest: unknown } {
  if (!isPlainObject(value)) return { rest: value };
  if (path.length > 0) {
    const [key, ...deeper] = path as [string, ...string[]];
    return Object.hasOwn(value, key)
      ? { rest: { ...value, [key]: withoutEntry(value[key], entry, deeper).rest } }
      : { rest: value };
  }
  const rest = { ...value };
  const servers = rest[entry.serversKey];
  if (isPlainObject(servers)) {
    const { [entry.name]: _removed, ...others } = servers;
    if (Object.keys(others).length === 0) delete rest[entry.serversKey];
    else rest[entry.serversKey] = others;
  }
  return { rest };
}

/** Computes text splices for one JSONC document, matching the file's own layout. */
class SpliceEditor {
  private readonly text: string;
  private readonly style: Style;

  constructor(private readonly doc: JsoncDocument) {
    this.text = doc.text;
    this.style = detectStyle(doc.text);
  }

  insertProperty(object: JsonObjectNode, key: string, value: unknown): Splice[] {
    const { newline } = this.style;
    const objectIndent = this.lineIndent(object.start);
    const last = object.properties.at(-1);
    if (!last) {
      const childIndent = objectIndent + this.style.indentUnit;
      const member = this.member(key, value, childIndent);
      const close = object.end - 1;
      if (this.text.slice(object.start + 1, close).trim() === "") {
        return [
          { start: object.start + 1, end: close, text: `${newline}${childIndent}${member}${newline}${objectIndent}` },
        ];
      }
      // The empty object holds comments: keep them, and put our member after them.
      if (this.startsLine(close)) {
        const at = this.lineStart(close);
        return [{ start: at, end: at, text: `${childIndent}${member}${newline}` }];
      }
      return [{ start: close, end: close, text: ` ${this.member(key, value, null)} ` }];
    }
    const first = object.properties[0]!;
    if (!this.startsLine(first.start)) {
      // A single-line object stays single-line.
      const at = last.commaAt >= 0 ? last.commaAt + 1 : last.value.end;
      return [{ start: at, end: at, text: `${last.commaAt >= 0 ? "" : ","} ${this.member(key, value, null)}` }];
    }
    const indent = this.lineIndent(first.start);
    const anchor = last.commaAt >= 0 ? last.commaAt + 1 : last.value.end;
    // After any comment that trails the last member on its line, so the comment stays with it.
    const lineEnd = this.endOfSameLineComments(anchor);
    // A file that ends its members with a trailing comma (JSONC) gets one after ours as well.
    const trailingComma = last.commaAt >= 0 ? "," : "";
    const splices: Splice[] = [
      { start: lineEnd, end: lineEnd, text: `${newline}${indent}${this.member(key, value, indent)}${trailingComma}` },
    ];
    if (last.commaAt < 0) splices.push({ start: last.value.end, end: last.value.end, text: "," });
    return splices;
  }

  replaceValue(property: JsonProperty, value: unknown): Splice[] {
    this.refuseComments(property.value.start, property.value.end);
    const indent = this.startsLine(property.start) ? this.lineIndent(property.start) : null;
    return [{ start: property.value.start, end: property.value.end, text: this.serialize(value, indent) }];
  }

  removeProperty(object: JsonObjectNode, property: JsonProperty): Splice[] {
    const props = object.properties;
    const index = props.indexOf(property);
    const prev = props[index - 1];
    const next = props[index + 1];
    const ownEnd = property.commaAt >= 0 ? property.commaAt + 1 : property.value.end;

    if (props.length === 1 && !hasCommentIn(this.doc, object.start, object.end)) {
      return [{ start: object.start + 1, end: object.end - 1, text: "" }];
    }
    const splices: Splice[] = [];
    // A comment trailing the entry on its line counts as part of the line (and so is refused).
    const lineEnd = this.startsLine(property.start) ? this.endOfLine(this.endOfSameLineComments(ownEnd)) : -1;
    if (lineEnd >= 0) {
      // The entry has lines of its own: delete them whole, keeping neighbours' lines and comments.
      splices.push({ start: this.lineStart(property.start), end: lineEnd, text: "" });
      if (!next && property.commaAt < 0 && prev && prev.commaAt >= 0) {
        splices.push({ start: prev.commaAt, end: prev.commaAt + 1, text: "" });
      }
    } else if (next) {
      splices.push({ start: property.start, end: next.start, text: "" });
    } else if (prev && prev.commaAt >= 0) {
      splices.push({ start: prev.commaAt, end: ownEnd, text: "" });
    } else {
      splices.push({ start: property.start, end: ownEnd, text: "" });
    }
    for (const s of splices) this.refuseComments(s.start, s.end);
    return splices;
  }

  private refuseComments(start: number, end: number): void {
    if (hasCommentIn(this.doc, start, end)) {
      throw new ConfigEditError(
        "ptyhub's entry has comments in or beside it, which this edit would drop; edit that entry by hand",
      );
    }
  }

  private member(key: string, value: unknown, indent: string | null): string {
    return `${JSON.stringify(key)}: ${this.serialize(value, indent)}`;
  }

  /** Pretty-prints `value` for a member whose line is indented by `indent`; null means one line. */
  private serialize(value: unknown, indent: string | null): string {
    if (indent === null) return JSON.stringify(value);
    return JSON.stringify(value, null, this.style.indentUnit)
      .split("\n")
      .join(this.style.newline + indent);
  }

  private lineStart(pos: number): number {
    let i = pos;
    while (i > 0 && this.text[i - 1] !== "\n" && this.text[i - 1] !== "\r") i--;
    return i;
  }

  /** Whether only whitespace precedes `pos` on its line. */
  private startsLine(pos: number): boolean {
    return /^[ \t]*$/.test(this.text.slice(this.lineStart(pos), pos));
  }

  private lineIndent(pos: number): string {
    return /^[ \t]*/.exec(this.text.slice(this.lineStart(pos)))![0];
  }

  /** The offset just past the newline ending the line, if only spaces follow `pos` on it; else -1. */
  private endOfLine(pos: number): number {
    const rest = /^[ \t]*(\r\n|\n|\r)/.exec(this.text.slice(pos));
    return rest ? pos + rest[0].length : -1;
  }

  private endOfSameLineComments(pos: number): number {
    let end = pos;
    let i = pos;
    for (;;) {
      while (this.text[i] === " " || this.text[i] === "\t") i++;
      const comment = this.doc.comments.find(([start]) => start === i);
      if (!comment || /[\r\n]/.test(this.text.slice(comment[0], comment[1]))) return end;
      end = i = comment[1];
    }
  }
}

function detectStyle(text: string): Style {
  const newline = text.includes("\r\n") ? "\r\n" : "\n";
  const indented = /^([ \t]+)["}\]]/m.exec(text);
  return { newline, indentUnit: indented?.[1] ?? DEFAULT_INDENT };
}
