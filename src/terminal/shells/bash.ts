/** bash: hooks in PROMPT_COMMAND, PS0 and PS1; the guard asks about each command (DEBUG trap). */
import { defineShell, REMOTE_CLEANUP_POSIX, replacePart } from "./descriptor.ts";
import SCRIPT from "./integration.bash" with { type: "text" };
import { POSIX_JOB_NOTICE } from "./posix-notices.ts";

/** What local bash sources (non-login) → what a login bash sources (bash(1), INVOCATION). */
const LOCAL_RC = `if [ -r /etc/bash.bashrc ]; then . /etc/bash.bashrc; fi
if [ -r "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi
`;
const LOGIN_RC = `# A remote session is a login: load what a login bash loads (which usually loads .bashrc).
if [ -r /etc/profile ]; then . /etc/profile; fi
if [ -r "$HOME/.bash_profile" ]; then . "$HOME/.bash_profile"
elif [ -r "$HOME/.bash_login" ]; then . "$HOME/.bash_login"
elif [ -r "$HOME/.profile" ]; then . "$HOME/.profile"; fi
`;

export const BASH = defineShell({
  family: "bash",
  names: ["bash"],
  integration: "shell",
  syntax: "posix",
  files: { "bash.rc": SCRIPT },
  launch: (shellPath, dir) => ({ argv: [shellPath, "--rcfile", `${dir}/bash.rc`, "-i"], env: {} }),
  verdictChannel: true,
  hooks: {
    script: SCRIPT,
    after: `if [ -r "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi\n`,
    definedBy: "__ptyhub_precmd",
  },
  jobNotice: POSIX_JOB_NOTICE,
  noticeAfterBlankLine: false,
  optionsWithValue: ["--rcfile", "--init-file", "-o", "+o", "-O", "+O"],
  canonicalPrompt: false,
  rawEditorAlways: false,
  promptAtColumnZero: true,
  remote: {
    files: { "bash.rc": replacePart(SCRIPT, LOCAL_RC, LOGIN_RC, "bash remote rc") + REMOTE_CLEANUP_POSIX },
    boot: `exec "$shell" --rcfile "$d/bash.rc" -i`,
  },
});
