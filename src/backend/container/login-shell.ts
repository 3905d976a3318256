/**
 * The user's login shell in a container, as a login would pick it: an exec has no login, so no
 * $SHELL; it comes from the user's /etc/passwd entry (by name or uid), read in pure sh (minimal
 * images have no awk or getent), else /bin/sh.
 */
import { quotePosix, shellFamilyOf } from "../../terminal/shell-integration.ts";
import type { ContainerInfo, EngineClient } from "./engine-client.ts";
import { runExec } from "./exec-run.ts";

/** Bound on the small exec that reads the user's login shell. */
export const PROBE_EXEC_MS = 15_000;

/** Sets $SHELL from /etc/passwd (by name or uid) when the exec has none: pure sh, no awk or getent. */
export function loginShellPrelude(user: string): string {
  const who = user.split(":")[0] || "root";
  return `u=${quotePosix(who)}
if [ "$u" = root ]; then u0=0; else u0=$u; fi
if [ -z "\${SHELL-}" ]; then
  SHELL=/bin/sh
  if [ -r /etc/passwd ]; then
    while IFS=: read -r n _ id _ _ _ s; do
      if [ "$n" = "$u" ] || [ "$id" = "$u0" ]; then
        if [ -n "$s" ] && [ -x "$s" ]; then SHELL=$s; fi
        break
      fi
    done < /etc/passwd
  fi
fi
`;
}

/** A probe's answer (the shell it printed) as the shell to run: a POSIX one, else /bin/sh; undefined: none said. */
export function loginShellFrom(out: string): string | undefined {
  const shell = out.trim();
  if (!shell) return undefined;
  // nologin, false, csh…: term_exec needs a POSIX shell, as an SSH session falls back to /bin/sh.
  return shellFamilyOf(shell) ? shell : "/bin/sh";
}

/** The probe that prints the user's login shell (for `/bin/sh -c`). */
export function loginShellProbe(user: string): string {
  return `${loginShellPrelude(user)}printf '%s\\n' "$SHELL"`;
}

/**
 * The user's login shell in the container (/etc/passwd, else /bin/sh); undefined when the probe
 * says nothing, and the daemon inside then picks its own default ($SHELL, bash, sh).
 */
export async function loginShell(
  engine: EngineClient,
  info: ContainerInfo,
  user?: string,
): Promise<string | undefined> {
  const script = loginShellProbe(user ?? info.user);
  const r = await runExec(engine, info.id, ["/bin/sh", "-c", script], { user, timeoutMs: PROBE_EXEC_MS });
  return loginShellFrom(r.out);
}
