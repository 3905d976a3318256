/**
 * Where a reader's output ends when the shell is back at its prompt: at the end mark of the command
 * it ran, the position term_exec's output ends at too (the session's command record holds it), so
 * the prompt drawn after it is never read as output (issue 36 item 2: `term_read new` returned
 * `DONE\nroot@vm:/…#`).
 */
import type { Pos } from "../terminal/emulator.ts";
import type { Session } from "./session.ts";
import { hasContent, region } from "../terminal/output-region.ts";

/** Marks a shell draws its prompt with: after the end mark, nothing else may have come. */
const PROMPT_MARKS = new Set(["prompt", "ready"]);

/**
 * The last command's end position when nothing but its prompt came after it: the shell marked it
 * since the last input (a line typed at the prompt, which sh's markers would not mark, stays in
 * the output), no other command started, no second prompt was drawn (what a refused line printed
 * between two prompts is output), and nothing follows the prompt (a background job's line printed
 * at the prompt is output). Null otherwise: the output then ends where it ends.
 */
export function promptStart(session: Session): Pos | null {
  const command = session.command;
  if (session.exit || session.phase !== "prompt" || !session.markedSinceInput) return null;
  if (!command?.end || command.endSeq === null) return null;
  const after = session.marksAfter(command.endSeq);
  if (after.length > PROMPT_MARKS.size || after.some((m) => !PROMPT_MARKS.has(m.kind))) return null;
  if (new Set(after.map((m) => m.kind)).size !== after.length) return null;
  const drawn = after.find((m) => m.kind === "ready");
  if (drawn && hasContent(region(session.emulator, drawn.pos, null).items)) return null;
  return command.end;
}
