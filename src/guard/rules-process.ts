/**
 * The `kill-all` rule: signalling every process, or those the machine and its users cannot do
 * without — `kill -9 -1` (every process the user may signal), `kill 1` (init), `kill 0` (this
 * shell's whole group), `killall5`, `pkill`/`killall` of every user's process, of a pattern that
 * matches every name, or of init, systemd, sshd or every shell, and `kill $(pgrep .)` in any form.
 */
import type { Rule, RuleInput } from "./rule-types.ts";
import type { SimpleCommand } from "./parse.ts";
import { options } from "./options.ts";

/** `kill`'s options that take a value; the pids follow. */
const KILL_VALUED = new Set(["-s", "-n", "--signal"]);

/** The pids `kill ARGS` signals: the first `-SIG` is the signal, later `-N` are process groups (`-1`: all). */
function killTargets(args: string[]): string[] {
  const pids: string[] = [];
  let signalGiven = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      pids.push(...args.slice(i + 1));
      break;
    }
    if (KILL_VALUED.has(a)) {
      signalGiven = true;
      i++;
    } else if (a.startsWith("-") && !signalGiven) signalGiven = true;
    else pids.push(a);
  }
  return pids;
}

/** pkill's/killall's options that take a value (the user given to -u among them). */
const PKILL_VALUED = new Set(["-u", "-U", "-g", "-G", "-P", "-s", "-t", "-F", "--signal", "-o", "-y", "-n"]);
/** Options that select by user: with no name, every process of that user. */
const BY_USER = /^(-[uU].*|--(user|uid|euid)(=.*)?)$/;
/** Patterns that match every process name (`.`, `.*`, `''`, `^`). */
const MATCHES_ALL = /^(\^?\.[*+]?\$?|\^|\$|\^\$?|)$/;
/** Processes whose loss stops the machine, every login, scheduled work, or every shell (the agent's own among them). */
const VITAL_PROCESS = new RegExp(
  "^(init|systemd(-logind|-journald|-udevd)?|sshd|cron|crond|atd|dockerd|containerd|kubelet|dbus-daemon|login|" +
    "(ba|z|da|k|fi)?sh|Xorg|Xwayland|gnome-shell|gdm3?|sddm|lightdm|" +
    // Servers of data: killed, a database may not come back cleanly, and what it serves stops.
    "postgres|postmaster|mysqld|mariadbd|mongod|redis-server|etcd|nginx|apache2|httpd|kube-apiserver)$",
);

/** The names or patterns a pkill/killall is given, and whether it selects by user. */
function killSelection(args: string[]): { names: string[]; byUser: boolean } {
  const names: string[] = [];
  let byUser = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (BY_USER.test(a)) byUser = true;
    if (PKILL_VALUED.has(a) || a === "--user" || a === "--uid" || a === "--euid") i++;
    else if (!a.startsWith("-") || a === "") names.push(a);
  }
  return { names, byUser };
}

function killsByName(program: string, args: string[]): string | null {
  const { names, byUser } = killSelection(args);
  // `pkill -P 1`: every child of init, which is every daemon.
  if (program === "pkill" && args.some((a, i) => (a === "-P" || a === "--parent") && args[i + 1] === "1")) {
    return "pkill -P 1 signals every daemon (every child of init)";
  }
  // `pkill -u USER` / `killall -u USER` with no name: every process of that user (`-t TTY`: of a terminal).
  if (names.length === 0 && args.some((a) => a === "-t" || a.startsWith("--terminal"))) {
    return `${program} -t signals every process of the terminal`;
  }
  if (names.length === 0) return byUser ? `${program} -u signals every process of the user` : null;
  // pkill's pattern is a regular expression; killall's only with -r.
  const regex = program === "pkill" || options(args).short.has("r") || options(args).long.has("regexp");
  if (regex && names.some((n) => MATCHES_ALL.test(n))) return `${program} ${names[0]} matches every process`;
  const vital = names.find((n) => VITAL_PROCESS.test(n));
  return vital ? `${program} ${vital} kills what the machine, its logins or its shells run on` : null;
}

