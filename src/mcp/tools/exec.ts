import { defineTool } from "../tool.ts";
import { execInput, execOutput } from "../../api/methods/exec.ts";
import { headerValue, screenHeading, truncationNote, withHint, withJobNotices, withOutput } from "../result-text.ts";
import { processConfig } from "../../config/config.ts";

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
  task: true,
  input: execInput,
  output: execOutput,
  annotations: { destructiveHint: true, openWorldHint: true },
  async run({ reduce, ...args }, ctx) {
    // Reduced where the output is rendered (the session's host), before the budget cuts it. Left
    // out (and the setting off), output the budget would cut is reduced instead (session/exec.ts).
    return ctx.host.call("exec", { ...args, reduce: reduce ?? (processConfig().reduce || undefined) }, ctx);
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
    return withHint(withOutput(withJobNotices(header, r.job_notices), body), r.hint);
  },
});
