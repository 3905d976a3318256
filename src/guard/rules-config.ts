/**
 * The `system-config` rule: taking away what keeps a machine reachable, protected or on schedule —
 * stopping, disabling or masking ssh, the firewall, the network, cron or a timer; flushing the
 * firewall's rules or turning it off; deleting a user with their home; removing a password;
 * replacing the crontab with nothing. Over SSH, stopping sshd or dropping the firewall's policy
 * locks everyone out; none of it is undone by the command that did it.
 */
import type { Rule, RuleInput } from "./rule-types.ts";
import type { Invocation } from "./unwrap.ts";
import type { SimpleCommand } from "./parse.ts";
import { options } from "./options.ts";
import { firewallOpened, kernelSettingChanged, networkCrippled, nftLockout } from "./kernel-settings.ts";

/**
 * Services whose loss cuts access, protection, networking or scheduled work, and the database
 * servers every application of the machine reads from (`.service`/`.socket` suffixes and
 * `@instances` allowed).
 */
const CRITICAL_SERVICE = new RegExp(
  "^(ssh|sshd|openssh(-server)?|dropbear|firewalld|ufw|iptables|ip6tables|nftables|netfilter-persistent|" +
    "NetworkManager|network|networking|systemd-networkd|systemd-resolved|wpa_supplicant|dbus|dbus-broker|" +
    "systemd-journald|systemd-logind|cron|crond|cronie|anacron|atd|auditd|polkit|apparmor|selinux|fail2ban|" +
    "sssd|nscd|rsyslog|syslog|docker|containerd|kubelet|getty|serial-getty|systemd-timesyncd|chronyd|ntpd?|" +
    "ntpsec|unattended-upgrades|postgresql|mysql|mysqld|mariadb|mongod|redis-server|redis)" +
    "(@[^.]*)?(\\.(service|socket))?$",
);
/** A timer is a scheduled job; a glob (`'*'`, `ssh*`) names every unit it matches. */
const TIMER_OR_GLOB = /(\.timer$|[*?[])/;
/** systemctl verbs that stop a unit now or from the next boot on. */
const SYSTEMCTL_OFF = new Set(["stop", "disable", "mask", "kill"]);
/**
 * On another host (`ssh prod 'sudo systemctl stop nginx'`), stopping or disabling any service is an
 * outage for whoever it serves: `systemctl stop|disable|mask|kill`, `service X stop`, init scripts.
 */
function remoteServiceStopped({ inv }: RuleInput): string | null {
  if (inv.remote !== true) return null;
  const [program = "", ...args] = inv.argv;
  const init = INIT_SCRIPT.exec(inv.source.argv.find((w) => INIT_SCRIPT.test(w)) ?? "");
  if (init && inv.source.argv.some((a) => SERVICE_OFF.test(a))) return `${init[2]} stopped on a remote host: an outage`;
  if (program === "systemctl") {
    const call = systemctlCall(args);
    const unit = SYSTEMCTL_OFF.has(call.verb) && !call.user ? call.units[0] : undefined;
    return unit ? `systemctl ${call.verb} ${unit} on a remote host: an outage for what it serves` : null;
  }
  const words = args.filter((a) => !a.startsWith("-"));
  if (/^(service|rc-service)$/.test(program) && words.length >= 2 && SERVICE_OFF.test(words[1]!)) {
    return `${program} ${words[0]} stop on a remote host: an outage for what it serves`;
  }
  return null;
}

/** SysV-style tools: `service NAME stop`, `update-rc.d NAME disable`, `chkconfig NAME off`. */
const SERVICE_OFF = /^(stop|disable|remove|off|delete|del)$/;

/** runit's and upstart's verbs that stop a service (`sv down`, `sv force-stop`, `initctl stop`). */
const SUPERVISOR_OFF = /^(down|stop|exit|kill|force-stop|force-shutdown|shutdown|disable)$/;

/** systemctl's options that take a value: the verb is the first word after them. */
const SYSTEMCTL_VALUED = new Set(["-H", "--host", "-M", "--machine", "-t", "--type", "-s", "--signal", "-p", "-n"]);

/**
 * `systemctl [options] VERB UNIT…`: the verb and units, and whether it is the user's own manager
 * (`--user`), whose services are the user's to stop but whose timers are still scheduled work.
 */
function systemctlCall(args: string[]): { verb: string; units: string[]; user: boolean } {
  const words: string[] = [];
  let user = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--user") user = true;
    if (SYSTEMCTL_VALUED.has(a)) i++;
    else if (!a.startsWith("-")) words.push(a);
  }
  const [verb = "", ...units] = words;
  return { verb, units, user };
}

