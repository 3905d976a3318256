/**
 * `ptyhub install [CLIENT] [--project] [--dry-run] [--uninstall]`: registers ptyhub as an MCP
 * server in a client's config (or removes it). Edits are merges: only ptyhub's own entry changes,
 * the file is backed up first, re-running changes nothing, and a file that cannot be parsed is
 * refused untouched. This is a CLI verb, not the MCP server, so messages go to stdout and errors
 * to stderr.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { parseArgs } from "node:util";
import { previewChange } from "./change-preview.ts";
import { readConfig, writeConfig } from "./config-file.ts";
import { ConfigEditError, type EditAction, type EditResult, type LaunchCommand } from "./config-edit.ts";
import { editJsonServers } from "./json-servers.ts";
import { editTomlServer } from "./toml-servers.ts";
import { nextSteps } from "./next-steps.ts";
import { currentProgram, launchCommandFor } from "./launch-command.ts";
import { CLIENTS, findClient } from "./clients/index.ts";
import type { ConfigFormat, InstallChoices, InstallEnvironment, McpClient, Scope } from "./clients/types.ts";

/** The server name ptyhub registers under in every client. */
export const SERVER_NAME = "ptyhub";

const USAGE = `usage: ptyhub install [CLIENT] [--project] [--dry-run] [--uninstall] [--approve-tools]

Registers ptyhub as an MCP server with CLIENT, or with every client found on this machine.
Clients: ${CLIENTS.map((c) => c.id).join(", ")}

  --project     write the project config in the current directory (claude-code, cursor, vscode)
  --dry-run     show the change without writing anything
  --uninstall   remove ptyhub's entry instead
  --approve-tools
                let the client run ptyhub's tools without asking each time (codex: writes
                default_tools_approval_mode = "approve"; \`codex exec\` refuses unapproved tools).
                Off by default: the tools type into real terminals, so approving them is your call.
`;

/** Exit code for a command line that cannot be understood (as opposed to a failed edit). */
const EXIT_USAGE = 2;
const EXIT_FAILED = 1;

export interface InstallIo {
  machine: InstallEnvironment;
  launch: LaunchCommand;
  out(line: string): void;
  err(line: string): void;
  now(): Date;
}

interface InstallOptions {
  scope: Scope;
  action: EditAction;
  dryRun: boolean;
  choices: InstallChoices;
}

type Outcome = "changed" | "unchanged" | "failed";

/** How a change is announced: [as a --dry-run preview, once done]. */
const CHANGE_WORDS = {
  register: ["register ptyhub in", "registered ptyhub in"],
  update: ["update ptyhub in", "updated ptyhub in"],
  remove: ["remove ptyhub from", "removed ptyhub from"],
} as const;

export async function runInstallCommand(args: string[]): Promise<number> {
  return runInstall(args, {
    machine: { home: homedir(), cwd: process.cwd(), platform: process.platform, env: process.env },
    launch: launchCommandFor(currentProgram()),
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    now: () => new Date(),
  });
}

export async function runInstall(args: string[], io: InstallIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        project: { type: "boolean", default: false },
        "dry-run": { type: "boolean", default: false },
        uninstall: { type: "boolean", default: false },
        "approve-tools": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (err) {
    io.err(`ptyhub install: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  if (positionals.length > 1) {
    io.err(`ptyhub install: name at most one client (got ${positionals.join(", ")})\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  const options: InstallOptions = {
    scope: values.project ? "project" : "user",
    action: values.uninstall ? "remove" : "add",
    dryRun: values["dry-run"],
    choices: { approveTools: values["approve-tools"] },
  };

  const clients = selectClients(positionals[0], options.scope, io);
  if (typeof clients === "number") return clients;

  if (options.action === "add") io.out(`ptyhub command: ${[io.launch.command, ...io.launch.args].join(" ")}`);
  const outcomes: Outcome[] = [];
  for (const client of clients) {
    const outcome = await applyToClient(client, options, io);
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

function edit(
  format: ConfigFormat,
  text: string | null,
  launch: LaunchCommand,
  action: EditAction,
  choices: InstallChoices,
): EditResult {
  if (format.kind === "toml") return editTomlServer(text, SERVER_NAME, launch, action, format.extras(choices));
  return editJsonServers(text, { serversKey: format.serversKey, name: SERVER_NAME, fields: format.entry(launch) }, action);
}

async function applyToClient(client: McpClient, options: InstallOptions, io: InstallIo): Promise<Outcome> {
  const path = client.configPath(io.machine, options.scope)!;
  try {
    const snapshot = await readConfig(path);
    const result = edit(client.format, snapshot.text, io.launch, options.action, options.choices);
    if (!result.changed) {
      const state = options.action === "add" ? "already registered" : snapshot.text === null ? "no config file" : "not registered";
      io.out(`${client.id}: ${state} in ${path}; nothing to change`);
      return "unchanged";
    }
    const [willDo, did] = options.action === "remove" ? CHANGE_WORDS.remove : result.existed ? CHANGE_WORDS.update : CHANGE_WORDS.register;
    if (options.dryRun) {
      io.out(`${client.id}: would ${willDo} ${path}${snapshot.text === null ? " (new file)" : ""}:`);
      for (const line of previewChange(snapshot.text ?? "", result.text)) io.out(`    ${line}`);
      return "unchanged";
    }
    const backupPath = await writeConfig(snapshot, result.text, io.now());
    io.out(`${client.id}: ${did} ${path} ${backupPath ? `(backup: ${backupPath})` : "(new file)"}`);
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
