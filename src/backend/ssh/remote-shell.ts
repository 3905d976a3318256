/**
 * Starting the remote shell with shell integration, without typing anything into it.
 *
 * Typing setup lines into a login shell would echo them, race its start-up and land in its
 * history. Instead, over the already authenticated connection:
 *  1. a setup channel (no PTY, not interactive, so no history) runs a tiny fixed `/bin/sh -c`
 *     that makes a private temp dir (umask 077, mktemp -d) and sources a script sent on stdin;
 *     the script writes the integration rc files (the same hooks as local sessions, see
 *     shell-scripts.ts), the nonce, env and command into that dir, checks `cwd`, and reports
 *     the login shell ($SHELL) and the directory;
 *  2. the session channel, with a PTY at the session's size, runs `/bin/sh DIR/boot MODE SHELL`,
 *     which execs the login shell with our rc file (bash --rcfile, zsh ZDOTDIR, fish
 *     --init-command, POSIX sh $ENV). The rc loads the user's own login files first, installs
 *     the hooks, and deletes the dir: nothing stays behind on the host.
 * bash, zsh and fish get full integration ("shell"); dash/ash/ksh and unknown shells (csh…) get a
 * POSIX sh with per-command markers ("marker"). The nonce never appears on a command line nor in
 * an environment (a 0600 file, opened as the shell's descriptor 3 and removed before the shell
 * starts, then the shell's memory), and since marks are OSC sequences printed by
 * printf, the echo of a typed command can never forge one.
 */
import { randomBytes } from "node:crypto";
import type { Client, ClientChannel, ExecOptions, ShellOptions } from "ssh2";
import { AppError } from "../../api/errors.ts";
import type { ProgramSpec } from "../descriptor.ts";
import { logger } from "../../log.ts";
import { quotePosix, shellFamilyOf, type Integration, type ShellFamily } from "../../terminal/shell-integration.ts";
import { type PosixShellFamily, SHELLS, shellDescriptor } from "../../terminal/shells/all-shells.ts";

const log = logger("ssh-remote");

/**
 * The program that runs the setup script sent on its stdin, for `/bin/sh -c` (no single quotes in
 * it, so it can be quoted whole): makes the private dir, saves the script there and sources it.
 */
export const SETUP_PROGRAM =
  'umask 077 && d=$(mktemp -d "${TMPDIR:-/tmp}/ptyhub.XXXXXXXX") && cat > "$d/setup" && . "$d/setup"';

/** The setup line every POSIX host understands; the login shell (even fish or csh) passes it on intact. */
const SETUP_COMMAND = `/bin/sh -c '${SETUP_PROGRAM}'`;

/** The boot script's `case` over the shells: each shell's descriptor says how it is exec'd. */
const BOOT_SHELLS = SHELLS.map((shell) => `  ${shell.family})\n    ${shell.remote.boot} ;;\n`).join("");

/** Runs on the session's PTY: `/bin/sh DIR/boot MODE SHELL`. */
const BOOT = `# ptyhub: start the session's program from the files setup left in this directory.
d=\${0%/*}
mode=$1
shell=$2
PTYHUB_DIR=$d
export PTYHUB_DIR
if [ -r "$d/env" ]; then . "$d/env"; fi
# ptyhub's terminal is UTF-8. A host that sets no locale (sshd without AcceptEnv or PAM's locale)
# leaves the shell in POSIX: its line editor then counts a character's bytes as cells, wraps the
# command line elsewhere than the terminal does, and the output lands on the echo's last row.
if [ -z "\${LC_ALL-}\${LC_CTYPE-}\${LANG-}" ]; then
  for l in C.UTF-8 C.utf8 en_US.UTF-8 UTF-8; do
    if [ "$(LC_ALL=$l locale charmap 2>/dev/null)" = UTF-8 ]; then LC_CTYPE=$l; export LC_CTYPE; break; fi
  done
fi
if [ -r "$d/cwd" ]; then IFS= read -r __ptyhub_cwd < "$d/cwd"; cd -- "$__ptyhub_cwd" || exit 1; unset __ptyhub_cwd; fi
if [ "$mode" = cmd ]; then
  __ptyhub_cmd=$(cat "$d/cmd")
  IFS= read -r __ptyhub_nonce < "$d/nonce"
  rm -rf -- "$d"
  unset PTYHUB_DIR
  # The program starts now: a silence is measured from here, not from the slow start-up above.
  printf '\\033]6973;%s;S\\007' "$__ptyhub_nonce"
  unset __ptyhub_nonce
  exec /bin/sh -c "$__ptyhub_cmd"
fi
# The nonce reaches the shell on descriptor 3 (shell-scripts.ts), from a file gone before it starts.
exec 3< "$d/nonce"
rm -f -- "$d/nonce"
case $mode in
${BOOT_SHELLS}esac
`;

export type RemoteMode = PosixShellFamily | "cmd";

export interface RemoteLaunchRequest extends ProgramSpec {
  agentForward: boolean;
  /** Bound on the setup exchange. */
  timeoutMs: number;
}

