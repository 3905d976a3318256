/**
 * `ptyhub install [CLIENT] [--project] [--dry-run] [--uninstall]`: registers ptyhub as an MCP
 * server in a client's config (or removes it). Edits are merges: only ptyhub's own entry changes,
 * the file is backed up first, re-running changes nothing, and a file that cannot be parsed is
 * refused untouched. This is a CLI verb, not the MCP server, so messages go to stdout and errors
 * to stderr.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { previewChange } from "./change-preview.ts";
import { readConfig, writeConfig } from "./config-file.ts";
import { ConfigEditError, type EditAction, type EditResult, type LaunchCommand } from "./config-edit.ts";
import { editJsonServers } from "./json-servers.ts";
import { editTomlServer } from "./toml-servers.ts";
import { nextSteps } from "./next-steps.ts";
import { currentProgram, launchCommandFor, portableLaunch } from "./launch-command.ts";
import { CLIENTS, findClient } from "./clients/all-clients.ts";
import { resolveHttpToken } from "../config/http-token.ts";
import { EXIT_USAGE, parseVerbArgs, UsageError } from "../util/verb-args.ts";
import type { ConfigFormat, InstallChoices, InstallEnvironment, McpClient, Scope } from "./clients/types.ts";

/** The server name ptyhub registers under in every client. */
export const SERVER_NAME = "ptyhub";

const USAGE = `usage: ptyhub install [CLIENT] [--project] [--dry-run] [--uninstall] [--approve-tools] [--http URL]

Registers ptyhub as an MCP server with CLIENT, or with every client found on this machine.
Clients: ${CLIENTS.map((c) => c.id).join(", ")}

  --project     write the project config in the current directory (claude-code, cursor, vscode)
  --dry-run     show the change without writing anything
  --uninstall   remove ptyhub's entry instead
  --http URL    register a running \`ptyhub serve --http\` at URL (e.g. http://127.0.0.1:6420/mcp) with its
                token header, instead of a command (claude-code, cursor, vscode; user config only)
  --approve-tools
                let the client run ptyhub's tools without asking each time (codex: writes
                default_tools_approval_mode = "approve"; \`codex exec\` refuses unapproved tools).
                Off by default: the tools type into real terminals, so approving them is your call.
`;

const EXIT_FAILED = 1;

/** Stands for the bearer token in a --dry-run preview. */
const DRY_RUN_TOKEN = "<token>";

const INSTALL_ARGS = {
  verb: "install",
  usage: USAGE,
  options: {
    project: { type: "boolean" },
    "dry-run": { type: "boolean" },
    uninstall: { type: "boolean" },
    "approve-tools": { type: "boolean" },
    http: { type: "string" },
  },
  positionals: { min: 0, max: 1, name: "CLIENT" },
} as const;

export interface InstallIo {
  machine: InstallEnvironment;
  launch: LaunchCommand;
  out(line: string): void;
  err(line: string): void;
  now(): Date;
  /** The HTTP server's bearer token (for --http): PTYHUB_HTTP_TOKEN, else the token file. */
  httpToken?(): string;
}

interface InstallOptions {
  scope: Scope;
  action: EditAction;
  dryRun: boolean;
  /** --http: the endpoint and the headers to register instead of a launch command. */
  http: { url: string; headers: Record<string, string> } | null;
  choices: InstallChoices;
}

type Outcome = "changed" | "unchanged" | "failed";

/** How a change is announced: [as a --dry-run preview, once done]. */
const CHANGE_WORDS = {
  register: ["register ptyhub in", "registered ptyhub in"],
  update: ["update ptyhub in", "updated ptyhub in"],
  remove: ["remove ptyhub from", "removed ptyhub from"],
} as const;

/** What became of the entry's per-directory copies (userScopeCopies) when they changed too. */
const SAME_IN_COPIES: Record<EditAction, string> = {
  add: "the entry for this directory (claude mcp add without -s) launches the same command now",
  remove: "removed the entry for this directory (claude mcp add without -s) too",
};

export async function runInstallCommand(args: string[]): Promise<number> {
  return runInstall(args, {
    machine: { home: homedir(), cwd: process.cwd(), platform: process.platform, env: process.env },
    launch: launchCommandFor(currentProgram()),
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    now: () => new Date(),
    httpToken: () => resolveHttpToken().token,
  });
}

