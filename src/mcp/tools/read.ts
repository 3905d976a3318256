import { defineTool } from "../tool.ts";
import { readInput, readOutput } from "../../api/methods/read.ts";
import { truncationNote, withOutput } from "../result-text.ts";

export const termRead = defineTool({
  name: "term_read",
  title: "Read a session",
  description:
    "Read a session without typing: new output since your last read (waits up to wait_ms for some), the screen, a " +
    "diff of changed screen rows (cheap for watching TUIs), " +
    "or history lines by number (to fetch what a truncated result omitted). `dropped` counts characters lost to " +
    "buffer limits since your last read.",
  task: true,
  input: readInput,
  output: readOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    return ctx.host.call("read", args, ctx);
  },
  text(r) {
    // lines_total is the history's length: "· 3 lines" above one line of output read as lines left out.
    const parts = [
      `${r.mode} · state ${r.state}`,
      r.via ? `via ${r.via}` : null,
      r.matched !== null ? `matched ${JSON.stringify(r.matched)}` : null,
      `${r.lines_total} lines in history`,
      r.dropped ? `${r.dropped} chars dropped` : null,
      r.exit_code !== null ? `exit ${r.exit_code}` : null,
      r.alt_screen ? "alt screen" : null,
    ];
    const header = `[${parts.filter((p) => p !== null).join(" · ")}${truncationNote(r.truncated)}]`;
    return withOutput(header, r.output);
  },
});
