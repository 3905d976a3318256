import { z } from "zod";
import { defineTool } from "../tool.ts";
import {
  cursor,
  hint,
  jobNotices,
  maxTokens,
  screenHeading,
  screenMode,
  sessionId,
  stateEnum,
  truncation,
  truncationNote,
  untilPattern,
  viaEnum,
  withHint,
  withJobNotices,
  withOutput,
} from "../schemas.ts";

const input = z.strictObject({
  session: sessionId,
  text: z
    .string()
    .max(100_000)
    .optional()
    .describe("Text typed literally (no escape decoding); multi-line text is pasted as one unit."),
  enter: z.boolean().optional().describe("Press Enter after `text` (default true when text is given)."),
  keys: z
    .array(z.string().max(32))
    .max(256)
    .optional()
    .describe(
      "Named keys sent after text/Enter: ctrl+c, ctrl+d, escape, tab, up, down, left, right, home, end, pageup, " +
        "pagedown, backspace, delete, f1–f12, alt+x, shift+tab (C-c and ^C also work); any modifier on any key " +
        "(shift+f1, ctrl+shift+up).",
    ),
  until: untilPattern(
    "Regex to wait for in output that appears after this call (the echo of your input never matches).",
  ),
  wait_ms: z.number().int().min(0).max(600_000).default(5000).describe("Upper bound on the wait."),
  max_tokens: maxTokens,
});

const output = z.object({
  session: z.string(),
  output: z.string(),
  screen: z
    .string()
    .nullable()
    .describe("A full-screen program's screen: the trimmed rendering, or only the rows changed since you last saw it."),
  screen_mode: screenMode.nullable(),
  state: stateEnum,
  matched: z.string().nullable(),
  via: viaEnum,
  exit_code: z.number().int().nullable(),
  alt_screen: z.boolean(),
  cursor,
  truncated: truncation,
  hint,
  job_notices: jobNotices,
});

export const termSend = defineTool({
  name: "term_send",
  title: "Type text or keys",
  description:
    "Type into a session (REPLs, prompts, editors, ctrl+c) and return what appeared after it, without the echo of " +
    "your input. " +
    "Waits until `until` matches new output; without `until`, until a shell reports the command finished (via " +
    "shell), the program waits at a prompt/password/yes-no/pager (via prompt) or is blocked reading the terminal " +
    "(via tty), " +
    "or output stops changing (via settle: a guess, check state). Full-screen apps (vim, less, htop) also return " +
    "`screen`: the whole trimmed screen, or (screen_mode diff) only the rows changed since you last saw it, as " +
    '"row| text", whichever is shorter.',
  input,
  output,
  annotations: { destructiveHint: true, openWorldHint: true },
  async run(args, ctx) {
    return (await ctx.host.send(args, ctx)) as z.infer<typeof output>;
  },
  text(r) {
    const header = `[state ${r.state} · via ${r.via}${r.matched !== null ? ` · matched ${JSON.stringify(r.matched)}` : ""}${r.exit_code !== null ? ` · exit ${r.exit_code}` : ""}${truncationNote(r.truncated)}]`;
    const body =
      r.alt_screen && r.screen !== null
        ? `${r.output ? r.output + "\n" : ""}${screenHeading(r.screen_mode, r.screen, r.cursor)}\n${r.screen}`
        : r.output;
    return withOutput(withJobNotices(withHint(header, r.hint), r.job_notices), body);
  },
});
