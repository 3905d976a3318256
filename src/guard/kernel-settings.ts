/**
 * Part of the `system-config` rule: kernel settings and network shaping that cut a machine off or
 * take a protection away, however they are written — `sysctl -w net.ipv4.ip_forward=0`, `echo 1 >
 * /proc/sys/net/ipv6/conf/all/disable_ipv6`, a line in /etc/sysctl.conf; `tc … netem loss 100%`, a
 * blackhole default route, an MTU no packet fits; and a firewall opened to everything (which is a
 * firewall turned off: `iptables -A INPUT -j ACCEPT`, `firewall-cmd --set-default-zone=trusted`).
 */
import type { RuleInput } from "./rule-types.ts";
import { pipelineText } from "./piped-text.ts";
import { options } from "./options.ts";

/** The smallest MTU IPv4 guarantees: below it, most packets no longer fit. */
const MIN_IPV4_MTU = 576;
/** Below these, the kernel can hardly run a process, open a file or accept a connection. */
const MIN_PROCESS_LIMIT = 1000;
const MIN_CONNECTION_BACKLOG = 16;

/** Settings whose value 0 turns a protection off (address randomisation, link and ptrace hardening). */
const PROTECTION_OFF_AT_ZERO = new RegExp(
  String.raw`^(kernel\.(randomize_va_space|kptr_restrict|dmesg_restrict|yama\.ptrace_scope|` +
    String.raw`unprivileged_bpf_disabled)|fs\.protected_\w+|net\.ipv4\.tcp_syncookies)$`,
);

