/**
 * OpenSSH client configuration, the subset ptyhub needs to connect the way `ssh` would:
 * ~/.ssh/config, then /etc/ssh/ssh_config; for each parameter the first value obtained wins
 * (IdentityFile accumulates), `Host` patterns with `*`, `?` and `!negation`, `Match` with
 * all/host/originalhost/user/localuser, `Include` with globs, `Keyword value` or `Keyword=value`.
 * Everything else in those files is ignored, never an error: a config `ssh` accepts must not
 * stop ptyhub. See ssh_config(5).
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { homedir, hostname as localHostname, userInfo } from "node:os";
import { basename, dirname, isAbsolute, join } from "node:path";
import { AppError } from "../../api/errors.ts";

/** Include depth ssh itself allows before it assumes a loop. */
const MAX_INCLUDE_DEPTH = 16;
/** OpenSSH's defaults, in its order (ssh_config(5), IdentityFile). */
const DEFAULT_IDENTITIES = ["id_rsa", "id_ecdsa", "id_ecdsa_sk", "id_ed25519", "id_ed25519_sk", "id_xmss", "id_dsa"];

export interface SshConfigFiles {
  /** Default: ~/.ssh/config. */
  user?: string;
  /** Default: /etc/ssh/ssh_config. */
  system?: string;
}

/** What the config says about one host: only the keywords ptyhub uses, lowercased. */
export type HostOptions = Map<string, string[]>;

interface Line {
  keyword: string;
  args: string[];
  file: string;
}

/** The local user's name. os.userInfo() answers "unknown" under Bun in some containers. */
export function localUsername(): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : -1;
  if (uid >= 0 && existsSync("/etc/passwd")) {
    try {
      for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
        const f = line.split(":");
        if (f.length > 2 && Number(f[2]) === uid && f[0]) return f[0];
      }
    } catch {
      // Fall through.
    }
  }
  const fromEnv = process.env.USER ?? process.env.LOGNAME;
  if (fromEnv) return fromEnv;
  const info = userInfo().username;
  return info && info !== "unknown" ? info : "root";
}

/** Splits a config line into words: whitespace-separated, double quotes group. */
function words(text: string): string[] {
  const out: string[] = [];
  let cur = "";
  let inQuote = false;
  let any = false;
  for (const ch of text) {
    if (ch === '"') {
      inQuote = !inQuote;
      any = true;
    } else if (!inQuote && (ch === " " || ch === "\t")) {
      if (any) out.push(cur);
      cur = "";
      any = false;
    } else {
      cur += ch;
      any = true;
    }
  }
  if (any) out.push(cur);
  return out;
}

function parseLine(raw: string): { keyword: string; args: string[] } | null {
  const text = raw.trim();
  if (!text || text.startsWith("#")) return null;
  const m = /^([A-Za-z][A-Za-z0-9]*)\s*(?:=\s*|\s+)(.*)$/.exec(text) ?? /^([A-Za-z][A-Za-z0-9]*)$/.exec(text);
  if (!m) return null;
  const rest = (m[2] ?? "").replace(/\s+#.*$/, "");
  return { keyword: m[1]!.toLowerCase(), args: words(rest) };
}

/** `*` and `?` glob match, case-insensitive as ssh does for host names. */
export function globMatch(pattern: string, text: string): boolean {
  const re = new RegExp(
    "^" +
      pattern
        .replace(/[.+^${}()|[\]\\]/g, "\\$&")
        .replace(/\*/g, ".*")
        .replace(/\?/g, ".") +
      "$",
    "i",
  );
  return re.test(text);
}

/** A comma- or space-separated pattern list: some positive pattern matches and no negated one. */
export function matchPatternList(patterns: string[], text: string): boolean {
  let matched = false;
  for (const p of patterns) {
    if (p.startsWith("!")) {
      if (globMatch(p.slice(1), text)) return false;
    } else if (globMatch(p, text)) {
      matched = true;
    }
  }
  return matched;
}

function expandTilde(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  return path;
}

function readLines(file: string, depth: number, sink: Line[]): void {
  if (depth > MAX_INCLUDE_DEPTH) return;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return;
  }
  for (const raw of text.split(/\r?\n/)) {
    const parsed = parseLine(raw);
    if (!parsed) continue;
    if (parsed.keyword === "include") {
      // Relative includes are under ~/.ssh for the user's file, /etc/ssh for the system's.
      const base = file.startsWith("/etc/") ? "/etc/ssh" : join(homedir(), ".ssh");
      for (const arg of parsed.args) {
        for (const path of globFiles(isAbsolute(expandTilde(arg)) ? expandTilde(arg) : join(base, arg))) {
          readLines(path, depth + 1, sink);
        }
      }
      continue;
    }
    sink.push({ ...parsed, file });
  }
}

