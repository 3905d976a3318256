import { defineTool } from "../tool.ts";
import { sendInput, sendOutput } from "../../api/methods/send.ts";
import { screenHeading, truncationNote, withHint, withJobNotices, withOutput } from "../result-text.ts";

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
  task: true,
  input: sendInput,
  output: sendOutput,
  annotations: { destructiveHint: true, openWorldHint: true },
  async run(args, ctx) {
    return ctx.host.call("send", args, ctx);
  },
  text(r) {
    const matched = r.matched !== null ? ` · matched ${JSON.stringify(r.matched)}` : "";
    const exit = r.exit_code !== null ? ` · exit ${r.exit_code}` : "";
    const header = `[state ${r.state} · via ${r.via}${matched}${exit}${truncationNote(r.truncated)}]`;
    const body =
      r.alt_screen && r.screen !== null
        ? `${r.output ? r.output + "\n" : ""}${screenHeading(r.screen_mode, r.screen, r.cursor)}\n${r.screen}`
        : r.output;
    return withHint(withOutput(withJobNotices(header, r.job_notices), body), r.hint);
  },
});