/** Boot targets that bring up no network or logins: `systemctl set-default rescue.target`. */
const RESCUE_TARGET = /^(rescue|emergency)(\.target)?$/;

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

/** `systemctl list-timers`, `systemctl list-units --type=timer`: a listing of every timer. */
function listsTimers(argv: string[]): boolean {
  if (argv[0] !== "systemctl") return false;
  return (
    argv.includes("list-timers") ||
    argv.some((a, i) => /^(--type=)?timer$/.test(a) && (a.startsWith("--") || /^(-t|--type)$/.test(argv[i - 1] ?? "")))
  );
}

/** `systemctl stop $(systemctl list-timers …)`, `… list-timers | xargs systemctl disable`: every timer. */
function stopsListedTimers({ inv, pipeline, index }: RuleInput): string | null {
  const call = inv.argv[0] === "systemctl" ? systemctlCall(inv.argv.slice(1)) : null;
  if (call === null || !SYSTEMCTL_OFF.has(call.verb)) return null;
  const nested = (cmd: SimpleCommand): boolean =>
    cmd.nested.some((line) => line.pipelines.some((p) => p.some((c) => listsTimers(c.argv) || nested(c))));
  const fed = pipeline.slice(0, index).some((f) => listsTimers(f.argv));
  return nested(inv.source) || fed ? `systemctl ${call.verb} of every listed timer stops scheduled work` : null;
}

