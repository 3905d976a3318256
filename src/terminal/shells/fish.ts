/** fish: event handlers and an Enter binding, sourced by --init-command after config.fish. */
import { defineShell, REMOTE_CLEANUP_FISH } from "./descriptor.ts";
import SCRIPT from "./integration.fish" with { type: "text" };

/** Single quotes for fish: only `\` and `'` are special inside them. */
function quoteFish(s: string): string {
  return `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

export const FISH = defineShell({
  family: "fish",
  names: ["fish"],
  integration: "shell",
  syntax: "fish",
  files: { "fish.fish": SCRIPT },
  launch: (shellPath, dir) => ({
    argv: [shellPath, "-i", "--init-command", `source ${quoteFish(`${dir}/fish.fish`)}`],
    env: {},
  }),
  verdictChannel: true,
  hooks: {
    script: SCRIPT,
    after: "set -g __ptyhub_chan $__ptyhub_lines[2]\n",
    definedBy: "__ptyhub_prompt",
  },
  jobNotice: /^fish: Job \d+, '.*' (?:has ended|has stopped|terminated by signal .+)$/,
  noticeAfterBlankLine: true,
  optionsWithValue: ["-C", "--init-command"],
  canonicalPrompt: false,
  // fish reads the terminal raw in its own line editor only (its `read` too), bracketed paste or not.
  rawEditorAlways: true,
  promptAtColumnZero: false,
  remote: {
    files: { "fish.fish": SCRIPT + REMOTE_CLEANUP_FISH },
    boot: `exec "$shell" -l -i --init-command "source '$d/fish.fish'"`,
  },
});
