/**
 * The `system-config` rule: taking away what keeps a machine reachable, protected or on schedule —
 * stopping, disabling or masking ssh, the firewall, the network, cron or a timer; flushing the
 * firewall's rules or turning it off; deleting a user with their home; removing a password;
 * replacing the crontab with nothing. Over SSH, stopping sshd or dropping the firewall's policy
 * locks everyone out; none of it is undone by the command that did it.
 */
import type { Rule, RuleInput } from "./rule-types.ts";
import type { Invocation } from "./unwrap.ts";
import { options } from "./options.ts";

/**
 * Services whose loss cuts access, protection, networking or scheduled work (`.service`/`.socket`
 * suffixes and `@instances` allowed).
 */
const CRITICAL_SERVICE = new RegExp(
  "^(ssh|sshd|openssh(-server)?|dropbear|firewalld|ufw|iptables|ip6tables|nftables|netfilter-persistent|" +
    "NetworkManager|network|networking|systemd-networkd|systemd-resolved|wpa_supplicant|dbus|dbus-broker|" +
    "systemd-journald|systemd-logind|cron|crond|cronie|anacron|atd|auditd|polkit|apparmor|selinux|fail2ban|" +
    "sssd|nscd|rsyslog|syslog|docker|containerd|kubelet|getty|serial-getty|systemd-timesyncd|chronyd)" +
    "(@[^.]*)?(\\.(service|socket))?$",
);
/** A timer is a scheduled job; a glob (`'*'`, `ssh*`) names every unit it matches. */
const TIMER_OR_GLOB = /(\.timer$|[*?[])/;
/** systemctl verbs that stop a unit now or from the next boot on. */
const SYSTEMCTL_OFF = new Set(["stop", "disable", "mask", "kill"]);
/** SysV-style tools: `service NAME stop`, `update-rc.d NAME disable`, `chkconfig NAME off`. */
const SERVICE_OFF = /^(stop|disable|remove|off|delete)$/;

/** systemctl's options that take a value: the verb is the first word after them. */
const SYSTEMCTL_VALUED = new Set(["-H", "--host", "-M", "--machine", "-t", "--type", "-s", "--signal", "-p", "-n"]);

/** `systemctl [options] VERB UNIT…`: the verb and units, or null for the user's own manager (`--user`). */
function systemctlCall(args: string[]): { verb: string; units: string[] } | null {
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--user") return null;
    if (SYSTEMCTL_VALUED.has(a)) i++;
    else if (!a.startsWith("-")) words.push(a);
  }
  const [verb = "", ...units] = words;
  return { verb, units };
}

/** Why stopping `unit` matters, or null for an ordinary service (`systemctl stop myapp`). */
function criticalUnit(verb: string, unit: string): boolean {
  // Masking links the unit to /dev/null: it cannot be started again by anything, whatever it is.
  return verb === "mask" || CRITICAL_SERVICE.test(unit) || TIMER_OR_GLOB.test(unit);
}

/** An init script run by its path: `/etc/init.d/ssh stop`, `/etc/rc.d/sshd stop`. */
const INIT_SCRIPT = /^\/etc\/(init\.d|rc\.d)\/([^/]+)$/;

/** `/etc/init.d/ssh stop` (wrapped or not): the script's path is the word as typed, before wrappers are peeled. */
function initScriptStopped(typed: string[]): string | null {
  const at = typed.findIndex((w) => INIT_SCRIPT.test(w));
  const name = at === -1 ? undefined : INIT_SCRIPT.exec(typed[at]!)?.[2];
  if (name === undefined || !CRITICAL_SERVICE.test(name)) return null;
  return typed.slice(at + 1).some((a) => SERVICE_OFF.test(a)) ? `${typed[at]} stops ${name}` : null;
}