function serviceStopped(program: string, args: string[]): string | null {
  if (program === "systemctl") {
    const call = systemctlCall(args);
    if (call.verb === "set-default" && !call.user && call.units.some((u) => RESCUE_TARGET.test(u))) {
      return "systemctl set-default boots the machine into a rescue shell: no network, no logins";
    }
    if (!SYSTEMCTL_OFF.has(call.verb)) return null;
    const unit = call.units.find((u) => (call.user ? TIMER_OR_GLOB.test(u) : criticalUnit(call.verb, u)));
    return unit ? `systemctl ${call.verb} ${unit} cuts access, protection or scheduled work` : null;
  }
  // runit's `sv down sshd`, upstart's `initctl stop ssh` (or `stop ssh`), s6's `s6-svc -d …/sshd`.
  if (/^(sv|initctl|stop|s6-svc|s6-rc)$/.test(program)) {
    const words = args.filter((a) => !a.startsWith("-"));
    const s6 = program.startsWith("s6-");
    const off =
      program === "stop" || (s6 && args.some((a) => /^-[a-z]*d/.test(a))) || words.some((w) => SUPERVISOR_OFF.test(w));
    const unit = words.map((w) => w.slice(w.lastIndexOf("/") + 1)).find((w) => CRITICAL_SERVICE.test(w));
    return off && unit ? `${program} stops ${unit}` : null;
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

/** ssh's port or service as a firewall names it: `22`, `22/tcp`, `ssh`, `OpenSSH`. */
const SSH_PORT = /^(22(\/tcp)?|ssh|openssh)$/i;

/** iptables' options that narrow a rule to some traffic: a source, an interface, a protocol, a port, a state. */
const IPTABLES_NARROWS = new RegExp(
  "^(-s|--source|--src|-i|--in-interface|-o|--out-interface|-m|--match|--d?ports?|--destination-port|--sport|" +
    "-p|--protocol|-d|--destination)$",
);

/**
 * `iptables -I INPUT -j DROP`, `iptables -A INPUT -p tcp --dport 22 -j REJECT`: a rule that drops
 * all incoming (or outgoing) traffic, or ssh's, locks a remote session out as surely as a policy.
 */
function iptablesLockout(args: string[]): boolean {
  const value = (names: string[]) => args.find((_a, i) => names.includes(args[i - 1] ?? ""));
  const chain = value(["-A", "--append", "-I", "--insert"]);
  const target = value(["-j", "--jump"]);
  if (!/^(INPUT|OUTPUT)$/.test(chain ?? "") || !/^(DROP|REJECT)$/.test(target ?? "")) return false;
  const port = value(["--dport", "--dports", "--destination-port"]);
  if (port !== undefined)
    return port
      .split(",")
      .some(
        (p) =>
          SSH_PORT.test(p) ||
          (/^(\d*):(\d*)$/.test(p) && Number(p.split(":")[0] || 0) <= 22 && Number(p.split(":")[1] || 65535) >= 22),
      );
  const protocol = value(["-p", "--protocol"]);
  // `-p tcp`, `-s 0.0.0.0/0` and an interface other than loopback (`-i eth0`) still take ssh's traffic.
  const takesAll = (a: string, next: string) =>
    (/^(-p|--protocol)$/.test(a) && /^(tcp|all)$/.test(next)) ||
    (/^(-s|--source|--src|-d|--destination)$/.test(a) && /^(0\.0\.0\.0\/0|::\/0|any)$/.test(next)) ||
    (/^(-i|--in-interface|-o|--out-interface)$/.test(a) && /^(eth|en|wl|ens|eno|enp|bond|br)\w*$/.test(next));
  const narrowed = args.some((a, i) => IPTABLES_NARROWS.test(a) && !takesAll(a, args[i + 1] ?? ""));
  return !narrowed && (protocol === undefined || /^(tcp|all)$/.test(protocol));
}

/** `ufw deny ssh`, `ufw delete allow 22/tcp`, `ufw default deny incoming`: ssh (or everything) shut out. */
function ufwLockout(words: string[]): string | null {
  const [verb = "", ...rest] = words;
  if (verb === "default" && /^(deny|reject)$/.test(rest[0] ?? "") && !/^(routed|outgoing)$/.test(rest[1] ?? "")) {
    return "ufw default deny drops every incoming connection that no rule allows, ssh's too";
  }
  // `ufw delete 1`: a rule deleted by its number, blind to what it let in (ssh's, as often as not).
  if (verb === "delete" && /^\d+$/.test(rest[0] ?? ""))
    return `ufw delete ${rest[0]} removes a rule by number, ssh's perhaps`;
  if (verb === "default" && /^(deny|reject)$/.test(rest[0] ?? "") && rest[1] === "outgoing") {
    return "ufw default deny outgoing cuts every connection out: DNS, packages, git, the agent's own";
  }
  const closes = /^(deny|reject)$/.test(verb) || (verb === "delete" && /^(allow|limit)$/.test(rest[0] ?? ""));
  if (!closes || rest.some((w) => w === "from")) return null;
  return rest.some((w) => SSH_PORT.test(w)) ? `ufw ${words.join(" ")} shuts ssh out` : null;
}

function firewallDropped(program: string, args: string[], inv: Invocation): string | null {
  const nullInput = inv.source.redirects.some((r) => r.op === "<" && r.target === "/dev/null");
  if (RULES_RESTORE.test(program) && (nullInput || args.includes("/dev/null"))) {
    return `${program} of nothing flushes every firewall rule`;
  }
  if (IPTABLES.test(program)) {
    const wipe = args.find((a) => IPTABLES_WIPES.test(a));
    if (wipe) return `${program} ${wipe} drops or opens the firewall's rules`;
    // `iptables -D INPUT -p tcp --dport 22 -j ACCEPT`: the rule that lets ssh in, deleted.
    const deleted = args.some((a) => a === "-D" || a === "--delete");
    const sshAccept = args.some(
      (a, i) => /^--d?ports?$|^--destination-port$/.test(args[i - 1] ?? "") && SSH_PORT.test(a),
    );
    if (deleted && sshAccept && args.includes("ACCEPT")) return `${program} -D deletes the rule that lets ssh in`;
    // `iptables -D INPUT 1`: the input chain's rule deleted by number, blind to what it let in.
    const at = args.findIndex((a) => a === "-D" || a === "--delete");
    if (at !== -1 && args[at + 1] === "INPUT" && /^\d+$/.test(args[at + 2] ?? "")) {
      return `${program} -D INPUT ${args[at + 2]} removes an input rule by number, ssh's perhaps`;
    }
    return iptablesLockout(args) ? `${program} drops every incoming connection, or ssh's` : null;
  }
  // `nft 'flush ruleset'`: nft joins its words into one command, quoted or not.
  const [verb = "", what = ""] = args.flatMap((a) => a.split(/\s+/)).filter((a) => a !== "" && !a.startsWith("-"));
  // `nft flush ruleset`, `nft delete table inet filter`.
  if (program === "nft" && /^(flush|delete|destroy)$/.test(verb) && /^(ruleset|table|chain)$/.test(what)) {
    return `nft ${verb} ${what} removes firewall rules`;
  }
  if (program === "ufw" && /^(disable|reset)$/.test(verb)) return `ufw ${verb} turns the firewall off`;
  if (program === "ufw") return ufwLockout(args.filter((a) => !a.startsWith("-")));
  // `firewall-cmd --remove-service=ssh`, `--remove-port=22/tcp`: ssh no longer let in.
  const removed = args.flatMap((a, i) =>
    /^--remove-(service|port)$/.test(a)
      ? [args[i + 1] ?? ""]
      : /^--remove-(service|port)=/.test(a)
        ? [a.slice(a.indexOf("=") + 1)]
        : [],
  );
  if (program === "firewall-cmd" && removed.some((w) => SSH_PORT.test(w)))
    return "firewall-cmd removes ssh from the allowed services";
  if (program === "firewall-cmd" && args.some((a) => a === "--panic-on"))
    return "firewall-cmd --panic-on cuts all traffic";
  if (program === "pfctl" && args.some((a) => a === "-d" || /^-F/.test(a)))
    return "pfctl disables or flushes the firewall";
  return null;
}

/** `ip link set eth0 down`, `ifconfig eth0 down`, `ifdown eth0`, `nmcli networking off`: the machine is cut off. */
function networkCut(program: string, args: string[]): string | null {
  const iface = args.find((a) => !a.startsWith("-") && !/^(link|set|dev|down|up|addr|address|a|flush)$/.test(a));
  if (iface === "lo") return null;
  const [object = "", verb = "", ...rest] = args.filter((a) => !a.startsWith("-"));
  const down =
    (program === "ip" && /^(l|li|link)$/.test(object) && (args.includes("down") || /^(del|delete)$/.test(verb))) ||
    (program === "ip" && /^(a|addr|address)$/.test(object) && verb === "flush") ||
    // `ip route del default`, `ip route flush all`, `route del default`: no way back out.
    (program === "ip" &&
      /^(r|ro|route)$/.test(object) &&
      /^(del|delete|flush)$/.test(verb) &&
      /^(default|all|0\.0\.0\.0\/0)$/.test(rest[0] ?? "")) ||
    (program === "route" && /^(del|delete)$/.test(object) && verb === "default") ||
    (program === "ifconfig" && args.includes("down")) ||
    program === "ifdown" ||
    (program === "nmcli" && /^(n|networking)$/.test(object) && verb === "off") ||
    (program === "nmcli" && /^(r|radio)$/.test(object) && verb === "all" && rest[0] === "off") ||
    (program === "nmcli" && /^(c|con|connection)$/.test(object) && verb === "down") ||
    (program === "nmcli" && /^(d|dev|device)$/.test(object) && /^(disconnect|down|delete)$/.test(verb));
  return down ? `${program} takes the network down: a remote machine is cut off` : null;
}

/** macOS launchd jobs of access, protection or scheduling (sshd, the application firewall, cron, periodic). */
const LAUNCHD_CRITICAL = /ssh|alf|firewall|\bpf\b|cron|periodic|network|mDNS|backup|timemachine/i;
/** A launchd domain named alone (`system`, `gui/501`, `user/$(id -u)`): booting it out stops every job in it. */
const LAUNCHD_DOMAIN = /^(system|(gui|user|login)\/[^/]+)\/?$/;

/** `launchctl bootout system/com.openssh.sshd`, `socketfilterfw --setglobalstate off`, `atrm $(atq …)`. */
function otherSchedulers(program: string, args: string[], inv: Invocation): string | null {
  if (program === "launchctl" && /^(unload|bootout|disable|remove|stop)$/.test(args[0] ?? "")) {
    const job = args.slice(1).find((a) => LAUNCHD_CRITICAL.test(a));
    if (args[0] === "bootout" && args.slice(1).some((a) => LAUNCHD_DOMAIN.test(a))) {
      return `launchctl bootout ${args[1]} stops every job of the domain`;
    }
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
  // Windows' and macOS's: the firewall profiles off, remote login off, a service stopped by sc.
  if (/^set-netfirewallprofile$/i.test(program) && /-enabled\s*:?\s*(\$?false|0)/i.test(args.join(" "))) {
    return "Set-NetFirewallProfile turns the Windows firewall off";
  }
  if (program === "systemsetup" && args.some((a) => /^-setremotelogin$/i.test(a)) && args.includes("off")) {
    return "systemsetup turns remote login (ssh) off";
  }
  if (program === "setenforce" && /^(0|permissive)$/i.test(args[0] ?? "")) return "setenforce 0 turns SELinux off";
  // The audit trail: `auditctl -D` deletes every rule, `auditctl -e 0` stops auditing.
  if (program === "auditctl" && (args.includes("-D") || args.join(" ").includes("-e 0"))) {
    return "auditctl stops or empties the audit trail";
  }
  // macOS: Gatekeeper (`spctl --master-disable`) and System Integrity Protection (`csrutil disable`).
  if (program === "spctl" && args.some((a) => /^--(master-disable|global-disable)$/.test(a))) {
    return "spctl turns Gatekeeper off";
  }
  if (program === "csrutil" && args[0] === "disable") return "csrutil disable turns System Integrity Protection off";
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
  if (program !== "crontab" && program !== "fcrontab") return null;
  // `-u USER` names whose table; the file (or `-`) is the operand after it.
  const o = options(args.filter((a, i) => a !== "-u" && args[i - 1] !== "-u"));
  const file = o.operands[0];
  const emptyFeed = (f: Invocation) =>
    SILENT.test(f.argv[0] ?? "") ||
    (f.argv[0] === "cat" && f.argv.length > 1 && f.argv.slice(1).every((a) => a === "/dev/null")) ||
    (f.argv[0] === "echo" && f.argv.slice(1).every((a) => a === "-n" || a === "")) ||
    (f.argv[0] === "printf" && f.argv.slice(1).every((a) => a === ""));
  // With no file (or `-`) crontab reads the new table from standard input.
  const fromStdin = file === "-" || file === undefined;
  const fed = fromStdin && index > 0 && emptyFeed(pipeline[index - 1]!);
  const nullInput = inv.source.redirects.some((r) => r.op === "<" && r.target === "/dev/null");
  if (file === "/dev/null" || fed || (fromStdin && nullInput))
    return `${program} is replaced by nothing: every cron job is gone`;
  // `crontab -l | grep -v backup | crontab -`: the table given back without some of its jobs.
  const lists = (f: Invocation) => /^f?crontab$/.test(f.argv[0] ?? "") && f.argv.includes("-l");
  const drops = pipeline.slice(1, index).some((f) => LINE_DROPPER.test(f.argv.join(" ")));
  if (fromStdin && index > 1 && lists(pipeline[0]!) && drops) return `${program} is given back without some jobs`;
  // `crontab jobs.txt`, `echo '0 3 * * * x' | crontab -`: the whole table replaced, the jobs it had gone.
  const keepsOld = pipeline
    .slice(0, index)
    .some(
      (f) =>
        lists(f) ||
        f.source.nested.some((l) => l.pipelines.some((p) => p.some((c) => lists({ argv: c.argv, source: c })))),
    );
  const listing = o.short.has("l") || o.short.has("r") || o.short.has("e") || o.short.has("T") || o.short.has("V");
  // `crontab -` with nothing the line shows feeding it (a `{ crontab -l; …; }` group) is not judged.
  const fedKnown = index > 0 || inv.source.stdin !== null || inv.source.redirects.some((r) => r.op === "<");
  if (!listing && !keepsOld && ((file !== undefined && file !== "-") || fedKnown)) {
    return `${program} replaces the whole table: the jobs it had are gone`;
  }
  return null;
}

/** Filters that drop lines: `grep -v`, `sed '/x/d'`, `awk '!/x/'`. */
const LINE_DROPPER = /^grep( -\w+)* -\w*v|^sed .*(\/|\d)d\b|^awk .*!/;

/** `atq | awk '{print $1}' | xargs atrm`: every job the queue lists, removed. */
function atQueueEmptied({ inv, pipeline, index }: RuleInput): string | null {
  // `at -r`/`at -d` remove jobs as atrm does; `at -l` lists them as atq does.
  const removes = inv.argv[0] === "atrm" || (inv.argv[0] === "at" && inv.argv.some((a) => a === "-r" || a === "-d"));
  const lists = (argv: string[]) => argv[0] === "atq" || (argv[0] === "at" && argv.includes("-l"));
  return removes && pipeline.slice(0, index).some((f) => lists(f.argv)) ? "atrm removes every queued at job" : null;
}

/** A unit file linked to /dev/null is masked: `ln -s /dev/null /etc/systemd/system/cron.service`. */
const UNIT_FILE = /^\/(etc|lib|usr\/lib|run)\/systemd\/(system|user)\/[^/]+\.(service|socket|timer|target)$/;

function unitLinkedToNull(program: string, args: string[]): string | null {
  if (program !== "ln") return null;
  const [source, target] = options(args).operands;
  return source === "/dev/null" && target !== undefined && UNIT_FILE.test(target)
    ? `ln masks ${target}: it cannot be started again`
    : null;
}

/** Shells that refuse logins: root given one can no longer log in or `su`. */
const NO_LOGIN_SHELL = /\/(nologin|false)$/;

/** `chsh -s /sbin/nologin root`, `usermod -s /bin/false root`: root locked out. */
function rootShellRemoved(program: string, args: string[]): string | null {
  if (program !== "chsh" && program !== "usermod") return null;
  const shell = args.find((_a, i) => /^(-s|--shell)$/.test(args[i - 1] ?? ""));
  const user = options(args.filter((_a, i) => !/^(-s|--shell)$/.test(args[i - 1] ?? ""))).operands.pop();
  return shell !== undefined && NO_LOGIN_SHELL.test(shell) && user === "root"
    ? `${program} gives root a shell that refuses logins`
    : null;
}

/**
 * Windows' scheduler: `schtasks /delete /tn * /f`, `Unregister-ScheduledTask -TaskName *`, or every
 * task `Get-ScheduledTask` lists piped into `Unregister-ScheduledTask`.
 */
function windowsTasksDeleted({ inv, pipeline, index }: RuleInput): string | null {
  const [program = "", ...args] = inv.argv;
  const name = program.toLowerCase().replace(/\.exe$/, "");
  const all = args.some((a) => a === "*" || a === '"*"');
  if (name === "schtasks" && args.some((a) => /^[/-]delete$/i.test(a)) && all)
    return "schtasks deletes every scheduled task";
  if (name !== "unregister-scheduledtask") return null;
  const listed = pipeline
    .slice(0, index)
    .some((f) => /^get-scheduledtask$/i.test(f.argv[0] ?? "") && f.argv.length === 1);
  return all || listed ? "Unregister-ScheduledTask deletes every scheduled task" : null;
}

/** `sed -i 's/SELINUX=enforcing/SELINUX=disabled/' /etc/selinux/config`: SELinux off from the next boot. */
function selinuxConfigDisabled(program: string, args: string[], inv: Invocation): string | null {
  const config = "/etc/selinux/config";
  const writes =
    (program === "sed" && args.some((a) => /^-[a-zA-Z]*i|^--in-place/.test(a)) && args.includes(config)) ||
    (program === "tee" && args.includes(config)) ||
    inv.source.redirects.some((r) => /^>>?$/.test(r.op) && r.target === config);
  const text = [...args, inv.source.stdin ?? ""].join(" ");
  return writes && /SELINUX=(disabled|permissive)/.test(text) ? "SELinux is turned off from the next boot" : null;
}

/** Packages the machine cannot boot, log in, become root, reach or schedule without. */
const VITAL_PACKAGE = new RegExp(
  "^(openssh(-server)?|ssh|sudo|systemd|systemd-sysv|libc6|glibc|libc-bin|coreutils|bash|dash|util-linux|login|" +
    "passwd|shadow|libpam.*|pam|apt|dpkg|rpm|yum|dnf|pacman|linux-image.*|linux|kernel(-core)?|grub.*|" +
    "network-manager|NetworkManager|netplan\\.io|iproute2|cron|cronie|init|systemd-networkd|" +
    // The system's own tools are written in these: removing one takes the package manager with it.
    "python3|python3-minimal|perl-base|udev|initramfs-tools|dracut|ubuntu-minimal|ca-certificates)(:\\w+)?$",
);
/** Package managers and the words that remove packages. */
const PACKAGE_REMOVE: Record<string, RegExp> = {
  apt: /^(remove|purge|autoremove)$/,
  "apt-get": /^(remove|purge|autoremove)$/,
  aptitude: /^(remove|purge)$/,
  yum: /^(remove|erase|autoremove)$/,
  dnf: /^(remove|erase|autoremove)$/,
  zypper: /^(remove|rm)$/,
  apk: /^del$/,
  snap: /^remove$/,
  brew: /^(uninstall|remove|rm)$/,
};

/** `apt purge openssh-server`, `dnf remove sudo`, `dpkg --purge --force-all libc6`, `rpm -e --nodeps glibc`. */
function vitalPackageRemoved(program: string, args: string[]): string | null {
  const words = args.filter((a) => !a.startsWith("-"));
  const verb = PACKAGE_REMOVE[program];
  const removes =
    verb?.test(words[0] ?? "") === true ||
    (program === "pacman" && args.some((a) => /^-R/.test(a))) ||
    (program === "dpkg" && args.some((a) => /^(-r|-P|--remove|--purge)$/.test(a))) ||
    (program === "rpm" && args.some((a) => /^(-e|--erase)$/.test(a)));
  if (!removes) return null;
  const forced = args.some((a) => /^--(force-all|force-remove-essential|nodeps)$/.test(a));
  const vital = words.slice(verb !== undefined ? 1 : 0).find((w) => VITAL_PACKAGE.test(w));
  if (vital) return `${program} removes ${vital}: the machine may not boot, log in or be reached`;
  return forced ? `${program} removes packages past their dependency checks` : null;
}

/** `setcap cap_setuid+ep /usr/bin/python3`: a program given root's powers, for anyone who runs it. */
function rootCapabilityGranted(program: string, args: string[]): string | null {
  if (program !== "setcap" || args.includes("-r")) return null;
  const caps = args.find((a) =>
    /cap_(setuid|setgid|sys_admin|dac_override|dac_read_search|sys_ptrace|sys_module)/i.test(a),
  );
  return caps && /[+=][a-z]*[ep]/i.test(caps) ? `setcap ${caps} lets anyone running the program act as root` : null;
}

/** `timedatectl set-ntp false`: the clock no longer kept in time (certificates, logs, tokens drift). */
function timeSyncOff(program: string, args: string[]): string | null {
  // `date -s 2001-01-01`, `timedatectl set-time …`: the clock set by hand (certificates, cron, logs go wrong).
  if (program === "date" && args.some((a) => /^(-s|--set)(=|$)/.test(a))) return "date -s sets the clock by hand";
  if (program === "timedatectl" && args[0] === "set-time") return "timedatectl set-time sets the clock by hand";
  return program === "timedatectl" && args[0] === "set-ntp" && /^(false|no|0|off)$/i.test(args[1] ?? "")
    ? "timedatectl set-ntp false stops time synchronisation"
    : null;
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
      remoteServiceStopped(input) ??
      initScriptStopped(input.inv.source.argv) ??
      securityDisabled(program, args) ??
      networkCut(program, args) ??
      otherSchedulers(program, args, input.inv) ??
      firewallDropped(program, args, input.inv) ??
      firewallOpened(program, args) ??
      nftLockout(program, args) ??
      networkCrippled(program, args) ??
      kernelSettingChanged(input) ??
      accountDestroyed(program, args) ??
      vitalPackageRemoved(program, args) ??
      rootCapabilityGranted(program, args) ??
      timeSyncOff(program, args) ??
      rootShellRemoved(program, args) ??
      unitLinkedToNull(program, args) ??
      selinuxConfigDisabled(program, args, input.inv) ??
      windowsTasksDeleted(input) ??
      atQueueEmptied(input) ??
      stopsListedTimers(input) ??
      crontabEmptied(input)
    );
  },
};
