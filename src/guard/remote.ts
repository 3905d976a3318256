/**
 * Commands that run another command somewhere else: `ssh host '…'`, `docker exec c …`,
 * `kubectl exec pod -- …`. What runs there is as destructive as it would be here, so the guard
 * judges the inner command (parsed as a shell line: ssh hands its words to the remote shell).
 */
import { argvLine } from "./shell-quote.ts";
import { otherRunnerLine } from "./remote-runners.ts";
import { isDryRun } from "./dry-runs.ts";

/** ssh's options that take a value (OpenSSH ssh(1)): the host is the first word after them. */
const SSH_VALUED = new Set("BbcDEeFIiJLlmOoPpQRSWw".split(""));
/** `docker exec` / `podman exec` / `compose exec` options that take a value. */
const EXEC_VALUED = new Set([
  ...["-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys", "--index"],
  ...["-c", "--container", "-n", "--namespace", "--context", "--kubeconfig", "--cluster", "-f", "--filename"],
  ...["--pod-running-timeout", "-s", "--server", "--token", "--as", "--project"],
  // docker/podman run's options that take a value.
  ...["-v", "--volume", "--mount", "--name", "-p", "--publish", "--network", "--net", "--entrypoint", "-l"],
  ...["--label", "--platform", "-h", "--hostname", "--cpus", "-m", "--memory", "--restart", "--pull", "--device"],
  ...["--cap-add", "--cap-drop", "--security-opt", "--add-host", "--dns", "--tmpfs", "--ulimit", "--gpus"],
  ...["--shm-size", "--log-driver", "--log-opt", "--pid", "--ipc", "--uts", "--runtime", "-a", "--attach"],
  ...["--image", "--overrides", "--restart", "--env-from", "--cidfile", "--group-add", "--expose"],
]);
/** Global options of docker, compose and kubectl that take a value and may stand before `exec`. */
const GLOBAL_VALUED = new Set([
  ...["-n", "--namespace", "--context", "--kubeconfig", "--cluster", "-H", "--host", "-c", "--config"],
  ...["-f", "--file", "-p", "--project-name", "--project-directory", "--env-file", "--profile", "-s", "--server"],
]);
/** Container and cluster tools whose `exec` runs a command inside. */
const EXEC_TOOLS = new Set([
  ...["docker", "podman", "nerdctl", "kubectl", "k", "kubecolor", "oc", "lxc", "incus", "docker-compose", "crictl"],
  "finch",
]);
/** Subcommand words that may stand between the tool and `exec`/`run`. */
const EXEC_GROUPS = new Set(["container", "compose"]);

function baseName(program: string): string {
  return program.slice(program.lastIndexOf("/") + 1);
}

/** The index past ssh's options from `i` (`-p 22` takes the next word; `-p22`, `-tt` do not), and a `--`. */
function pastSshOptions(args: string[], from: number): number {
  let i = from;
  while (i < args.length && args[i]!.startsWith("-") && args[i] !== "--") {
    const a = args[i]!;
    const last = a[a.length - 1]!;
    i += a.length === 2 && SSH_VALUED.has(last) ? 2 : 1;
  }
  return args[i] === "--" ? i + 1 : i;
}

/** The command line `ssh [options] host [options] command…` runs on the host, or null (an interactive login). */
function sshCommand(args: string[]): string | null {
  const host = pastSshOptions(args, 0);
  // ssh reads options after the host too (`ssh host -p 22 'cmd'`, `ssh -l root host -- cmd`).
  const rest = args.slice(pastSshOptions(args, host + 1));
  // ssh joins its words with spaces and the remote shell parses them again.
  return rest.length > 0 ? rest.join(" ") : null;
}

/** The command after `exec [options] TARGET` (or after `--`), as a shell line; null when none. */
function execCommand(args: string[]): string | null {
  const dash = args.indexOf("--");
  if (dash !== -1) return args.length > dash + 1 ? argvLine(args.slice(dash + 1)) : null;
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) {
    const a = args[i]!;
    i += EXEC_VALUED.has(a) && !a.includes("=") ? 2 : 1;
  }
  const rest = args.slice(i + 1);
  return rest.length > 0 ? argvLine(rest) : null;
}

/** tmux verbs whose last word is a shell command to run, and `send-keys`, whose words are typed. */
const TMUX_RUNS = new Set(["new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane"]);
const TMUX_VALUED = new Set(["-t", "-s", "-n", "-c", "-e", "-x", "-y", "-F", "-l", "-L", "-S", "-f", "-N"]);
/** Keys tmux send-keys names (not text): they end or edit the typed line. */
const TMUX_KEYS = /^(Enter|C-m|C-j|KPEnter|Escape|C-c|Tab)$/;

