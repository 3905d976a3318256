/**
 * Removing the echo of what was typed. After `term_send "print(1)"`, the terminal first shows the
 * typed text, then the program's answer. A wait for `until` must never match the echo, and the
 * returned output should not repeat it. The echo is recognized as the sent text at the start of
 * the new output, allowing for soft line breaks (wrapped input) and continuation prompts.
 */

export type EchoState =
  /** The whole echo was found; `rest` starts after it (and after the Enter's line break). */
  | { status: "stripped"; rest: string }
  /** What arrived so far is a prefix of the echo: keep waiting before matching anything. */
  | { status: "pending" }
  /** The output does not start with the echo (echo off, or the program printed first). */
  | { status: "absent"; rest: string };

/**
 * What a line editor may draw at the start of each further line of a multi-line input: a
 * continuation prompt (python `... `, node `... `, sqlite `   ...> `, psql `db-# ` or `db(# `, a
 * shell's `> `, irb `irb(main):002:1* `), or the primary prompt again where the REPL takes each
 * pasted line as its own input (python `>>> `). On an empty line its trailing blank is trimmed away
 * (`...` alone).
 */
const CONTINUATION_PROMPT =
  /^(?:>>>|>|\.\.\.|[\w ]*\.\.\.>|[\w ]*>|[\w.-]*[=\-'"(*$^!]#|\w+\([^)\n]*\):\d+:\d+[>*"'%])(?: |(?=\n|$))/;

/** How the echo may have been drawn: each way the output at `i` can go on to show the rest of `expected`. */
type Match = { end: number } | "pending" | "absent";

export function stripEcho(output: string, sent: string, enter: boolean): EchoState {
  const expected = sent.replace(/\r\n?/g, "\n");
  if (expected.length === 0) return { status: "absent", rest: output };
  const m = echoFromStart(output, expected);
  if (m === "pending") return { status: "pending" };
  if (m === "absent") return { status: "absent", rest: output };
  let i = m.end;
  // The echo ends with the line break that Enter produced; after text that ended in a line break
  // Enter ends an empty line, which may show a continuation prompt (python's `...` closing a block).
  if (enter) {
    if (i >= output.length) return { status: "pending" };
    const prompt = expected.endsWith("\n") ? CONTINUATION_PROMPT.exec(output.slice(i, i + 40)) : null;
    if (prompt && output[i + prompt[0].length] === "\n") i += prompt[0].length;
    else if (prompt && i + prompt[0].length >= output.length) return { status: "pending" };
    if (output[i] === "\n") i++;
  }
  return { status: "stripped", rest: output.slice(i) };
}

/**
 * The echo at the start of the output, or behind a prompt there: a line editor that redraws a
 * multi-line input redraws its first line with its prompt too (irb: `irb(main):002:1* def f(a)`).
 */
function echoFromStart(output: string, expected: string): Match {
  const plain = matchEcho(output, expected, 0, 0);
  if (plain !== "absent") return plain;
  const prompt = CONTINUATION_PROMPT.exec(output.slice(0, 40));
  return prompt ? matchEcho(output, expected, prompt[0].length, 0) : "absent";
}

/**
 * Matches `expected` from j against `output` from i. After each echoed line break the next line
 * is tried as it is first, then behind a prompt (text such as `WHERE a > 1` looks like one):
 * the first way that matches wins; "pending" when some way is cut short by the end of what
 * arrived so far (more may come), "absent" when none can match.
 */
function matchEcho(output: string, expected: string, i: number, j: number): Match {
  while (j < expected.length) {
    if (i >= output.length) return "pending";
    const o = output[i]!;
    const e = expected[j]!;
    if (o === e) {
      i++;
      j++;
      if (e === "\n") return afterLineBreak(output, expected, i, j);
    } else if (o === "\n") {
      i++; // a soft break in the echo of a long line
    } else if (o === " " && e !== " " && output[i + 1] === "\n") {
      i++; // some line editors pad before forcing a wrap
    } else {
      return "absent";
    }
  }
  return { end: i };
}

function afterLineBreak(output: string, expected: string, i: number, j: number): Match {
  const plain = matchEcho(output, expected, i, j);
  if (typeof plain === "object") return plain;
  const prompt = CONTINUATION_PROMPT.exec(output.slice(i, i + 40));
  const behind = prompt ? matchEcho(output, expected, i + prompt[0].length, j) : "absent";
  if (typeof behind === "object") return behind;
  return plain === "pending" || behind === "pending" ? "pending" : "absent";
}