export interface RemoteLaunch {
  channel: ClientChannel;
  integration: Integration;
  family: ShellFamily | null;
  /** The boot script marks the moment the program starts (S): a command, run without integration. */
  startMark: boolean;
  /** The shell or program, for the session's target. */
  program: string;
  cwd: string | null;
}

function heredoc(path: string, text: string, tag: string): string {
  return `cat > "$d/${path}" <<'${tag}'\n${text.endsWith("\n") ? text : text + "\n"}${tag}\n`;
}

/** The script the setup channel receives on stdin (run with `d` set to the fresh private dir). */
export function setupScript(req: RemoteLaunchRequest, wantShell: string | null, mode: "shell" | "cmd"): string {
  // A random delimiter: no text of the user's can end a here-document early.
  const tag = `PTYHUB_EOF_${randomBytes(9).toString("hex")}`;
  let s = "# ptyhub session setup\n";
  s += heredoc("boot", BOOT, tag);
  if (mode === "shell") {
    for (const shell of SHELLS)
      for (const [name, text] of Object.entries(shell.remote.files)) {
        const dir = name.includes("/") ? name.slice(0, name.lastIndexOf("/")) : null;
        if (dir) s += `mkdir -p "$d/${dir}"\n`;
        s += heredoc(name, text, tag);
      }
  } else {
    const line = req.args !== undefined ? [req.command!, ...req.args].map(quotePosix).join(" ") : req.command!;
    s += heredoc("cmd", line, tag);
  }
  // The shell's marks, or the command's start mark, carry it (never a command line).
  s += `printf '%s\\n' '${req.nonce}' > "$d/nonce"\n`;
  const env = { PTYHUB_SESSION: req.sessionId, TERM_PROGRAM: "ptyhub", ...req.env };
  s += heredoc(
    "env",
    Object.entries(env)
      .map(([k, v]) => `${k}=${quotePosix(v)}; export ${k}`)
      .join("\n"),
    tag,
  );
  if (req.cwd !== undefined) {
    s += `c=${quotePosix(req.cwd)}\ncase $c in "~") c=$HOME ;; "~/"*) c=$HOME/\${c#"~/"} ;; esac\n`;
    s += `if ! cd -- "$c" 2>/dev/null; then rm -rf -- "$d"; echo 'PTYHUB-SETUP nocwd'; exit 3; fi\npwd > "$d/cwd"\n`;
  }
  s += `s=\${SHELL:-/bin/sh}\n`;
  if (wantShell)
    s +=
      `if ! s=$(command -v ${quotePosix(wantShell)}); then rm -rf -- "$d"; echo 'PTYHUB-SETUP noshell'; exit 4; ` +
      `fi\n`;
  s += `rm -f -- "$d/setup"\nprintf 'PTYHUB-SETUP ok %s\\nPTYHUB-SHELL %s\\nPTYHUB-CWD %s\\n' "$d" "$s" "$PWD"\n`;
  return s;
}

function exec(client: Client, command: string, opts: ExecOptions & { agentForward?: boolean }): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    try {
      client.exec(command, opts, (err, ch) => (err ? reject(err) : resolve(ch)));
    } catch (err) {
      reject(err);
    }
  });
}

export interface SetupResult {
  status: string;
  dir: string;
  shell: string;
  cwd: string;
}

/** What the setup script printed (its PTYHUB-SETUP lines), or null when it did not report. */
export function parseSetupOutput(out: string): SetupResult | null {
  const status = /^PTYHUB-SETUP (\w+)(?: (.*))?$/m.exec(out);
  if (!status) return null;
  return {
    status: status[1]!,
    dir: status[2] ?? "",
    shell: /^PTYHUB-SHELL (.*)$/m.exec(out)?.[1] ?? "",
    cwd: /^PTYHUB-CWD (.*)$/m.exec(out)?.[1] ?? "",
  };
}

async function runSetup(client: Client, script: string, timeoutMs: number): Promise<SetupResult | null> {
  const ch = await exec(client, SETUP_COMMAND, {});
  let out = "";
  ch.on("data", (d: Buffer) => {
    out += d.toString("utf8");
  });
  ch.stderr.on("data", (d: Buffer) => log.debug(`setup stderr: ${d.toString("utf8").trim()}`));
  ch.end(script);
  const closed = new Promise<void>((resolve) => ch.once("close", () => resolve()));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
  const r = await Promise.race([closed, timedOut]);
  clearTimeout(timer);
  if (r === "timeout") {
    ch.close();
    return null;
  }
  return parseSetupOutput(out);
}

/** Characters a path may hold to be passed on the login shell's command line. */
const SAFE_PATH = /^[A-Za-z0-9_./+,:@%-]+$/;

/** What a launch runs: the login shell (or a shell named in `command`) with integration, or a command. */
export interface LaunchPlan {
  command: string | undefined;
  /** A shell named in `command` (looked up on the host's PATH), else null. */
  namedShell: string | null;
  mode: "shell" | "cmd";
}

