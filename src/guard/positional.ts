/**
 * Positional parameters a script is given: `sh -c 'rm -rf $0' /` runs `rm -rf /`, and so does
 * `sh -c '"$@"' _ rm -rf /`. The script's text is judged with them put in, as the shell would.
 */

/** The highest `$N` put in; scripts rarely use more, and `${10}` needs braces anyway. */
const MAX_POSITIONAL = 9;

/**
 * `script` with `$0` … `$9`, `${N}`, `$@`, `$*` replaced by `params` (params[0] is `$0`). Values
 * are put in as written, so an unquoted `$1` of "-rf /" splits into words as the shell splits it.
 */
export function withPositional(script: string, params: string[]): string {
  if (params.length === 0) return script;
  const all = params.slice(1).join(" ");
  let out = script.replace(/"\$(@|\{@\})"|\$(@|\*|\{@\}|\{\*\})/g, () => all);
  for (let n = MAX_POSITIONAL; n >= 0; n--) {
    const value = params[n] ?? "";
    out = out.replace(new RegExp(`\\$(\\{${n}\\}|${n})`, "g"), () => value);
  }
  return out;
}