/**
 * Does this command print the pid of every process (of a user), or of the vital ones: `pgrep .`,
 * `pgrep -u dev`, `ps -e`, `pgrep sshd`, `pidof systemd`?
 */
function listsEveryProcess(argv: string[]): boolean {
  const [program = "", ...args] = argv;
  if (program === "pgrep") {
    const { names, byUser } = killSelection(args);
    return names.length === 0 ? byUser : names.some((n) => MATCHES_ALL.test(n) || VITAL_PROCESS.test(n));
  }
  // `pidof sshd`, `pidof systemd`: the pids of what logins or the machine run on.
  if (program === "pidof") return args.some((a) => VITAL_PROCESS.test(a));
  // `cat /var/run/sshd.pid`: a vital daemon's pid file; `lsof -t -i :22`: whatever serves ssh.
  if (program === "cat") return args.some((a) => VITAL_PROCESS.test(/([^/]+)\.pid$/.exec(a)?.[1] ?? ""));
  if (program === "lsof") return args.some((a) => /^(tcp)?:(22|ssh)$/.test(a.replace(/^-i/, "")));
  // `ls /proc`: a directory per process; `ps -o ppid= -p $$`: the agent's own shell's parent.
  if (program === "ls") return args.some((a) => /^\/proc\/?$/.test(a));
  if (program === "ps" && args.includes("$$") && args.some((a) => /ppid/.test(a))) return true;
  // `ps -u root -o pid=`: every process of a user.
  if (program === "ps" && args.some((a) => /^-[uU]$|^--user/.test(a))) return true;
  // `ps -e`, `ps -A`, `ps ax`, `ps aux`: every process on the machine.
  return program === "ps" && args.some((a) => /^-?[a-zA-Z]*[eA][a-zA-Z]*$/.test(a) || /^a?u?x$/.test(a));
}

/**
 * Commands that only pick a column or drop a header line: after a listing of everything
 * (`ps aux | awk '{print $2}'`, `| tail -n +2 | cut -c1-6`) they still print every pid.
 */
function keepsEveryRow(argv: string[]): boolean {
  const [program = "", ...args] = argv;
  if (/^(awk|gawk|mawk)$/.test(program)) {
    const code = args.find((a) => !a.startsWith("-")) ?? "";
    return /^\s*(NR\s*>\s*1\s*)?\{\s*print\s+\$\d+\s*;?\s*\}\s*$/.test(code);
  }
  if (program === "cut" || program === "tr") return true;
  // `grep -v grep`, `grep -v PID`: every row but a few; `grep -E '^[0-9]+$'`: every pid of `ls /proc`.
  if (program === "grep" && args.some((a) => /^-[a-zA-Z]*v/.test(a))) return true;
  if (program === "grep" && args.some((a) => /^\^?\[0-9\][+*]\$?$|^\^?\\d[+*]\$?$/.test(a))) return true;
  if (program === "tail") return args.some((a) => /^\+\d$/.test(a) || a === "-n+2");
  return program === "sed" && args.length === 1 && /^1d$/.test(args[0]!);
}

/** `kill $(pgrep .)`, `ps -e -o pid= | xargs kill`: the pids come from a listing of everything. */
function killsListedProcesses({ inv, pipeline, index }: RuleInput): boolean {
  // Only the listing's own output counts: `ps -e | grep java | xargs kill` kills what grep picked.
  const printsAll = (p: SimpleCommand[]) => p.length > 0 && listsEveryProcess(p[p.length - 1]!.argv);
  const nested = (cmd: SimpleCommand): boolean =>
    cmd.nested.some((line) => line.pipelines.some((p) => printsAll(p) || p.some(nested)));
  // The listing feeds kill directly, or through commands that only pick the pid column.
  let at = index - 1;
  while (at > 0 && keepsEveryRow(pipeline[at]!.argv)) at--;
  const feeder = pipeline[at];
  const direct = feeder !== undefined && listsEveryProcess(feeder.argv);
  const viaColumn = index - 1 > at && feeder !== undefined && listsEveryProcess(feeder.argv);
  return nested(inv.source) || direct || viaColumn;
}