export async function runInstall(args: string[], io: InstallIo): Promise<number> {
  const parsed = parseInstallArgs(args, io);
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  const action: EditAction = values.uninstall ? "remove" : "add";
  let http: InstallOptions["http"] = null;
  if (values.http !== undefined && action === "add") {
    const url = httpEndpoint(values.http);
    if (url === null) {
      io.err(
        `ptyhub install: --http needs the server's http:// or https:// URL, e.g. http://127.0.0.1:6420/mcp (got ` +
          `'${values.http}')`,
      );
      return EXIT_USAGE;
    }
    if (values.project) {
      io.err(
        "ptyhub install: --http registers a bearer token, which must not go into a project's shared config; leave " +
          "out --project",
      );
      return EXIT_USAGE;
    }
    if (!io.httpToken) {
      io.err("ptyhub install: no HTTP token available");
      return EXIT_FAILED;
    }
    // A dry run changes nothing and shows no secret: the token is neither created nor printed.
    const token = values["dry-run"] ? DRY_RUN_TOKEN : io.httpToken();
    http = { url, headers: { Authorization: `Bearer ${token}` } };
  }
  const scope: Scope = values.project ? "project" : "user";
  // A project config is committed and shared: it names no path of this machine.
  const launch = scope === "project" ? portableLaunch(io.launch) : io.launch;
  const options: InstallOptions = {
    scope,
    action,
    dryRun: values["dry-run"] === true,
    http,
    choices: { approveTools: values["approve-tools"] === true },
  };

  const selected = selectClients(positionals[0], options.scope, io);
  if (typeof selected === "number") return selected;
  const clients = http ? selected.filter((c) => takesHttp(c)) : selected;
  for (const c of selected) {
    if (clients.includes(c)) continue;
    if (positionals[0] !== undefined) {
      io.err(
        `ptyhub install: ${c.displayName} has no documented HTTP server entry; register \`ptyhub\` (stdio) with it ` +
          `instead`,
      );
      return EXIT_USAGE;
    }
    io.out(`${c.id}: skipped (no documented HTTP server entry)`);
  }

  if (http)
    io.out(
      `ptyhub endpoint: ${http.url} (with its bearer token${options.dryRun ? `, shown as ${DRY_RUN_TOKEN}` : ""})`,
    );
  else if (options.action === "add") io.out(`ptyhub command: ${[launch.command, ...launch.args].join(" ")}`);
  const outcomes: Outcome[] = [];
  for (const client of clients) {
    const outcome = await applyToClient(client, options, launch, io);
    outcomes.push(outcome);
    if (options.choices.approveTools && client.format.kind !== "toml") {
      io.out(`${client.id}: --approve-tools has no setting here; approve ptyhub's tools in ${client.displayName}`);
    }
    if (!options.dryRun && outcome === "changed") {
      const lines = nextSteps(client.id, client.displayName, options.scope, options.action, options.choices);
      for (const line of lines) io.out(line);
    }
  }
  return outcomes.includes("failed") ? EXIT_FAILED : 0;
}

/** The parsed command line, or the exit code when there is nothing to run (--help, a usage error). */
function parseInstallArgs(args: string[], io: InstallIo) {
  try {
    return parseVerbArgs(INSTALL_ARGS, args, io.out) ?? 0;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(err.render());
    return EXIT_USAGE;
  }
}

/** The clients to edit, or an exit code when there are none. */
function selectClients(name: string | undefined, scope: Scope, io: InstallIo): McpClient[] | number {
  if (name !== undefined) {
    const client = findClient(name);
    if (!client) {
      io.err(`ptyhub install: unknown client '${name}'; choose one of: ${CLIENTS.map((c) => c.id).join(", ")}`);
      return EXIT_USAGE;
    }
    if (client.configPath(io.machine, scope) === undefined) {
      io.err(`ptyhub install: ${client.displayName} has no ${scope} config; run without --${scope}`);
      return EXIT_USAGE;
    }
    return [client];
  }
  const detected = CLIENTS.filter((c) => c.installedMarkers(io.machine).some((path) => existsSync(path)));
  if (detected.length === 0) {
    io.err(
      `ptyhub install: found no MCP client on this machine (looked for ${CLIENTS.map((c) => c.id).join(", ")}).\n` +
        `Name one to create its config anyway: ptyhub install <client>`,
    );
    return EXIT_FAILED;
  }
  io.out(`Found: ${detected.map((c) => c.displayName).join(", ")}`);
  const usable = detected.filter((c) => c.configPath(io.machine, scope) !== undefined);
  for (const c of detected) if (!usable.includes(c)) io.out(`${c.id}: skipped (it has no ${scope} config)`);
  return usable;
}