/** Checks the request and says what the launch runs. */
export function planLaunch(req: ProgramSpec): LaunchPlan {
  const command = req.command?.trim();
  const namedShell =
    req.args === undefined && command && /^\S+$/.test(command) && shellFamilyOf(command) ? command : null;
  const mode: "shell" | "cmd" = !command || namedShell ? "shell" : "cmd";
  if (req.args !== undefined && !command)
    throw new AppError(
      "INVALID_ARGUMENT",
      "`args` needs `command` (the executable)",
      'Pass command:"python3", args:["-q"].',
    );
  if (req.cwd !== undefined && /[\n\0]/.test(req.cwd))
    throw new AppError("INVALID_ARGUMENT", "cwd must be a single line", "Pass a directory path.");
  return { command, namedShell, mode };
}

/**
 * The setup's answer as an error the caller reports (a missing cwd or shell); "fallback" when the
 * host could not run the setup at all (a plain shell without integration is what is left); null
 * when the boot can go ahead.
 */
export function setupVerdict(plan: LaunchPlan, setup: SetupResult | null, cwd?: string): AppError | "fallback" | null {
  if (setup?.status === "nocwd")
    return new AppError(
      "CWD_NOT_FOUND",
      `directory not found on the remote host: ${cwd}`,
      "Pass an existing remote directory as cwd (absolute, or ~/…).",
    );
  if (setup?.status === "noshell")
    return new AppError(
      "SPAWN_FAILED",
      `shell not found on the remote host: ${plan.namedShell}`,
      "Install it there, or omit command to use the login shell.",
    );
  if (setup?.status === "ok" && SAFE_PATH.test(setup.dir)) return null;
  if (setup?.status === "ok")
    log.warn(`remote temp dir has unusual characters, not used: ${JSON.stringify(setup.dir)}`);
  if (plan.mode === "cmd")
    return new AppError(
      "SPAWN_FAILED",
      "the remote host cannot run the setup ptyhub needs to start a command (no POSIX /bin/sh, or exec disabled)",
      "Open the session without command and drive the program with term_send.",
    );
  return "fallback";
}

/** How the boot script starts the program, once the setup succeeded. */
export interface BootPlan {
  /** `/bin/sh DIR/boot MODE SHELL`, as argv. */
  argv: string[];
  integration: Integration;
  family: ShellFamily | null;
  startMark: boolean;
  program: string;
  cwd: string | null;
}

export function planBoot(req: ProgramSpec, plan: LaunchPlan, setup: SetupResult): BootPlan {
  let family: PosixShellFamily | null = null;
  let runMode: RemoteMode = "cmd";
  let shellPath = setup.shell;
  if (plan.mode === "shell") {
    family = SAFE_PATH.test(shellPath) ? shellFamilyOf(shellPath) : null;
    if (!family) {
      // csh, tcsh, nushell…: term_exec needs a POSIX shell, so the session gets /bin/sh with markers.
      log.info(`remote login shell ${shellPath} is not bash/zsh/fish/POSIX sh: using /bin/sh with markers`);
      family = "sh";
      shellPath = "/bin/sh";
    }
    runMode = family;
  }
  const argv = ["/bin/sh", `${setup.dir}/boot`, runMode, plan.mode === "shell" ? shellPath : "-"];
  const integration: Integration = plan.mode === "cmd" ? "none" : shellDescriptor(family)!.integration;
  const program =
    plan.mode === "cmd"
      ? req.args !== undefined
        ? [plan.command!, ...req.args].join(" ")
        : plan.command!
      : shellPath.split("/").pop()!;
  const startMark = plan.mode === "cmd";
  return { argv, integration, family: startMark ? null : family, program, cwd: setup.cwd || null, startMark };
}

/**
 * Starts the session's program on the remote host: its shell with integration, a shell named in
 * `command`, or a command (no integration). Falls back to a plain login shell without
 * integration when the host cannot run the setup (not a POSIX system, exec disabled).
 */
export async function launchRemote(client: Client, req: RemoteLaunchRequest): Promise<RemoteLaunch> {
  const pty = { term: "xterm-256color", cols: req.cols, rows: req.rows };
  const plan = planLaunch(req);
  const setup = await runSetup(client, setupScript(req, plan.namedShell, plan.mode), req.timeoutMs).catch(
    (err: Error) => {
      log.warn(`remote setup failed: ${err.message}`);
      return null;
    },
  );
  const verdict = setupVerdict(plan, setup, req.cwd);
  if (verdict instanceof AppError) throw verdict;
  if (verdict === "fallback" || !setup) {
    log.warn("remote setup did not run: falling back to a plain login shell without shell integration");
    const channel = await new Promise<ClientChannel>((resolve, reject) =>
      client.shell(pty, (req.agentForward ? { agentForward: true } : {}) as ShellOptions, (err, ch) =>
        err ? reject(err) : resolve(ch),
      ),
    );
    return { channel, integration: "none", family: null, program: "shell", cwd: null, startMark: false };
  }
  const boot = planBoot(req, plan, setup);
  const channel = await exec(client, `exec ${boot.argv.join(" ")}`, {
    pty,
    ...(req.agentForward ? { agentForward: true } : {}),
  });
  const { integration, family, program, cwd, startMark } = boot;
  return { channel, integration, family, program, cwd, startMark };
}
