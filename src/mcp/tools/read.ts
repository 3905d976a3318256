import { z } from "zod";
import { defineTool } from "../tool.ts";
import {
  cursor,
  maxTokens,
  sessionId,
  stateEnum,
  truncation,
  truncationNote,
  untilPattern,
  viaEnum,
  withOutput,
} from "../schemas.ts";

const input = z.strictObject({
  session: sessionId,
  mode: z
    .enum(["new", "screen", "diff", "history"])
    .default("new")
    .describe(
      "new: output since your last read · screen: the visible screen · diff: only screen rows changed since your " +
        "last screen/diff read · history: scrollback lines by number",
    ),
  from: z.number().int().optional().describe("history: first line (1-based; negative counts from the end)."),
  to: z.number().int().optional().describe("history: last line (inclusive; negative counts from the end)."),
  until: untilPattern("Regex awaited in output newer than this call."),
  wait_ms: z
    .number()
    .int()
    .min(0)
    .max(600_000)
    .optional()
    .describe("How long `new` waits for output when there is none yet (default 2000; 0 for screen/history)."),
  raw: z
    .boolean()
    .optional()
    .describe(
      "new/history: the output as the program sent it, escape sequences kept (for debugging terminal output); " +
        "history from/to then number its \\n-separated lines.",
    ),
  max_tokens: maxTokens,
});

const output = z.object({
  session: z.string(),
  mode: z.enum(["new", "screen", "diff", "history"]),
  output: z.string(),
  state: stateEnum,
  alt_screen: z.boolean(),
  cursor,
  lines_total: z.number().int(),
  dropped: z.number().int(),
  exit_code: z.number().int().nullable(),
  matched: z.string().nullable(),
  via: viaEnum.nullable(),
  truncated: truncation,
});

export const termRead = defineTool({
  name: "term_read",
  title: "Read a session",
  description:
    "Read a session without typing: new output since your last read (waits up to wait_ms for some), the screen, a " +
    "diff of changed screen rows (cheap for watching TUIs), " +
    "or history lines by number (to fetch what a truncated result omitted). `dropped` counts characters lost to " +
    "buffer limits since your last read.",
  input,
  output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    return (await ctx.host.read(args, ctx)) as z.infer<typeof output>;
  },
  text(r) {
    // lines_total is the history's length: "· 3 lines" above one line of output read as lines left out.
    const header = `[${r.mode} · state ${r.state}${r.via ? ` · via ${r.via}` : ""}${r.matched !== null ? ` · matched ${JSON.stringify(r.matched)}` : ""} · ${r.lines_total} lines in history${r.dropped ? ` · ${r.dropped} chars dropped` : ""}${r.exit_code !== null ? ` · exit ${r.exit_code}` : ""}${r.alt_screen ? " · alt screen" : ""}${truncationNote(r.truncated)}]`;
    return withOutput(header, r.output);
  },
});
