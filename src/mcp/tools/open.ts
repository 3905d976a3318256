import { defineTool } from "../tool.ts";
import { openInput, openOutput } from "../../api/methods/open.ts";
import { headerValue, truncationNote, withHint, withOutput } from "../result-text.ts";

export const termOpen = defineTool({
  name: "term_open",
  title: "Open a terminal session",
  description:
    "Start a persistent terminal session: your shell (default), a program (python3, node, psql, vim…), or a command " +
    "line. " +
    "State (cwd, env, running programs) persists across calls. Returns once the session is ready (first prompt, or " +
    "output settled; a program that prints nothing and sleeps: state running within ~1 s, follow it with " +
    "term_read) with what it printed. " +
    "With `ssh`, the same on a remote host: one login (keys from ssh-agent or ~/.ssh; passwords and passphrases are " +
    "asked of the human), then every call rides that connection. " +
    'Unknown host keys are refused unless ssh.host_key is "accept-new". ' +
    "With `serial`, a serial line (boot logs, bootloader prompts, consoles); " +
    "term_serial changes its settings, DTR/RTS and sends a break. " +
    "With `container`, a shell inside a running Docker/Podman container (persistent by default). " +
    "You rarely need this for plain shell commands: term_exec without `session` uses a default shell session.",
  input: openInput,
  output: openOutput,
  annotations: { destructiveHint: false, openWorldHint: true },
  async run(args, ctx) {
    return ctx.host.call("open", args, ctx);
  },
  text(r) {
    // Clients that read only the text (Claude Code, Codex) must still learn how a human can watch.
    const attach = r.attach ? ` · a human can watch: ${r.attach}` : "";
    const integration = r.shell_integration ? "shell integration" : "no shell integration";
    const header =
      `[opened ${r.session} · ${r.kind} · ${headerValue(r.target)}${r.pid ? ` · pid ${r.pid}` : ""} · ` +
      `${r.cols}x${r.rows} · ${integration} · state ${r.state} · via ${r.via}` +
      `${attach}${truncationNote(r.truncated)}]`;
    return withHint(withOutput(header, r.output), r.hint);
  },
});
