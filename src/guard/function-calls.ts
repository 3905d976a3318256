/**
 * Functions the line defines and calls with arguments: `f() { rm -rf "$1"; }; f /` runs
 * `rm -rf /`. The body alone has `$1` unknown, so each call's body is judged again with the
 * call's words as its positional parameters, as the shell runs it.
 */
import type { ParsedLine } from "./parse.ts";
import { withPositional } from "./positional.ts";

/** Calls judged per function: enough for a line, bounded against a line of many calls. */
const MAX_CALLS = 8;

/** `NAME() { BODY }`, `function NAME { BODY }`, `function NAME() { BODY }` (the first closing brace ends it). */
function functionBody(line: string, name: string): string | null {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const definition = new RegExp(`(?:^|[;&|\\s])(?:function\\s+)?${escaped}\\s*(?:\\(\\s*\\))?\\s*\\{([\\s\\S]*?)\\}`);
  return definition.exec(line)?.[1] ?? null;
}

/** Each call's body with its arguments put in, as lines to judge. */
export function calledBodies(line: string, parsed: ParsedLine): string[] {
  if (parsed.functions.length === 0) return [];
  const out: string[] = [];
  for (const name of new Set(parsed.functions)) {
    const body = functionBody(line, name);
    if (body === null) continue;
    const calls = parsed.pipelines.flat().filter((c) => c.argv[0] === name && c.argv.length > 1);
    for (const call of calls.slice(0, MAX_CALLS)) out.push(withPositional(body, call.argv));
  }
  return out;
}