/** Signals that ask a daemon to reload or reopen its logs (`-HUP`, `-USR1`), or only test it (`-0`). */
const GENTLE_SIGNAL = /^(-(SIG)?(HUP|USR1|USR2|WINCH|CONT)|-0|--signal=(SIG)?(HUP|USR1|USR2))$/i;
/** Signals that end a process without letting it clean up. */
const HARD_SIGNAL = /^-(9|KILL|SIGKILL)$|^--signal=(9|KILL|SIGKILL)$/i;

/**
 * On another host, a server's processes killed by name (`ssh prod 'pkill -9 -f java'`, `kill -9
 * $(pgrep java)`) take down what they serve, without a chance to finish their work.
 */
function remoteKill({ inv }: RuleInput): string | null {
  if (inv.remote !== true) return null;
  const [program = "", ...args] = inv.argv;
  const hard = args.some(
    (a, i) => HARD_SIGNAL.test(a) || (/^(-s|--signal)$/.test(args[i - 1] ?? "") && /^(9|KILL)$/i.test(a)),
  );
  if (!hard) return null;
  if (program === "pkill" || program === "killall") return `${program} -9 on a remote host kills a service's processes`;
  const picked = inv.source.nested.some((l) =>
    l.pipelines.some((p) => p.some((c) => /^(pgrep|pidof)$/.test(c.argv[0] ?? ""))),
  );
  return program === "kill" && picked ? "kill -9 of a service's processes on a remote host" : null;
}

export const KILL_ALL_RULE: Rule = {
  id: "kill-all",
  summary:
    "signalling every process (kill -9 -1, kill 0, killall5, pkill -u USER, pkill -f ., kill $(pgrep .)), " +
    "init (kill 1) or what logins run on (pkill sshd, killall bash)",
  check(input) {
    const [program = "", ...args] = input.inv.argv;
    if (program === "killall5") return "killall5 signals every process";
    // `fuser -k /` (`-km /home`), `fuser -k 22/tcp`: every process using the root or home, or serving ssh.
    if (program === "fuser" && args.some((a) => /^-[a-zA-Z]*k/.test(a))) {
      const target = args.find((a) => /^(\/|\/home\/?|~|\$HOME|22\/tcp|ssh\/tcp)$/.test(a));
      if (target) return `fuser -k ${target} kills every process using it`;
    }
    // `pkill -HUP nginx`, `kill -USR1 $(pgrep nginx)`: a reload or a log reopen, not an end.
    const gentle = args.some((a) => GENTLE_SIGNAL.test(a));
    if (program === "pkill" || program === "killall")
      return gentle ? null : (killsByName(program, args) ?? remoteKill(input));
    if (
      program === "loginctl" &&
      /^(terminate|kill)-(user|session|seat)$/.test(args.find((a) => !a.startsWith("-")) ?? "")
    ) {
      return "loginctl ends every process of the user's sessions";
    }
    if (program !== "kill" || args.includes("-l") || args.includes("-L")) return null;
    const pids = killTargets(args);
    if (pids.includes("-1"))
      return "kill -1 signals every process you may signal: your session, the desktop, the agent";
    if (pids.includes("1")) return "kill 1 signals init: the machine stops or restarts";
    // Pid 0 (or this shell's own group, `-$$`) is every process of the group: the agent's shell too.
    if (pids.some((p) => p === "0" || p === "-$$")) return "kill 0 signals the shell's whole process group";
    // `kill -9 $$`, `kill $PPID`: the shell the agent types into, or what runs it.
    if (pids.some((p) => /^(\$\$|\$PPID|\$\{PPID\})$/.test(p)))
      return `kill ${pids.join(" ")} ends the agent's own shell`;
    if (!gentle && killsListedProcesses(input)) return "kill signals every process a listing of all of them printed";
    return remoteKill(input);
  },
};
