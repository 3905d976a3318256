/**
 * Adds, updates or removes one `[mcp_servers.<name>]` table in a TOML config (Codex's
 * config.toml) by splicing text: every byte outside that table stays as it was. The whole file
 * must parse (Bun.TOML) before anything is touched, and every edit is re-parsed and compared with
 * the original, so a file this editor does not understand is refused rather than rewritten.
 */
import {
  ConfigEditError,
  deepEqual,
  isPlainObject,
  type EditAction,
  type EditResult,
  type LaunchCommand,
} from "./config-edit.ts";
import { scanTomlStatements, type TomlStatement } from "./toml-scan.ts";

const SERVERS_TABLE = "mcp_servers";

/**
 * Keys ptyhub sets in its table besides `command` and `args` (Codex's per-server settings):
 * `env_vars` names variables Codex forwards to the server (merged with any the user listed), and
 * `default_tools_approval_mode` is written only when the user asked for it.
 */
export interface TomlServerExtras {
  env_vars?: string[];
  default_tools_approval_mode?: string;
}

interface Range {
  start: number;
  end: number;
}

export function editTomlServer(
  original: string | null,
  name: string,
  launch: LaunchCommand,
  action: EditAction,
  extras: TomlServerExtras = {},
): EditResult {
  const text = original ?? "";
  const before = parseToml(text);
  const current = serverTable(before, name);
  const statements = scanTomlStatements(text);
  const tablePath = [SERVERS_TABLE, name];
  const headerIndex = statements.findIndex((s) => s.kind === "table" && samePath(s.path, tablePath));
  const unchanged = (existed: boolean): EditResult => ({ text, changed: false, existed });

  if (current !== undefined && headerIndex < 0) {
    throw new ConfigEditError(
      `${SERVERS_TABLE}.${name} is defined as an inline table or with dotted keys, which this editor does not ` +
        `rewrite; change it by hand`,
    );
  }
  if (current !== undefined && !isPlainObject(current))
    throw new ConfigEditError(`${SERVERS_TABLE}.${name} is not a table`);

  let edited: string;
  if (action === "remove") {
    if (current === undefined) return unchanged(false);
    const owned = statements.filter((s) => s.kind !== "keyval" && startsWithPath(s.path, tablePath));
    const ranges = owned.map((header) => withSeparatorLine(text, sectionRange(statements, statements.indexOf(header))));
    edited = removeRanges(text, ranges);
  } else {
    const desired = desiredKeys(current, launch, extras);
    if (current && Object.entries(desired).every(([k, v]) => deepEqual(current[k], v))) return unchanged(true);
    const newline = text.includes("\r\n") ? "\r\n" : "\n";
    const ownedLines = Object.entries(desired).map(([k, v]) => `${k} = ${tomlValue(v)}`);
    if (headerIndex < 0) {
      if (definesServersInline(statements)) {
        throw new ConfigEditError(
          `${SERVERS_TABLE} is written as an inline table, which cannot take another table; add ptyhub by hand`,
        );
      }
      edited = appendTable(text, `[${tablePath.join(".")}]`, ownedLines, newline);
    } else {
      edited = replaceOwnedKeys(text, statements, headerIndex, ownedLines, Object.keys(desired), newline);
    }
  }
  verifyEdit(before, edited, name, action === "add" ? desiredKeys(current, launch, extras) : undefined);
  return { text: edited, changed: true, existed: current !== undefined };
}

function parseToml(text: string): Record<string, unknown> {
  try {
    return Bun.TOML.parse(text) as Record<string, unknown>;
  } catch (err) {
    const detail = err instanceof Error ? err.message.replace(/^TOML Parse error: /, "") : String(err);
    throw new ConfigEditError(`it is not valid TOML (${detail})`);
  }
}

function serverTable(doc: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
  const servers = doc[SERVERS_TABLE];
  if (servers === undefined) return undefined;
  if (!isPlainObject(servers)) throw new ConfigEditError(`${SERVERS_TABLE} is not a table`);
  return servers[name] as Record<string, unknown> | undefined;
}

function samePath(a: string[], b: string[]): boolean {
  return a.length === b.length && startsWithPath(a, b);
}

function startsWithPath(path: string[], prefix: string[]): boolean {
  return prefix.every((part, i) => path[i] === part);
}

/**
 * A table's range: its header through its last key/value line. Comments and blank lines after the
 * last key are left alone, since they usually introduce whatever comes next.
 */
function sectionRange(statements: TomlStatement[], headerIndex: number): Range {
  const header = statements[headerIndex]!;
  let end = header.end;
  for (const s of statements.slice(headerIndex + 1)) {
    if (s.kind !== "keyval") break;
    end = s.end;
  }
  return { start: header.start, end };
}

/**
 * Extends a range over one blank line before it (the separator appendTable puts there), or, for
 * a table at the very top of the file, over the blank line after it.
 */