function serviceStopped(program: string, args: string[]): string | null {
  if (program === "systemctl") {
    const call = systemctlCall(args);
    if (call === null || !SYSTEMCTL_OFF.has(call.verb)) return null;
    const unit = call.units.find((u) => criticalUnit(call.verb, u));
    return unit ? `systemctl ${call.verb} ${unit} cuts access, protection or scheduled work` : null;
  }
  // `service ssh stop`, `rc-service sshd stop`, `update-rc.d ssh disable`, `chkconfig sshd off`.
  if (/^(service|rc-service|update-rc\.d|chkconfig|rc-update)$/.test(program)) {
    const words = args.filter((a) => !a.startsWith("-"));
    const unit = words.find((w) => CRITICAL_SERVICE.test(w));
    return unit && words.some((w) => SERVICE_OFF.test(w)) ? `${program} stops or disables ${unit}` : null;
  }
  return null;
}

/** The iptables family: `-F` flushes, `-X` deletes chains, `-P` sets a chain's policy for all traffic. */
const IPTABLES = /^(ip6?tables(-legacy|-nft)?|ebtables|arptables)$/;
const IPTABLES_WIPES = /^(-F|--flush|-X|--delete-chain|-P|--policy)$/;

/** Tools that replace every rule with what they read: fed nothing, they leave none. */
const RULES_RESTORE = /^(ip6?tables-restore(-legacy|-nft)?)$/;

function firewallDropped(program: string, args: string[], inv: Invocation): string | null {
  const nullInput = inv.source.redirects.some((r) => r.op === "<" && r.target === "/dev/null");
  if (RULES_RESTORE.test(program) && (nullInput || args.includes("/dev/null"))) {
    return `${program} of nothing flushes every firewall rule`;
  }
  if (IPTABLES.test(program)) {
    const wipe = args.find((a) => IPTABLES_WIPES.test(a));
    return wipe ? `${program} ${wipe} drops or opens the firewall's rules` : null;
  }
  // `nft 'flush ruleset'`: nft joins its words into one command, quoted or not.
  const [verb = "", what = ""] = args.flatMap((a) => a.split(/\s+/)).filter((a) => a !== "" && !a.startsWith("-"));
  // `nft flush ruleset`, `nft delete table inet filter`.
  if (program === "nft" && /^(flush|delete|destroy)$/.test(verb) && /^(ruleset|table|chain)$/.test(what)) {
    return `nft ${verb} ${what} removes firewall rules`;
  }
  if (program === "ufw" && /^(disable|reset)$/.test(verb)) return `ufw ${verb} turns the firewall off`;
  if (program === "firewall-cmd" && args.some((a) => a === "--panic-on"))
    return "firewall-cmd --panic-on cuts all traffic";
  if (program === "pfctl" && args.some((a) => a === "-d" || /^-F/.test(a)))
    return "pfctl disables or flushes the firewall";
  return null;
}

/** `ip link set eth0 down`, `ifconfig eth0 down`, `ifdown eth0`, `nmcli networking off`: the machine is cut off. */
function networkCut(program: string, args: string[]): string | null {
  const iface = args.find((a) => !a.startsWith("-") && !/^(link|set|dev|down|up)$/.test(a));
  if (iface === "lo") return null;
  const down =
    (program === "ip" && args[0] === "link" && args.includes("down")) ||
    (program === "ifconfig" && args.includes("down")) ||
    program === "ifdown" ||
    (program === "nmcli" && args.join(" ") === "networking off");
  return down ? `${program} takes the network down: a remote machine is cut off` : null;
}

/** macOS launchd jobs of access, protection or scheduling (sshd, the application firewall, cron, periodic). */
const LAUNCHD_CRITICAL = /ssh|alf|firewall|\bpf\b|cron|periodic|network|mDNS/i;

/** `launchctl bootout system/com.openssh.sshd`, `socketfilterfw --setglobalstate off`, `atrm $(atq …)`. */
function otherSchedulers(program: string, args: string[], inv: Invocation): string | null {
  if (program === "launchctl" && /^(unload|bootout|disable|remove|stop)$/.test(args[0] ?? "")) {
    const job = args.slice(1).find((a) => LAUNCHD_CRITICAL.test(a));
    return job ? `launchctl ${args[0]} ${job} cuts access, protection or scheduled work` : null;
  }
  if (program === "socketfilterfw" && args.includes("--setglobalstate") && args.includes("off")) {
    return "socketfilterfw turns the macOS firewall off";
  }
  // `atrm $(atq | cut -f1)`: every at job the queue lists.
  const fromQueue = inv.source.nested.some((l) => l.pipelines.some((p) => p[0]?.argv[0] === "atq"));
  return program === "atrm" && fromQueue ? "atrm removes every queued at job" : null;
}

