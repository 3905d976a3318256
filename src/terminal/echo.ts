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

const CONTINUATION_PROMPT = /^(> |\.\.\. |[\w ]*> )/;

export function stripEcho(output: string, sent: string, enter: boolean): EchoState {
  const expected = sent.replace(/\r\n?/g, "\n");
  if (expected.length === 0) return { status: "absent", rest: output };
  let i = 0;
  let j = 0;
  while (j < expected.length) {
    if (i >= output.length) return { status: "pending" };
    const o = output[i]!;
    const e = expected[j]!;
    if (o === e) {
      i++;
      j++;
      if (e === "\n") {
        const cont = CONTINUATION_PROMPT.exec(output.slice(i, i + 40));
        if (cont) i += cont[0].length;
      }
    } else if (o === "\n") {
      i++; // a soft break in the echo of a long line
    } else if (o === " " && e !== " " && output[i + 1] === "\n") {
      i++; // some line editors pad before forcing a wrap
    } else {
      return { status: "absent", rest: output };
    }
  }
  // The echo ends with the line break that Enter produced.
  if (enter) {
    if (i >= output.length) return { status: "pending" };
    if (output[i] === "\n") i++;
  }
  return { status: "stripped", rest: output.slice(i) };
}