/** The shell line a tmux command runs in a new pane, or types into one; null when none. */
function tmuxLine(args: string[]): string | null {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) i += TMUX_VALUED.has(args[i]!) ? 2 : 1;
  const verb = args[i];
  if (verb === undefined) return null;
  const words: string[] = [];
  for (let k = i + 1; k < args.length; k++) {
    const a = args[k]!;
    if (a.startsWith("-") && words.length === 0) k += TMUX_VALUED.has(a) ? 1 : 0;
    else words.push(a);
  }
  if (verb === "send-keys" || verb === "send") return words.filter((w) => !TMUX_KEYS.test(w)).join(" ") || null;
  return TMUX_RUNS.has(verb) && words.length > 0 ? words.join(" ") : null;
}

/** `gcloud compute ssh VM --command '…'`, `vagrant ssh -c '…'`: the command given to the remote shell. */
function commandFlag(args: string[]): string | null {
  const at = args.findIndex((a) => a === "--command" || a === "-c");
  if (at !== -1) return args[at + 1] ?? null;
  return args.find((a) => a.startsWith("--command="))?.slice("--command=".length) ?? null;
}

/** ansible's modules that run their `-a` argument as a command line. */
const ANSIBLE_RUNS = /^(shell|command|raw|ansible\.builtin\.(shell|command|raw))$/;

/** `ansible hosts -a 'cmd'` (the command module by default), `-m shell -a …`: the command line it runs. */
function ansibleCommand(args: string[]): string | null {
  const module = args.find((_a, i) => args[i - 1] === "-m" || args[i - 1] === "--module-name") ?? "command";
  const arg = args.find((_a, i) => args[i - 1] === "-a" || args[i - 1] === "--args");
  return arg !== undefined && ANSIBLE_RUNS.test(module) ? arg : null;
}

/** Tools that run their trailing words as a command on many hosts, and their options that take a value. */
const FANOUT_VALUED: Record<string, Set<string>> = {
  pdsh: new Set(["-w", "-x", "-g", "-X", "-R", "-l", "-t", "-u", "-f", "-N"]),
  pssh: new Set(["-h", "-H", "-l", "-p", "-o", "-e", "-t", "-x", "-X", "-O"]),
  "parallel-ssh": new Set(["-h", "-H", "-l", "-p", "-o", "-e", "-t", "-x", "-X", "-O"]),
  clush: new Set(["-w", "-x", "-g", "-X", "-l", "-f", "-t", "-u", "-o"]),
};

/** The words after a tool's options (`pdsh -w node[1-4] 'rm -rf /'`), or after `--`. */
function trailingCommand(args: string[], valued: Set<string>): string | null {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-") && args[i] !== "--") i += valued.has(args[i]!) ? 2 : 1;
  if (args[i] === "--") i++;
  return i < args.length ? args.slice(i).join(" ") : null;
}

/** Remote runners besides ssh and containers: ansible, salt, pdsh, multipass, mosh, gcloud compute ssh. */
function otherRemote(program: string, args: string[]): string | null {
  // `ansible all -m shell -a '…' --check`: nothing runs on the hosts.
  const runner = program === "ansible" && isDryRun([program, ...args]) ? null : otherRunnerLine(program, args);
  if (runner !== null) return runner;
  if (program === "ansible") return isDryRun([program, ...args]) ? null : ansibleCommand(args);
  // `salt '*' cmd.run 'rm -rf /'`: the argument after cmd.run.
  if (program === "salt" || program === "salt-ssh") {
    const at = args.findIndex((a) => /^cmd\.(run\w*|shell)$/.test(a));
    return at === -1 ? null : (args[at + 1] ?? null);
  }
  const valued = FANOUT_VALUED[program];
  if (valued) return trailingCommand(args, valued);
  // `multipass exec VM -- cmd`, `mosh host -- cmd`, `gcloud compute ssh VM -- cmd`: after the `--`.
  const dash = args.indexOf("--");
  const afterDash = dash === -1 ? null : args.slice(dash + 1).join(" ") || null;
  if ((program === "multipass" && args[0] === "exec") || program === "mosh") return afterDash;
  if (program === "gcloud" && args.includes("ssh")) return commandFlag(args) ?? afterDash;
  return null;
}