/** Security frameworks switched off: `setenforce 0` (SELinux permissive), `aa-teardown` (AppArmor). */
function securityDisabled(program: string, args: string[]): string | null {
  if (program === "setenforce" && /^(0|permissive)$/i.test(args[0] ?? "")) return "setenforce 0 turns SELinux off";
  return program === "aa-teardown" ? "aa-teardown unloads every AppArmor profile" : null;
}

function accountDestroyed(program: string, args: string[]): string | null {
  const o = options(args);
  // Locking root (`passwd -l root`, `usermod -L root`) or expiring it leaves no way to become root.
  const locks =
    (program === "passwd" && o.short.has("l")) || (program === "usermod" && (o.short.has("L") || o.long.has("lock")));
  if (locks && o.operands.includes("root")) return `${program} locks root`;
  // `usermod -p ''`: an empty password hash, anyone logs in.
  const emptyHash = args.findIndex((a) => a === "-p" || a === "--password");
  if (program === "usermod" && emptyHash !== -1 && (args[emptyHash + 1] ?? "") === "") {
    return "usermod -p '' removes the password";
  }
  if (program === "userdel" && (o.short.has("r") || o.long.has("remove"))) {
    return "userdel -r deletes the user and their home directory";
  }
  if (program === "deluser" && (o.long.has("remove-home") || o.long.has("remove-all-files"))) {
    return "deluser --remove-home deletes the user's files";
  }
  if ((program === "userdel" || program === "deluser") && o.operands.includes("root")) return `${program} root`;
  if (program === "passwd" && (o.short.has("d") || o.long.has("delete"))) {
    return "passwd -d removes the password: the account logs in with none";
  }
  return null;
}

/** Commands that print nothing: what they pipe into `crontab -` leaves no job. */
const SILENT = /^(:|true|false)$/;

/** `crontab /dev/null`, `echo -n | crontab -`, `crontab - < /dev/null`: every cron job replaced by none. */
function crontabEmptied({ inv, pipeline, index }: RuleInput): string | null {
  const [program, ...args] = inv.argv;
  if (program !== "crontab") return null;
  const file = options(args).operands[0];
  const emptyFeed = (f: Invocation) =>
    SILENT.test(f.argv[0] ?? "") ||
    (f.argv[0] === "echo" && f.argv.slice(1).every((a) => a === "-n" || a === "")) ||
    (f.argv[0] === "printf" && f.argv.slice(1).every((a) => a === ""));
  const fed = file === "-" && index > 0 && emptyFeed(pipeline[index - 1]!);
  const nullInput = inv.source.redirects.some((r) => r.op === "<" && r.target === "/dev/null");
  // With no file (or `-`) crontab reads the new table from standard input.
  if (file === "/dev/null" || fed || ((file === "-" || file === undefined) && nullInput))
    return "crontab is replaced by nothing: every cron job is gone";
  return null;
}

export const SYSTEM_CONFIG_RULE: Rule = {
  id: "system-config",
  summary:
    "cutting access or scheduled work: systemctl stop/disable/mask of ssh, firewall, network, cron or a timer; " +
    "flushing or disabling the firewall or SELinux; taking the network down; userdel -r; passwd -d; locking root; " +
    "emptying the crontab",
  check(input) {
    const [program = "", ...args] = input.inv.argv;
    return (
      serviceStopped(program, args) ??
      initScriptStopped(input.inv.source.argv) ??
      securityDisabled(program, args) ??
      networkCut(program, args) ??
      otherSchedulers(program, args, input.inv) ??
      firewallDropped(program, args, input.inv) ??
      accountDestroyed(program, args) ??
      crontabEmptied(input)
    );
  },
};