/** Files matching a path whose last component may hold wildcards (what Include uses in practice). */
function globFiles(path: string): string[] {
  const name = basename(path);
  if (!/[*?]/.test(name)) return existsSync(path) ? [path] : [];
  const dir = dirname(path);
  try {
    return readdirSync(dir)
      .filter((f) => globMatch(name, f))
      .sort()
      .map((f) => join(dir, f))
      .filter((f) => statSync(f).isFile());
  } catch {
    return [];
  }
}

/**
 * The options for `host` (the name as given, an alias or a real name). `user` is what the call
 * asked for, used by `Match user`.
 */
export function hostOptions(host: string, files: SshConfigFiles = {}, user?: string): HostOptions {
  const lines: Line[] = [];
  readLines(files.user ?? join(homedir(), ".ssh", "config"), 0, lines);
  readLines(files.system ?? "/etc/ssh/ssh_config", 0, lines);
  const out: HostOptions = new Map();
  let active = true;
  for (const line of lines) {
    if (line.keyword === "host") {
      active = matchPatternList(line.args, host);
      continue;
    }
    if (line.keyword === "match") {
      active = evalMatch(line.args, host, out, user);
      continue;
    }
    if (!active || line.args.length === 0) continue;
    if (line.keyword === "identityfile") {
      out.set("identityfile", [...(out.get("identityfile") ?? []), line.args[0]!]);
      continue;
    }
    if (!out.has(line.keyword)) out.set(line.keyword, line.args);
  }
  return out;
}

/** `Match` criteria ptyhub can judge; anything it cannot (exec, canonical, …) does not match. */
function evalMatch(args: string[], host: string, sofar: HostOptions, user?: string): boolean {
  let i = 0;
  while (i < args.length) {
    let criterion = args[i++]!.toLowerCase();
    const negate = criterion.startsWith("!");
    if (negate) criterion = criterion.slice(1);
    let result: boolean;
    if (criterion === "all") {
      result = true;
    } else {
      const value = args[i++];
      if (value === undefined) return false;
      const list = value.split(",");
      switch (criterion) {
        case "host":
          result = matchPatternList(list, sofar.get("hostname")?.[0]?.replace(/%h/g, host) ?? host);
          break;
        case "originalhost":
          result = matchPatternList(list, host);
          break;
        case "user":
          result = matchPatternList(list, user ?? sofar.get("user")?.[0] ?? localUsername());
          break;
        case "localuser":
          result = matchPatternList(list, localUsername());
          break;
        default:
          return false;
      }
    }
    if (negate ? result : !result) return false;
  }
  return true;
}

export interface HopSpec {
  host: string;
  user?: string;
  port?: number;
}

