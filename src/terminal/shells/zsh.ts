/** zsh: hooks in precmd and preexec, loaded through ZDOTDIR (.zshenv chains to the user's). */
import { defineShell, REMOTE_CLEANUP_POSIX } from "./descriptor.ts";
import ZSHENV from "./zshenv.zsh" with { type: "text" };
import ZSHRC from "./zshrc.zsh" with { type: "text" };

/** zsh -l reads $ZDOTDIR/.zprofile between .zshenv and .zshrc: chain to the user's. */
const REMOTE_ZPROFILE = `# ptyhub shell integration for zsh (.zprofile): load the user's .zprofile.
ZDOTDIR="$__ptyhub_user_zdotdir"
[[ -r "$ZDOTDIR/.zprofile" ]] && source "$ZDOTDIR/.zprofile"
ZDOTDIR="$__ptyhub_zdotdir"
`;

export const ZSH = defineShell({
  family: "zsh",
  names: ["zsh"],
  integration: "shell",
  syntax: "posix",
  files: { "zsh/.zshenv": ZSHENV, "zsh/.zshrc": ZSHRC },
  launch: (shellPath, dir, env) => ({
    argv: [shellPath, "-i"],
    env: { ...(env.ZDOTDIR ? { PTYHUB_USER_ZDOTDIR: env.ZDOTDIR } : {}), ZDOTDIR: `${dir}/zsh` },
  }),
  verdictChannel: true,
  hooks: {
    script: ZSHRC,
    after: `[[ -r "\${ZDOTDIR:-$HOME}/.zshrc" ]] && source "\${ZDOTDIR:-$HOME}/.zshrc"\n`,
    definedBy: "__ptyhub_precmd",
  },
  // A lowercase status, optionally after the pid (`setopt longlistjobs`); `running` is only listed.
  jobNotice: /^\[\d+\] +[-+]? +(?:\d+ +)?(?!running\b)[a-z][a-z0-9 -]*?(?: \(core dumped\))? +\S.*$/,
  noticeAfterBlankLine: false,
  optionsWithValue: ["-o", "+o"],
  canonicalPrompt: false,
  rawEditorAlways: false,
  promptAtColumnZero: false,
  remote: {
    files: {
      "zsh/.zshenv": ZSHENV,
      "zsh/.zprofile": REMOTE_ZPROFILE,
      "zsh/.zshrc": ZSHRC + REMOTE_CLEANUP_POSIX,
    },
    boot: `if [ -n "$ZDOTDIR" ]; then PTYHUB_USER_ZDOTDIR=$ZDOTDIR; export PTYHUB_USER_ZDOTDIR; fi
    ZDOTDIR=$d/zsh
    export ZDOTDIR
    exec "$shell" -l -i`,
  },
});