/** The shell line `argv` runs on another host or in a container, or null when it runs none here. */
export function remoteLine(argv: string[]): string | null {
  const program = baseName(argv[0] ?? "");
  if (program === "ssh") return sshCommand(argv.slice(1));
  // autossh's own `-M PORT` comes first; the rest is ssh's.
  if (program === "autossh") return sshCommand(argv.slice(argv[1] === "-M" ? 3 : 1));
  // `oc rsh POD CMD…`: OpenShift's remote shell runs CMD in the pod.
  if (program === "oc" && argv[1] === "rsh") return execCommand(argv.slice(2));
  const other = otherRemote(program, argv.slice(1));
  if (other !== null) return other;
  if (program === "tmux") return tmuxLine(argv.slice(1));
  // `vagrant ssh -c '…'` or `vagrant ssh -- …`; `az ssh vm … -- …`.
  if ((program === "vagrant" && argv[1] === "ssh") || (program === "az" && argv[1] === "ssh")) {
    const dash = argv.indexOf("--");
    return commandFlag(argv.slice(1)) ?? (dash === -1 ? null : argv.slice(dash + 1).join(" ") || null);
  }
  if (!EXEC_TOOLS.has(program)) return null;
  // `docker exec`, `docker container exec`, `docker compose exec`, `kubectl exec`, `lxc exec`, and
  // `docker run IMAGE CMD`, `kubectl run … -- CMD`: the command runs in the container.
  // `kubectl debug node/N -it --image=… -- CMD` runs CMD in a pod on the node, whose / is at /host.
  const at = argv.findIndex((a, i) => i >= 1 && (a === "exec" || a === "run" || a === "debug"));
  const between = argv.slice(1, at);
  // `kubectl -n prod exec …`: a global option's value stands between the tool and `exec`.
  const isOption = (w: string, i: number) => w.startsWith("-") || GLOBAL_VALUED.has(between[i - 1] ?? "");
  if (at === -1 || !between.every((w, i) => EXEC_GROUPS.has(w) || isOption(w, i))) return null;
  const inner = execCommand(argv.slice(at + 1));
  if (inner === null) return null;
  const nodeDebug = argv[at] === "debug" && argv.some((a) => a.startsWith("node/"));
  // `docker run -v /:/host … rm -rf /host/etc`: the host's paths under the names the container gives them.
  const mounts = nodeDebug
    ? [{ source: "/", target: "/host" }]
    : argv[at] === "run"
      ? bindMounts(argv.slice(at + 1))
      : [];
  return withHostPaths(inner, mounts);
}

/** A bind mount of a host path into a container: what the container calls `target` is `source` here. */
interface Mount {
  source: string;
  target: string;
}

/** `-v SRC:DST[:ro]`, `--volume=SRC:DST`, `--mount type=bind,source=SRC,target=DST` of a `run`. */
function bindMounts(args: string[]): Mount[] {
  const mounts: Mount[] = [];
  for (const [i, a] of args.entries()) {
    const volume = /^(-v|--volume)$/.test(a) ? args[i + 1] : /^--volume=(.*)$/.exec(a)?.[1];
    const [source, target] = (volume ?? "").split(":");
    if (source && target?.startsWith("/") && !/^[\w.-]+$/.test(source)) mounts.push({ source, target });
    const mount = a === "--mount" ? args[i + 1] : /^--mount=(.*)$/.exec(a)?.[1];
    const field = (names: string) => new RegExp(`(?:^|,)(?:${names})=([^,]+)`).exec(mount ?? "")?.[1];
    const [src, dst] = [field("source|src"), field("target|destination|dst")];
    if (src && dst) mounts.push({ source: src, target: dst });
  }
  return mounts;
}

/** `line` with each mount's container path, where a word starts with it, put back as the host's path. */
function withHostPaths(line: string, mounts: Mount[]): string {
  let out = line;
  // Longest targets first: `/host/etc` before `/host`.
  for (const m of [...mounts].sort((a, b) => b.target.length - a.target.length)) {
    const target = m.target.replace(/\/+$/, "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const source = m.source.replace(/\/+$/, "");
    out = out.replace(
      new RegExp(`(^|[\\s'"=])${target}(?=/|[\\s'"]|$)`, "g"),
      (_m, lead: string) => `${lead}${source || "/"}`,
    );
  }
  return out.replace(/(^|[\s'"=])\/\/+/g, "$1/");
}

/** A remote command that is a shell reading its script from standard input: `bash`, `sh -s`, `bash -s -- x`. */
const STDIN_SHELL = new RegExp(
  // `sudo -i`, `sudo -s`, `sudo su -`, `sudo bash`: a root shell reading the same input.
  "^(sudo( -[a-zA-Z]*[is][a-zA-Z]*)?( -u \\S+)?|(sudo( -\\S+)* )?su( -| -l| root)*|" +
    "(sudo( -\\S+)* )?(\\S*/)?(ba|da|z|k|mk|a)?sh( -[a-zA-Z]*s[a-zA-Z]*)?( --.*)?)$",
);

/**
 * Does what is piped into `argv` run as shell lines there? `echo '…' | ssh host` (a login shell
 * reads it), `ssh host bash < …`, `docker exec -i c sh <<< '…'`.
 */
export function runsRemoteStdin(argv: string[]): boolean {
  const program = baseName(argv[0] ?? "");
  const remote = remoteLine(argv);
  if (remote === null) return program === "ssh" && sshCommand(argv.slice(1)) === null && argv.length > 1;
  return (program === "ssh" || EXEC_TOOLS.has(program)) && STDIN_SHELL.test(remote.trim());
}
