/**
 * Command substitutions whose output the line itself gives: `$(echo rm) -rf /`,
 * `` `printf %s /` ``, `$(echo cm0= | base64 -d)`, `$(command -v rm)`. The line is judged again
 * with each such substitution replaced by what it prints, as the shell would run it.
 */
import { parseShellLine } from "./parse.ts";
import { pipelineText } from "./piped-text.ts";

/** Where the substitution opened at `start` (its `$(` or backtick) ends, past its closing character. */
function substitutionEnd(line: string, start: number): number {
  if (line[start] === "`") {
    const end = line.indexOf("`", start + 1);
    return end === -1 ? -1 : end + 1;
  }
  let depth = 0;
  for (let i = start; i < line.length; i++) {
    const c = line[i]!;
    if (c === "\\") i++;
    else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) return -1;
      i = end;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i + 1;
  }
  return -1;
}

/** What the substitution's text prints (trailing newlines dropped, as `$(…)` drops them), or null. */
function printed(inner: string): string | null {
  const parsed = parseShellLine(inner);
  if (parsed.pipelines.length !== 1) return null;
  const text = pipelineText(parsed.pipelines[0]!);
  return text === null ? null : text.replace(/\n+$/, "");
}

/** The text so far ends in `NAME=`: what comes next is an assignment's value. */
const ASSIGNED_HERE = /(^|[\s;&|(])[A-Za-z_]\w*=$/;

/** `line` with every substitution whose output is known replaced by it; null when there is none. */
export function withKnownSubstitutions(line: string): string | null {
  let out = "";
  let changed = false;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    // Inside single quotes nothing is substituted; inside double quotes it is.
    if (c === "'" && !quoted) {
      const end = line.indexOf("'", i + 1);
      const stop = end === -1 ? line.length : end + 1;
      out += line.slice(i, stop);
      i = stop - 1;
      continue;
    }
    if (c === '"') quoted = !quoted;
    const opens = (c === "$" && line[i + 1] === "(" && line[i + 2] !== "(") || c === "`";
    const end = opens ? substitutionEnd(line, c === "`" ? i : i + 1) : -1;
    if (end === -1) {
      out += c;
      continue;
    }
    const inner = line.slice(c === "`" ? i + 1 : i + 2, end - 1);
    const text = printed(inner);
    // `cmd=$(…)` assigns the whole output, unsplit: kept as one word (`cmd="rm -rf /"; $cmd`).
    const assigned = !quoted && text !== null && ASSIGNED_HERE.test(out);
    out += text === null ? line.slice(i, end) : assigned ? `"${text.replace(/["\\$`]/g, "\\$&")}"` : text;
    changed ||= text !== null;
    i = end - 1;
  }
  return changed ? out : null;
}

/** `${NAME:-word}`, `${NAME-word}`, `${NAME:=word}`: the word, when NAME is not set. */
const DEFAULT_VALUE = /\$\{(?!HOME\b)[A-Za-z_]\w*:?[-=]([^}$`]*)\}/g;

/** `line` with each default value put in for its variable (unset, as the line does not set it); null when none. */
/** `${PATH:0:1}`, `${HOME::1}`: the first character of an absolute path, which is `/`. */
const FIRST_OF_PATH = /\$\{(PATH|HOME|PWD|SHELL|TMPDIR):0?:1\}/g;

export function withDefaultValues(line: string): string | null {
  const out = line.replace(DEFAULT_VALUE, (_m, word: string) => word).replace(FIRST_OF_PATH, "/");
  return out === line ? null : out;
}
