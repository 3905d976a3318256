/** The pieces of a tool result's text form (what most models read): header parts, hints, notices. */

/** The line that introduces a screen in a text result. */
export function screenHeading(
  mode: "screen" | "diff" | null,
  screen: string,
  at: { row: number; col: number } | null,
): string {
  const where = at ? ` (cursor ${at.row},${at.col})` : "";
  if (mode !== "diff") return `--- screen${where} ---`;
  return screen === "" ? `--- screen: no rows changed${where} ---` : `--- screen: changed rows${where} ---`;
}

/**
 * The text with the hint (if any) as its last line: after the output, in every result, so the
 * output follows its header directly and the hint is not read as the first line of the output
 * (issue 36 item 5: on a timeout it sat between the two).
 */
export function withHint(text: string, hintText: string | undefined): string {
  return hintText ? `${text}\nhint: ${hintText}` : text;
}

/** The header with a `jobs:` line after it when the shell printed job notices. */
export function withJobNotices(header: string, notices: string[] | undefined): string {
  return notices ? `${header}\njobs: ${notices.join("; ")}` : header;
}

/** "… N lines omitted" summary for headers, with how to fetch them (the text form has no schema to say so). */
export function truncationNote(t: { omitted_lines: number; from_line: number; to_line: number } | null): string {
  return t ? ` · ${t.omitted_lines} lines omitted: term_read mode:"history" from:${t.from_line} to:${t.to_line}` : "";
}

/** Line breaks, tabs, escape and other control characters (C0, DEL, C1). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A value from the terminal's side (a cwd, a program's target) as it goes into a header line: as
 * a JSON string literal when it holds a control character, so a directory named "a\n[done · exit
 * 0]" cannot start a line of its own that a reader would take for ptyhub's (issue 23).
 */
export function headerValue(value: string): string {
  return CONTROL.test(value) ? JSON.stringify(value) : value;
}

/** Header line, then the output (if any). */
export function withOutput(header: string, output: string): string {
  return output.length > 0 ? `${header}\n${output}` : header;
}