function withSeparatorLine(text: string, range: Range): Range {
  const before = /(?:^|\n)([ \t]*\r?\n)$/.exec(text.slice(0, range.start));
  if (before) return { start: range.start - before[1]!.length, end: range.end };
  const after = range.start === 0 ? /^[ \t]*\r?\n/.exec(text.slice(range.end)) : null;
  return after ? { start: range.start, end: range.end + after[0].length } : range;
}

/** `mcp_servers = { ... }` (or dotted keys under it) before the first table header. */
function definesServersInline(statements: TomlStatement[]): boolean {
  for (const s of statements) {
    if (s.kind !== "keyval") return false;
    if (s.path[0] === SERVERS_TABLE) return true;
  }
  return false;
}

function removeRanges(text: string, ranges: Range[]): string {
  let out = text;
  for (const r of [...ranges].sort((a, b) => b.start - a.start)) out = out.slice(0, r.start) + out.slice(r.end);
  return out;
}

function appendTable(text: string, header: string, lines: string[], newline: string): string {
  let separator = "";
  if (text.length > 0 && !text.endsWith("\n")) separator += newline;
  if (text.trim().length > 0) separator += newline;
  return text + separator + [header, ...lines].join(newline) + newline;
}

/** The keys ptyhub writes and their values; env_vars keeps what the user listed, then adds ours. */
function desiredKeys(
  current: Record<string, unknown> | undefined,
  launch: LaunchCommand,
  extras: TomlServerExtras,
): Record<string, unknown> {
  const keys: Record<string, unknown> = { command: launch.command, args: launch.args };
  if (extras.env_vars) {
    const before = current?.env_vars;
    const listed = Array.isArray(before) ? before.filter((v): v is string => typeof v === "string") : [];
    keys.env_vars = [...listed, ...extras.env_vars.filter((v) => !listed.includes(v))];
  }
  if (extras.default_tools_approval_mode) keys.default_tools_approval_mode = extras.default_tools_approval_mode;
  return keys;
}

/** Replaces the keys ptyhub owns in the existing table, keeping every other line of it. */
function replaceOwnedKeys(
  text: string,
  statements: TomlStatement[],
  headerIndex: number,
  lines: string[],
  owned: string[],
  newline: string,
): string {
  const header = statements[headerIndex]!;
  const section = sectionRange(statements, headerIndex);
  const stale = statements.filter(
    (s) =>
      s.kind === "keyval" &&
      s.start >= header.end &&
      s.end <= section.end &&
      s.path.length === 1 &&
      owned.includes(s.path[0]!),
  );
  const headerLine = text.slice(header.start, header.end);
  const insert = (headerLine.endsWith("\n") ? "" : newline) + lines.join(newline) + newline;
  const withoutStale = removeRanges(text, stale);
  return withoutStale.slice(0, header.end) + insert + withoutStale.slice(header.end);
}

/** TOML basic strings share JSON's escapes, except that DEL must be escaped too. */
function tomlString(value: string): string {
  return JSON.stringify(value).replace(/\x7f/g, "\\u007f");
}

/** The values ptyhub writes: strings and arrays of strings. */
function tomlValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => tomlString(String(v))).join(", ")}]`;
  return tomlString(String(value));
}

function verifyEdit(
  before: Record<string, unknown>,
  editedText: string,
  name: string,
  desired: Record<string, unknown> | undefined,
): void {
  const fail = (why: string): never => {
    throw new ConfigEditError(`refusing to write: the edit would ${why} (this is a bug in ptyhub; please report it)`);
  };
  let after: Record<string, unknown>;
  try {
    after = Bun.TOML.parse(editedText) as Record<string, unknown>;
  } catch {
    return fail("produce TOML that does not parse");
  }
  if (!deepEqual(withoutServer(before, name), withoutServer(after, name)))
    fail("change settings outside ptyhub's table");
  const oldTable = serverTable(before, name);
  const newTable = serverTable(after, name);
  if (!desired) {
    if (newTable !== undefined) fail("leave ptyhub's table in place");
    return;
  }
  if (!newTable || Object.entries(desired).some(([k, v]) => !deepEqual(newTable[k], v))) {
    fail("not register the right command");
  }
  const owned = Object.keys(desired);
  if (!deepEqual(withoutKeys(oldTable, owned), withoutKeys(newTable, owned))) {
    fail("change keys of ptyhub's table it does not own");
  }
}

function withoutServer(doc: Record<string, unknown>, name: string): Record<string, unknown> {
  const copy = { ...doc };
  const servers = copy[SERVERS_TABLE];
  if (isPlainObject(servers)) {
    const { [name]: _removed, ...others } = servers;
    if (Object.keys(others).length === 0) delete copy[SERVERS_TABLE];
    else copy[SERVERS_TABLE] = others;
  }
  return copy;
}

function withoutKeys(table: Record<string, unknown> | undefined, keys: string[]): Record<string, unknown> {
  const copy = { ...table };
  for (const key of keys) delete copy[key];
  return copy;
}
