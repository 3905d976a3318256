/**
 * More ways to run a command on another machine or in another system than ssh and container
 * `exec` (remote.ts): ssh's relatives (rsh, rexec, dropbear's dbclient, PuTTY's plink, Teleport's
 * tsh, Eternal Terminal), cloud run-commands (AWS SSM and ECS, Azure run-command), platforms'
 * consoles (fly, heroku, cf, doctl, docker-machine, nomad), machines and toolboxes on this host
 * (machinectl, systemd-nspawn, lxc-attach, pct, distrobox, toolbox, wsl), and ansible's file
 * module told to remove a path. Each answers the shell line that runs there, or null.
 */

/** Tools that take a host (past their options) and then the command's words, as ssh does, and their valued options. */
const HOST_THEN_COMMAND: Record<string, Set<string>> = {
  rsh: new Set(["-l"]),
  rexec: new Set(["-l", "-p"]),
  remsh: new Set(["-l"]),
  rcmd: new Set(["-l"]),
  dbclient: new Set(["-p", "-l", "-i", "-L", "-R", "-J", "-o", "-W", "-K", "-I", "-c", "-m"]),
  plink: new Set(["-P", "-l", "-pw", "-i", "-L", "-R", "-D", "-m", "-hostkey", "-proxycmd", "-sercfg", "-loghost"]),
};
/** Tools whose `ssh` subcommand takes a host and then the command: `tsh ssh node cmd`, `docker-machine ssh m cmd`. */
const SSH_SUBCOMMAND: Record<string, Set<string>> = {
  tsh: new Set(["-l", "--login", "-p", "--port", "--proxy", "--user", "--cluster"]),
  "docker-machine": new Set(),
};

/** Where the words after the options (with their values) and a `--` begin. */
function pastOptions(args: string[], valued: Set<string>): number {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-") && args[i] !== "--") i += valued.has(args[i]!) ? 2 : 1;
  return args[i] === "--" ? i + 1 : i;
}

/** The words after the options: the command, joined as a shell line. */
function afterOptions(args: string[], valued: Set<string>): string | null {
  return args.slice(pastOptions(args, valued)).join(" ") || null;
}

/** The words after the options and the host: the command, joined as ssh joins it. */
function afterHost(args: string[], valued: Set<string>): string | null {
  return args.slice(pastOptions(args, valued) + 1).join(" ") || null;
}

/** Options of nomad alloc exec, toolbox run and systemd-nspawn that take a value. */
const NOMAD_VALUED = new Set(["-task", "-job", "-region", "-namespace", "-address", "-token", "-e"]);
const TOOLBOX_VALUED = new Set(["-c", "--container", "-d", "--distro", "-r", "--release"]);
const NSPAWN_VALUED = new Set([
  ...["-D", "--directory", "-M", "--machine", "-i", "--image", "-u", "--user", "--bind", "--bind-ro"],
  ...["-E", "--setenv", "--chdir", "--network-veth-extra", "--private-users", "-n"],
]);

/**
 * The value of the first of `names` (`--scripts X`, `--scripts=X`, `-C X`); with `all`, every word
 * up to the next option.
 */
function optionValue(args: string[], names: string[], all = false): string | null {
  for (const [i, a] of args.entries()) {
    const eq = names.find((n) => a.startsWith(`${n}=`));
    if (eq) return a.slice(eq.length + 1);
    if (!names.includes(a)) continue;
    if (!all) return args[i + 1] ?? null;
    const end = args.findIndex((w, k) => k > i && w.startsWith("-"));
    return args.slice(i + 1, end === -1 ? undefined : end).join("\n") || null;
  }
  return null;
}

/** The words after `--`, joined; null when there is no `--` or nothing after it. */
function afterDash(args: string[]): string | null {
  const dash = args.indexOf("--");
  return dash === -1 ? null : args.slice(dash + 1).join(" ") || null;
}

/**
 * AWS Systems Manager's `--parameters`: `commands=["a","b"]`, `commands="a"`, or JSON
 * `{"commands":["a"]}`. Each command is a shell line; they run one after another.
 */
function ssmCommands(parameters: string): string | null {
  const json = /"?commands"?\s*[:=]\s*(\[[^\]]*\])/.exec(parameters);
  if (json) {
    try {
      const list: unknown = JSON.parse(json[1]!);
      if (Array.isArray(list)) return list.map(String).join("\n");
    } catch {
      // Not JSON (`commands=[rm -rf /]`): the text inside the brackets.
      return json[1]!.slice(1, -1);
    }
  }
  const plain = /commands\s*=\s*(.*)$/s.exec(parameters);
  return plain ? plain[1]!.replace(/^"(.*)"$/s, "$1") : null;
}

/**
 * Ansible's modules as the shell line they amount to: `file` told `state=absent` removes the path
 * as `rm -rf` would; `service`/`systemd` stopped or disabled is `systemctl stop|disable`; `user`
 * absent is `userdel` (`-r` with `remove=yes`); `reboot` reboots.
 */
