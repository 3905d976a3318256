import { z } from "zod";
import { defineTool } from "../tool.ts";
import {
  headerValue,
  hint,
  jobNotices,
  MAX_SESSION_ID_CHARS,
  maxTokens,
  screenHeading,
  screenMode,
  stateEnum,
  truncation,
  truncationNote,
  withHint,
  withJobNotices,
  withOutput,
} from "../schemas.ts";
import { processConfig } from "../../config.ts";

const input = z.strictObject({
  command: z
    .string()
    .min(1)
    .max(100_000)
    .describe("One shell command line, typed at the session's prompt (multi-line scripts are run as one command)."),
  session: z
    .string()
    .max(MAX_SESSION_ID_CHARS)
    .optional()
    .describe("A shell session; default: the shell session `main`, created on first use."),
  timeout_ms: z
    .number()
    .int()
    .min(0)
    .max(600_000)
    .default(30_000)
    .describe('How long to wait. After it the command keeps running and the result says status "running".'),
  max_tokens: maxTokens,
  reduce: z
    .boolean()
    .optional()
    .describe(
      "Rewrite known noisy output (git status/log/diff, grep/rg, test runs, package installs, builds) into " +
        "fewer tokens, keeping every fact; the header says what was dropped. Default: the `reduce` setting (off).",
    ),
});

const output = z.object({
  session: z.string(),
  status: z.enum(["done", "running", "input"]),
  exit_code: z.number().int().nullable(),
  output: z.string(),
  cwd: z.string().nullable(),
  duration_ms: z.number().int(),
  via: z.enum(["shell", "marker", "exit", "tty", "prompt", "timeout"]),
  truncated: truncation,
  state: stateEnum,
  hint,
  job_notices: jobNotices,
  screen: z
    .string()
    .optional()
    .describe("When the command left a full-screen program waiting (vim, less): its screen, as term_send gives it."),
  screen_mode: screenMode.optional(),
  reduced: z
    .string()
    .optional()
    .describe("With `reduce`: which reducer rewrote the output and what it dropped, or why none did."),
});

export const termExec = defineTool({
  name: "term_exec",
  title: "Run a shell command",
  description:
    "Run one command in a persistent shell session and wait until it finishes. Returns its exact exit_code, its own " +
    "output (no echo, no prompt) and the cwd after it. " +
    "cd, export, venvs and background jobs persist between calls. " +
    'status: "done" (finished), "running" (timeout_ms passed; it keeps running: follow with term_read, stop with ' +
    'term_send keys:["ctrl+c"]), ' +
    '"input" (it waits at a password, yes/no prompt, pager or full-screen app: answer with term_send or ' +
    "term_secret; " +
    'state "continuation": the line is unfinished, send the rest or ctrl+c). ' +
    "via says how completion was known: shell (shell integration), marker, exit (the shell exited), tty (it is " +
    'blocked reading the terminal, state "reading" when nothing on screen says why), prompt, timeout. ' +
    "For REPLs and interactive programs use term_send.",
  input,
  output,
  annotations: { destructiveHint: true, openWorldHint: true },
  async run({ reduce, ...args }, ctx) {
    // Reduced where the output is rendered (the session's host), before the budget cuts it.
    return (await ctx.host.exec({ ...args, reduce: reduce ?? processConfig().reduce }, ctx)) as z.infer<typeof output>;
  },
  text(r) {
    // A command still running is named by its session, the one to follow it in (the caller may
    // not have named it: the default session); its duration is the time waited, said once.
    const head =
      r.status === "done"
        ? `[done · exit ${r.exit_code ?? "?"} · ${r.duration_ms} ms`
        : r.status === "input"
          ? `[waiting for input (${r.state}) · ${r.duration_ms} ms`
          : `[still running after ${r.duration_ms} ms · session ${headerValue(r.session)}`;
    const where = r.cwd ? ` · cwd ${headerValue(r.cwd)}` : "";
    const reduced = r.reduced ? ` · ${r.reduced}` : "";
    const header = `${head} · via ${r.via}${where}${truncationNote(r.truncated)}${reduced}]`;
    const body =
      r.screen !== undefined
        ? `${r.output ? r.output + "\n" : ""}${screenHeading(r.screen_mode ?? "screen", r.screen, null)}\n${r.screen}`
        : r.output;
    return withOutput(withJobNotices(withHint(header, r.hint), r.job_notices), body);
  },
});