const COMMAND_FIELDS = ["command", "args"];
const URL_FIELDS = ["url", "headers"];

/** The URL of --http, normalized; null when it is not an http(s) URL. */
function httpEndpoint(raw: string): string | null {
  if (!URL.canParse(raw)) return null;
  const u = new URL(raw);
  return u.protocol === "http:" || u.protocol === "https:" ? u.href : null;
}

function takesHttp(client: McpClient): boolean {
  return client.format.kind === "json" && client.format.httpEntry !== undefined;
}

/** The edited text, and whether a copy of the entry elsewhere in the file (userScopeCopies) changed too. */
interface ClientEdit extends EditResult {
  copiesChanged: boolean;
}

function edit(
  format: ConfigFormat,
  text: string | null,
  launch: LaunchCommand,
  options: InstallOptions,
  machine: InstallEnvironment,
): ClientEdit {
  if (format.kind === "toml") {
    const result = editTomlServer(text, SERVER_NAME, launch, options.action, format.extras(options.choices));
    return { ...result, copiesChanged: false };
  }
  const http = options.http && format.httpEntry ? format.httpEntry(options.http.url, options.http.headers) : null;
  const fields = http ?? format.entry(launch);
  // Switching between a command and a URL entry: the other kind's fields would contradict it.
  const drop = http ? COMMAND_FIELDS : URL_FIELDS;
  const entry = { serversKey: format.serversKey, name: SERVER_NAME, fields, drop };
  const main = editJsonServers(text, entry, options.action);
  let edited = main.text;
  let copiesChanged = false;
  const copies = options.scope === "user" ? (format.userScopeCopies?.(machine) ?? []) : [];
  for (const within of copies) {
    const copy = editJsonServers(edited, { ...entry, within }, options.action);
    edited = copy.text;
    copiesChanged ||= copy.changed;
  }
  return { text: edited, changed: main.changed || copiesChanged, existed: main.existed, copiesChanged };
}

async function applyToClient(
  client: McpClient,
  options: InstallOptions,
  launch: LaunchCommand,
  io: InstallIo,
): Promise<Outcome> {
  const path = client.configPath(io.machine, options.scope)!;
  try {
    const snapshot = await readConfig(path);
    const result = edit(client.format, snapshot.text, launch, options, io.machine);
    if (!result.changed) {
      const state =
        options.action === "add" ? "already registered" : snapshot.text === null ? "no config file" : "not registered";
      io.out(`${client.id}: ${state} in ${path}; nothing to change`);
      return "unchanged";
    }
    const [willDo, did] =
      options.action === "remove" ? CHANGE_WORDS.remove : result.existed ? CHANGE_WORDS.update : CHANGE_WORDS.register;
    if (options.dryRun) {
      io.out(`${client.id}: would ${willDo} ${path}${snapshot.text === null ? " (new file)" : ""}:`);
      for (const line of previewChange(snapshot.text ?? "", result.text)) io.out(`    ${line}`);
      return "unchanged";
    }
    const backupPath = await writeConfig(snapshot, result.text, io.now());
    io.out(`${client.id}: ${did} ${path} ${backupPath ? `(backup: ${backupPath})` : "(new file)"}`);
    if (result.copiesChanged) io.out(`${client.id}: ${SAME_IN_COPIES[options.action]} (${io.machine.cwd})`);
    return "changed";
  } catch (err) {
    if (err instanceof ConfigEditError) {
      io.err(`${client.id}: cannot edit ${path}: ${err.message}. Left it unchanged.`);
    } else {
      io.err(`${client.id}: failed on ${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
    return "failed";
  }
}