function ansibleModuleLine(args: string[]): string | null {
  const module = (args.find((_a, i) => args[i - 1] === "-m" || args[i - 1] === "--module-name") ?? "").replace(
    /^ansible\.(builtin|posix)\./,
    "",
  );
  const arg = args.find((_a, i) => args[i - 1] === "-a" || args[i - 1] === "--args") ?? "";
  const field = (name: string) =>
    new RegExp(`\\b${name}=("[^"]*"|'[^']*'|\\S+)`).exec(arg)?.[1]?.replace(/^["']|["']$/g, "");
  const name = field("name");
  if (module === "file") {
    const path = field("path") ?? field("dest") ?? name;
    return field("state") === "absent" && path ? `rm -rf ${path}` : null;
  }
  if (/^(service|systemd|systemd_service|sysvinit)$/.test(module) && name) {
    if (field("state") === "stopped") return `systemctl stop ${name}`;
    return /^(no|false)$/i.test(field("enabled") ?? "") ? `systemctl disable ${name}` : null;
  }
  if (module === "user" && name && field("state") === "absent") {
    return /^(yes|true)$/i.test(field("remove") ?? "") ? `userdel -r ${name}` : `userdel ${name}`;
  }
  return /^(reboot|shutdown)$/.test(module) ? module : null;
}

/** Salt's execution modules as shell lines: `system.reboot`, `service.stop sshd`, `file.remove /etc`. */
function saltFunctionLine(args: string[]): string | null {
  const at = args.findIndex((a) => /^(system|service|file|user|cron)\.\w+$/.test(a));
  if (at === -1) return null;
  const [fn, operand = ""] = [args[at]!, args[at + 1] ?? ""];
  if (/^system\.(reboot|poweroff|halt|shutdown)$/.test(fn)) return fn.slice("system.".length);
  if (/^service\.(stop|disable|dead)$/.test(fn)) return `systemctl stop ${operand}`;
  if (/^file\.(remove|rmdir)$/.test(fn)) return `rm -rf ${operand}`;
  if (fn === "user.delete") return `userdel -r ${operand}`;
  return null;
}

/** Options of knife ssh, fab and mussh that take a value. */
const KNIFE_VALUED = new Set(["-x", "--ssh-user", "-i", "--ssh-identity-file", "-a", "--attribute", "-p", "-C"]);

/** The shell line `program args` runs elsewhere, for the runners this file knows; null for others. */
export function otherRunnerLine(program: string, args: string[]): string | null {
  const hostValued = HOST_THEN_COMMAND[program];
  if (hostValued) return afterHost(args, hostValued);
  const sub = SSH_SUBCOMMAND[program];
  if (sub && args[0] === "ssh") return afterHost(args.slice(1), sub);
  const words = args.filter((a) => !a.startsWith("-"));
  switch (program) {
    case "aws":
      if (words[0] === "ssm" && words[1] === "send-command") {
        const parameters = optionValue(args, ["--parameters"]);
        return parameters === null ? null : ssmCommands(parameters);
      }
      return words[0] === "ecs" && words[1] === "execute-command" ? optionValue(args, ["--command"]) : null;
    case "az":
      return words[0] === "vm" && words[1] === "run-command"
        ? optionValue(args, ["--scripts", "--script"], true)
        : null;
    case "et":
      return optionValue(args, ["-c", "--command"]);
    case "fly":
    case "flyctl":
      return words[0] === "ssh" ? optionValue(args, ["-C", "--command"]) : null;
    case "cf":
      return words[0] === "ssh" ? optionValue(args, ["-c", "--command"]) : null;
    case "doctl":
      return words.includes("ssh") ? optionValue(args, ["--ssh-command"]) : null;
    case "heroku": {
      // `heroku run CMD… -a app`: the words after `run` that are not its options' values.
      if (args[0] !== "run") return null;
      const valued = /^(-[arse]|--(app|remote|size|env|type))$/;
      const rest = args.slice(1).filter((a, i, all) => !a.startsWith("-") && !valued.test(all[i - 1] ?? ""));
      return rest.join(" ") || null;
    }
    case "nomad":
      // `nomad alloc exec [-task T] ALLOC CMD…`.
      return words[0] === "alloc" && words[1] === "exec"
        ? afterHost(args.slice(args.indexOf("exec") + 1), NOMAD_VALUED)
        : null;
    case "machinectl":
      // `machinectl shell [USER@]MACHINE [COMMAND…]`.
      return words[0] === "shell" ? afterHost(args.slice(args.indexOf("shell") + 1), new Set()) : null;
    case "lxc-attach":
    case "distrobox":
    case "pct":
      return afterDash(args) ?? (program === "pct" && words[0] === "exec" ? words.slice(2).join(" ") || null : null);
    case "toolbox":
      return args[0] === "run" ? afterOptions(args.slice(1), TOOLBOX_VALUED) : null;
    case "systemd-nspawn":
      return afterOptions(args, NSPAWN_VALUED);
    case "wsl":
    case "wsl.exe": {
      // `wsl -e CMD…`, `wsl -- CMD…`, `wsl -d distro -- CMD…`, or `wsl CMD…` through the default shell.
      const exec = args.findIndex((a) => a === "-e" || a === "--exec");
      if (exec !== -1) return args.slice(exec + 1).join(" ") || null;
      return afterDash(args) ?? (args[0]?.startsWith("-") ? null : args.join(" ") || null);
    }
    case "ansible":
      return ansibleModuleLine(args);
    case "salt":
    case "salt-ssh":
      return saltFunctionLine(args);
    case "knife":
      // `knife ssh QUERY COMMAND`: the command runs on every node the query finds.
      return args[0] === "ssh" ? afterHost(args.slice(1), KNIFE_VALUED) : null;
    case "fab":
      return afterDash(args);
    case "mussh":
      return optionValue(args, ["-c"]);
    default:
      return null;
  }
}