/** `[user@]host[:port]`, `[user@][v6addr]:port`, or `ssh://[user@]host[:port]`: one ProxyJump hop. */
export function parseHop(text: string): HopSpec {
  let s = text.trim().replace(/^ssh:\/\//, "");
  let user: string | undefined;
  const at = s.lastIndexOf("@");
  if (at >= 0) {
    user = s.slice(0, at);
    s = s.slice(at + 1);
  }
  let host = s;
  let port: number | undefined;
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
  if (bracket) {
    host = bracket[1]!;
    if (bracket[2]) port = Number(bracket[2]);
  } else {
    const m = /^([^:]+):(\d+)$/.exec(s);
    if (m) {
      host = m[1]!;
      port = Number(m[2]);
    }
  }
  if (
    !host ||
    /[\s/]/.test(host) ||
    (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) ||
    user === ""
  ) {
    throw new AppError(
      "INVALID_ARGUMENT",
      `invalid ssh host '${text.slice(0, 100)}'`,
      "Use host, user@host, host:port or user@host:port (comma-separated for several jump hosts).",
    );
  }
  return { host, user, port };
}

/** A host with everything needed to connect to it. */
export interface ResolvedHost {
  /** The name the caller used (an alias, or the real name). */
  alias: string;
  hostname: string;
  port: number;
  user: string;
  /** Identity files in the order to try; whether they were named (config or call) or defaults. */
  identityFiles: string[];
  identitiesNamed: boolean;
  identitiesOnly: boolean;
  /** The jump chain from the config (null: none). */
  proxyJump: string | null;
  serverAliveInterval: number | null;
  serverAliveCountMax: number | null;
  connectTimeout: number | null;
  knownHostsFiles: string[];
  /** Files known_hosts lines are only read from. */
  globalKnownHostsFiles: string[];
  hashKnownHosts: boolean;
  /** The name host keys are recorded under (HostKeyAlias, else the host name). */
  hostKeyName: string;
}

function intOption(opts: HostOptions, key: string): number | null {
  const v = opts.get(key)?.[0];
  if (v === undefined) return null;
  const n = Number(v);
  return Number.isInteger(n) && n >= 0 ? n : null;
}

function yes(opts: HostOptions, key: string): boolean {
  return opts.get(key)?.[0]?.toLowerCase() === "yes";
}

/** Expands %-tokens ssh_config(5) defines for paths (TOKENS). */
function expandTokens(text: string, t: { host: string; port: number; user: string; alias: string }): string {
  return text.replace(/%([%hprudnlLC])/g, (_m, c: string) => {
    switch (c) {
      case "%":
        return "%";
      case "h":
        return t.host;
      case "p":
        return String(t.port);
      case "r":
        return t.user;
      case "u":
        return localUsername();
      case "d":
        return homedir();
      case "n":
        return t.alias;
      case "l":
        return localHostname();
      case "L":
        return localHostname().split(".")[0]!;
      default:
        return "";
    }
  });
}

/**
 * Resolves a host as `ssh` would: the call's explicit user/port/identity win over the config,
 * which wins over the defaults (local user name, port 22, the default identity files).
 */
export function resolveHost(spec: HopSpec & { identityFile?: string }, files: SshConfigFiles = {}): ResolvedHost {
  const alias = spec.host;
  const opts = hostOptions(alias, files, spec.user);
  const rawHostname = opts.get("hostname")?.[0];
  const hostname = rawHostname ? rawHostname.replace(/%%/g, "\0").replace(/%h/g, alias).replace(/\0/g, "%") : alias;
  const port = spec.port ?? intOption(opts, "port") ?? 22;
  const user = spec.user ?? opts.get("user")?.[0] ?? localUsername();
  const tokens = { host: hostname, port, user, alias };
  const path = (p: string) => expandTilde(expandTokens(p, tokens));
  const named = [
    ...(spec.identityFile ? [spec.identityFile] : []),
    ...(opts.get("identityfile") ?? []).filter((f) => f.toLowerCase() !== "none"),
  ].map(path);
  const identityFiles =
    named.length > 0 ? [...new Set(named)] : DEFAULT_IDENTITIES.map((n) => join(homedir(), ".ssh", n));
  const proxy = opts.get("proxyjump")?.join(" ") ?? null;
  const userKnown = opts.get("userknownhostsfile") ?? ["~/.ssh/known_hosts", "~/.ssh/known_hosts2"];
  const globalKnown = opts.get("globalknownhostsfile") ?? ["/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2"];
  return {
    alias,
    hostname,
    port,
    user,
    identityFiles,
    identitiesNamed: named.length > 0,
    identitiesOnly: yes(opts, "identitiesonly"),
    proxyJump: proxy && proxy.toLowerCase() !== "none" ? proxy : null,
    serverAliveInterval: intOption(opts, "serveraliveinterval"),
    serverAliveCountMax: intOption(opts, "serveralivecountmax"),
    connectTimeout: intOption(opts, "connecttimeout"),
    knownHostsFiles: userKnown.filter((f) => f.toLowerCase() !== "none").map(path),
    globalKnownHostsFiles: globalKnown.filter((f) => f.toLowerCase() !== "none").map(path),
    hashKnownHosts: yes(opts, "hashknownhosts"),
    hostKeyName: opts.get("hostkeyalias")?.[0] ?? hostname,
  };
}