/** Why setting kernel parameter `key` (dotted or a /proc/sys path) to `value` does harm, or null. */
export function harmfulKernelSetting(rawKey: string, rawValue: string): string | null {
  const key = rawKey
    .replace(/^\/proc\/sys\//, "")
    .replaceAll("/", ".")
    .trim();
  const value = rawValue.trim().replace(/^["']|["']$/g, "");
  const number = /^-?\d+$/.test(value) ? Number(value) : null;
  if (/(^|\.)(ip_forward|forwarding)$/.test(key) && number === 0) return `${key}=0 stops routing (containers, VPNs)`;
  if (/(^|\.)disable_ipv6$/.test(key) && number === 1) return `${key}=1 takes IPv6 away`;
  if (PROTECTION_OFF_AT_ZERO.test(key) && number === 0) return `${key}=0 turns a kernel protection off`;
  if (key === "vm.overcommit_memory" && number === 2) return "vm.overcommit_memory=2 makes allocations fail";
  if (/^kernel\.(pid_max|threads-max)$|^fs\.file-max$/.test(key) && number !== null && number < MIN_PROCESS_LIMIT) {
    return `${key}=${value} leaves no room for processes or files`;
  }
  if (/^net\.(core\.somaxconn|ipv4\.tcp_max_syn_backlog)$/.test(key) && number !== null) {
    return number < MIN_CONNECTION_BACKLOG ? `${key}=${value} refuses connections` : null;
  }
  // Any other network setting changed at run time, except turning routing or IPv6 on and raising a
  // buffer, limit or backlog: the network stack of the machine (a remote one, too) behaves otherwise.
  const enables = /(ip_forward|forwarding)$/.test(key)
    ? number === 1
    : /disable_ipv6$/.test(key)
      ? number === 0
      : false;
  const raises = /(mem|max|backlog|somaxconn|buckets|size|_range)/.test(key) && (number === null || number >= 1024);
  if (key.startsWith("net.") && !enables && !raises) return `${key}=${value} changes how the network behaves`;
  return null;
}

/** `key = value` lines of a sysctl file (comments skipped): the first harmful one, or null. */
function harmfulSettingLines(text: string): string | null {
  for (const line of text.split("\n")) {
    const m = /^\s*([\w.\-/]+)\s*=\s*(\S+)/.exec(line);
    const why = m ? harmfulKernelSetting(m[1]!, m[2]!) : null;
    if (why) return why;
  }
  return null;
}

/** A file the kernel reads settings from: /proc/sys/… now, /etc/sysctl.conf or /etc/sysctl.d/… at boot. */
const SETTINGS_FILE = /^\/proc\/sys\/.+|^\/(etc|usr\/lib|run)\/sysctl\.(conf|d\/.+)$/;

/** What a write to a settings file puts in: redirected output, or what is piped or given to tee. */
function writtenSettings({ inv, pipeline, index }: RuleInput): { file: string; text: string } | null {
  const [program = "", ...args] = inv.argv;
  const redirect = inv.source.redirects.find((r) => /^>>?\|?$|^&>$/.test(r.op) && SETTINGS_FILE.test(r.target));
  if (redirect) {
    const text = pipelineText(pipeline.slice(0, index + 1).map((i) => i.source));
    return text === null ? null : { file: redirect.target, text };
  }
  const teed = program === "tee" ? options(args).operands.find((w) => SETTINGS_FILE.test(w)) : undefined;
  if (teed === undefined) return null;
  const text = inv.source.stdin ?? pipelineText(pipeline.slice(0, index).map((i) => i.source));
  return text === null ? null : { file: teed, text };
}

/** `sysctl -w KEY=VALUE` (or `sysctl KEY=VALUE`), and writes to /proc/sys or a sysctl file. */
export function kernelSettingChanged(input: RuleInput): string | null {
  const [program = "", ...args] = input.inv.argv;
  if (program === "sysctl") {
    for (const a of args) {
      const m = /^([^-=][^=]*)=(.*)$/.exec(a);
      const why = m ? harmfulKernelSetting(m[1]!, m[2]!) : null;
      if (why) return `sysctl: ${why}`;
    }
    return null;
  }
  const written = writtenSettings(input);
  if (written === null) return null;
  const why = written.file.startsWith("/proc/sys/")
    ? harmfulKernelSetting(written.file, written.text)
    : harmfulSettingLines(written.text);
  return why ? `writing ${written.file}: ${why}` : null;
}

/** Routes that swallow traffic: `ip route add blackhole default`, `ip rule add … prohibit`. */
const DISCARDING_ROUTE = /^(blackhole|unreachable|prohibit)$/;

/** `tc qdisc … netem loss 100%`, a blackhole default route, `ip link set eth0 mtu 1`, radios off. */
export function networkCrippled(program: string, args: string[]): string | null {
  const words = args.filter((a) => !a.startsWith("-"));
  if (program === "tc" && words.includes("netem")) {
    const loss = words[words.indexOf("loss") + 1] ?? "";
    if (words.includes("loss") && /^100(\.0*)?%?$/.test(loss)) return "tc netem drops every packet";
  }
  if (program === "ip" && /^(r|ro|route|rule)$/.test(words[0] ?? "") && /^(add|replace|change)$/.test(words[1] ?? "")) {
    const everything = words.some((w) => /^(default|all|0\.0\.0\.0\/0)$/.test(w)) || words[0] === "rule";
    if (everything && words.some((w) => DISCARDING_ROUTE.test(w))) return `ip ${words[0]} discards all traffic`;
  }
  const mtuAt = words.indexOf("mtu");
  if (program === "ip" && mtuAt !== -1 && Number(words[mtuAt + 1]) < MIN_IPV4_MTU && words[2] !== "lo") {
    return `ip link sets an MTU of ${words[mtuAt + 1]}: no packet fits`;
  }
  if (program === "ifconfig" && mtuAt !== -1 && Number(words[mtuAt + 1]) < MIN_IPV4_MTU) {
    return `ifconfig sets an MTU of ${words[mtuAt + 1]}: no packet fits`;
  }
  if (program === "rfkill" && words[0] === "block" && /^(all|wlan|wifi)$/.test(words[1] ?? "")) {
    return "rfkill blocks the radios: a wireless machine is cut off";
  }
  if (program === "nmcli" && /^(r|radio)$/.test(words[0] ?? "") && /^(wifi|all)$/.test(words[1] ?? "")) {
    return words[2] === "off" ? "nmcli turns the radio off: a wireless machine is cut off" : null;
  }
  return null;
}

/** Zones that let everything in, or nothing (ssh included). */
const OPEN_OR_SHUT_ZONE = /^(trusted|drop|block)$/;
/** A port range covering every port: `1:65535`, `0-65535/tcp`. */
const ALL_PORTS = /^[01][:-]65535(\/\w+)?$/;

/** `iptables -A INPUT -j ACCEPT`, `ufw allow from any`, `firewall-cmd --set-default-zone=trusted`. */
export function firewallOpened(program: string, args: string[]): string | null {
  if (/^ip6?tables(-legacy|-nft)?$/.test(program)) {
    const value = (names: string[]) => args.find((_a, i) => names.includes(args[i - 1] ?? ""));
    const chain = value(["-A", "--append", "-I", "--insert"]);
    const target = value(["-j", "--jump"]);
    const narrowed = args.some((a) => /^(-s|--source|-i|--in-interface|-p|--protocol|-m|--match|--dport)$/.test(a));
    if (chain === "INPUT" && target === "ACCEPT" && !narrowed) return `${program} accepts every connection`;
    return null;
  }
  if (program === "ufw") {
    const words = args.filter((a) => !a.startsWith("-"));
    if (words[0] !== "allow") return null;
    const rest = words.slice(1);
    const open = rest.length > 0 && rest.every((w) => /^(from|to|any|in|proto|tcp|udp)$/.test(w) || ALL_PORTS.test(w));
    return open ? "ufw allows every connection: the firewall lets everything in" : null;
  }
  if (program === "firewall-cmd") {
    const zone = args.find((a) => a.startsWith("--set-default-zone="))?.split("=")[1];
    const zoneArg = args[args.indexOf("--set-default-zone") + 1];
    const z = zone ?? (args.includes("--set-default-zone") ? zoneArg : undefined);
    if (z !== undefined && OPEN_OR_SHUT_ZONE.test(z)) return `firewall-cmd makes ${z} the default zone`;
    const port = args.find((a, i) => a.startsWith("--add-port=") || args[i - 1] === "--add-port");
    if (port !== undefined && ALL_PORTS.test(port.replace(/^--add-port=/, ""))) {
      return "firewall-cmd opens every port";
    }
  }
  if (/^netsh(\.exe)?$/i.test(program) && /state\s+off/i.test(args.join(" "))) return "netsh turns the firewall off";
  return null;
}

/** nft's words that narrow a rule to some traffic (an address, a port, an interface, a state). */
const NFT_NARROWS =
  /^(ip6?|tcp|udp|icmp|icmpv6|th|meta|iifname|oifname|iif|oif|ct|saddr|daddr|dport|sport|ether|l4proto)$/;

/**
 * `nft add rule inet filter input drop`: every incoming packet dropped; `nft add chain … { type
 * filter hook input priority 0; policy drop; }`: the same as the chain's policy.
 */
export function nftLockout(program: string, args: string[]): string | null {
  if (program !== "nft") return null;
  const words = args.flatMap((a) => a.split(/[\s;{}]+/)).filter((w) => w !== "" && !w.startsWith("-"));
  const hookInput = words.some((w, i) => w === "hook" && /^(input|output)$/.test(words[i + 1] ?? ""));
  if (hookInput && words.some((w, i) => w === "policy" && /^(drop|reject)$/.test(words[i + 1] ?? ""))) {
    return "nft sets a drop policy on the input chain: every connection refused";
  }
  const at = words.findIndex((w) => w === "rule");
  if (at < 1 || !/^(add|insert)$/.test(words[at - 1]!)) return null;
  // `rule FAMILY TABLE CHAIN STATEMENT…` (the family may be left out).
  const rest = words.slice(at + 1);
  const chainAt = /^(ip6?|inet|arp|bridge|netdev)$/.test(rest[0] ?? "") ? 2 : 1;
  if (!/^(input|output|INPUT|OUTPUT)$/.test(rest[chainAt] ?? "")) return null;
  const statement = rest.slice(chainAt + 1);
  const drops = statement.some((w) => /^(drop|reject)$/.test(w));
  return drops && !statement.some((w) => NFT_NARROWS.test(w)) ? "nft drops every packet of the chain" : null;
}
