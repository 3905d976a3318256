/**
 * POSIX sh (dash, ash, ksh…): no hooks to rely on, so term_exec wraps each command in marker
 * functions ("marker" completion), loaded through $ENV after the user's own $ENV.
 */
import { defineShell, REMOTE_CLEANUP_POSIX } from "./descriptor.ts";
import SCRIPT from "./markers.sh" with { type: "text" };
import { POSIX_JOB_NOTICE } from "./posix-notices.ts";

/** Where the loading of the user's $ENV ends in the script: the marker functions follow. */
const USER_ENV_LOADED = "  unset ENV\nfi\n";

/** Over SSH: emulate the login (profile files), then the user's $ENV, then the marker functions. */
function remoteRc(): string {
  const found = SCRIPT.indexOf(USER_ENV_LOADED);
  if (found < 0) throw new Error("sh remote rc: the integration script changed, update the descriptor");
  return `# ptyhub markers for POSIX sh over SSH: loaded through $ENV.
__ptyhub_nonce=
{ IFS= read -r __ptyhub_nonce <&3; } 2>/dev/null
exec 3<&-
unset ENV
if [ -r /etc/profile ]; then . /etc/profile; fi
if [ -r "$HOME/.profile" ]; then . "$HOME/.profile"; fi
if [ -n "$ENV" ] && [ -r "$ENV" ]; then . "$ENV"; fi
${SCRIPT.slice(found + USER_ENV_LOADED.length)}${REMOTE_CLEANUP_POSIX}`;
}

export const SH = defineShell({
  family: "sh",
  names: ["sh", "dash", "ash", "ksh", "mksh", "ksh93"],
  integration: "marker",
  syntax: "posix",
  files: { "sh.rc": SCRIPT },
  launch: (shellPath, dir, env) => ({
    argv: [shellPath, "-i"],
    env: { ...(env.ENV ? { PTYHUB_USER_ENV: env.ENV } : {}), ENV: `${dir}/sh.rc` },
  }),
  verdictChannel: false,
  hooks: { script: SCRIPT, after: USER_ENV_LOADED, definedBy: "__ptyhub_c" },
  jobNotice: POSIX_JOB_NOTICE,
  noticeAfterBlankLine: false,
  optionsWithValue: ["-o", "+o"],
  // dash reads its prompt's line in canonical mode: the screen is all there is to tell it by.
  canonicalPrompt: true,
  rawEditorAlways: false,
  promptAtColumnZero: false,
  remote: {
    files: { "sh.rc": remoteRc() },
    boot: `ENV=$d/sh.rc
    export ENV
    exec "$shell" -i`,
  },
});

/** The script's text, for a serial line's shell (session/serial-shell.ts), which types its marker lines. */
export const SH_SCRIPT: string = SCRIPT;
