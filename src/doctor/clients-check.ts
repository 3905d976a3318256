/**
 * The MCP clients on this machine (those `ptyhub install` knows, src/install/clients) and what each
 * launches as "ptyhub": whether it registers ptyhub at all, and whether that command exists and
 * answers `--version` with this version (a client may still launch an old copy or a moved clone).
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { CLIENTS } from "../install/clients/all-clients.ts";
import type { InstallEnvironment, McpClient, Scope } from "../install/clients/types.ts";
import { SERVER_NAME } from "../install/command.ts";
import { isPlainObject } from "../install/config-edit.ts";
import { nodeValue, parseJsonc } from "../util/jsonc.ts";
import { olderVersion } from "../daemon-client/upgrade.ts";
import { VERSION } from "../version.ts";
import { errorText, type Finding, findingsOf } from "./finding.ts";

const is = findingsOf("clients");

/** How long a registered command gets to print its version. */
const VERSION_TIMEOUT_MS = 10_000;
/** Package runners fetch ptyhub when the client starts it: running them here could download it. */
const PACKAGE_RUNNERS = new Set(["npx", "bunx"]);
const SCOPES: readonly Scope[] = ["user", "project"];

/** What a client's config says about ptyhub: a command it launches, or an HTTP endpoint. */
type Registration = { command: string; args: string[] } | { url: string };
/** Claude Code's third scope: `claude mcp add` without -s, kept in ~/.claude.json for one directory. */
type RegistrationScope = Scope | "local";

interface Found {
  /** The file, and the scope inside it when the file holds several. */
  where: string;
  scope: RegistrationScope;
  registration: Registration;
}

function machineHere(): InstallEnvironment {
  return { home: homedir(), cwd: process.cwd(), platform: process.platform, env: process.env };
}

export async function checkClients(machine: InstallEnvironment = machineHere()): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const client of CLIENTS) findings.push(...(await checkClient(client, machine)));
  if (findings.length === 0) {
    return [
      is.warn(
        "MCP clients",
        "none of claude-code, claude-desktop, cursor, vscode, windsurf, codex is installed here",
        "Install one, then register ptyhub with it: ptyhub install CLIENT.",
      ),
    ];
  }
  return findings;
}

async function checkClient(client: McpClient, machine: InstallEnvironment): Promise<Finding[]> {
  const found: Found[] = [];
  const problems: Finding[] = [];
  for (const scope of SCOPES) {
    const path = client.configPath(machine, scope);
    if (path === undefined || !existsSync(path)) continue;
    try {
      found.push(...registrationsIn(client, path, scope, machine));
    } catch (err) {
      problems.push(
        is.warn(`${client.id}: ${path}`, `cannot read it: ${errorText(err)}`, `Fix ${path}; the client cannot either.`),
      );
    }
  }
  const installed = client.installedMarkers(machine).some((marker) => existsSync(marker));
  if (found.length === 0 && problems.length === 0) {
    return installed
      ? [is.warn(client.id, "installed, but ptyhub is not registered with it", `ptyhub install ${client.id}`)]
      : [];
  }
  const launches = await Promise.all(found.map(({ where, registration }) => checkLaunch(client, where, registration)));
  const scopes = new Set(found.map((f) => f.scope));
  if (scopes.has("user") && scopes.has("local")) {
    problems.push(
      is.warn(
        client.id,
        `ptyhub is registered both for every directory and for ${machine.cwd} alone ` +
          `(Claude Code: "Conflicting scopes")`,
        "claude mcp remove -s local ptyhub (the user-scope entry, from ptyhub install or -s user, stays).",
      ),
    );
  }
  return [...problems, ...launches];
}

/** ptyhub's entries in the config file of `scope`, each with where it is. */
function registrationsIn(client: McpClient, path: string, scope: Scope, machine: InstallEnvironment): Found[] {
  const text = readFileSync(path, "utf8");
  if (client.format.kind === "toml") {
    const parsed: unknown = Bun.TOML.parse(text);
    const servers = isPlainObject(parsed) ? parsed.mcp_servers : undefined;
    const entry = isPlainObject(servers) ? registration(servers[SERVER_NAME]) : undefined;
    return entry ? [{ where: path, scope, registration: entry }] : [];
  }
  const root = parseJsonc(text).root;
  const config = root === null ? {} : nodeValue(root);
  if (!isPlainObject(config)) return [];
  const out: Found[] = [];
  const servers = config[client.format.serversKey];
  const entry = isPlainObject(servers) ? registration(servers[SERVER_NAME]) : undefined;
  if (entry) out.push({ where: path, scope, registration: entry });
  // Claude Code's "local" scope (`claude mcp add` without -s): this directory only, kept per project.
  const projects = config.projects;
  const here = isPlainObject(projects) ? projects[machine.cwd] : undefined;
  const local = isPlainObject(here) ? here[client.format.serversKey] : undefined;
  const localEntry = isPlainObject(local) ? registration(local[SERVER_NAME]) : undefined;
  if (localEntry) {
    out.push({ where: `${path} (local scope: ${machine.cwd} only)`, scope: "local", registration: localEntry });
  }
  return out;
}

function registration(entry: unknown): Registration | undefined {
  if (!isPlainObject(entry)) return undefined;
  if (typeof entry.url === "string") return { url: entry.url };
  if (typeof entry.command !== "string") return undefined;
  const args = Array.isArray(entry.args) ? entry.args.filter((a): a is string => typeof a === "string") : [];
  return { command: entry.command, args };
}

async function checkLaunch(client: McpClient, where: string, reg: Registration): Promise<Finding> {
  const subject = `${client.id}: ${where}`;
  if ("url" in reg) return is.ok(subject, `registers ptyhub serve --http at ${reg.url}`);
  const shown = [reg.command, ...reg.args].join(" ");
  const reinstall = `ptyhub install ${client.id} (registers this ptyhub)`;
  const executable = Bun.which(reg.command);
  if (executable === null) return is.fail(subject, `launches ${shown}, but ${reg.command} is not found`, reinstall);
  if (PACKAGE_RUNNERS.has(reg.command)) return is.ok(subject, `launches ${shown} (fetched by ${reg.command})`);
  let answer: string;
  try {
    answer = await versionOf([executable, ...reg.args]);
  } catch (err) {
    return is.fail(subject, `launches ${shown}, which does not run: ${errorText(err)}`, reinstall);
  }
  const version = /^ptyhub (\S+)/.exec(answer)?.[1];
  if (version === undefined) {
    return is.fail(subject, `launches ${shown}, which is not ptyhub (it says ${JSON.stringify(answer)})`, reinstall);
  }
  if (olderVersion(version, VERSION)) return is.warn(subject, `launches ptyhub ${version} (${shown})`, reinstall);
  return is.ok(subject, `launches ptyhub ${version} (${shown})`);
}

/** The first line `argv --version` prints, or why it printed none. */
async function versionOf(argv: string[]): Promise<string> {
  const proc = Bun.spawn([...argv, "--version"], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "ignore",
    timeout: VERSION_TIMEOUT_MS,
  });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  if (code !== 0) throw new Error(`--version exited ${code}`);
  return out.split("\n")[0]!.trim();
}
