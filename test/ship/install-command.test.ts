/**
 * `ptyhub install` against a temporary HOME for every client: add, idempotent re-add, dry run,
 * uninstall, backups, unrelated settings kept, unparseable files refused untouched.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { runInstall, type InstallIo } from "../../src/install/command.ts";
import { CLIENTS } from "../../src/install/clients/all-clients.ts";
import { CODEX_ENV_VARS } from "../../src/install/clients/codex.ts";
import type { InstallEnvironment, McpClient } from "../../src/install/clients/types.ts";
import { nodeValue, parseJsonc } from "../../src/util/jsonc.ts";
import { makeTempDir } from "./helpers.ts";

const LAUNCH = { command: "/opt/ptyhub/bin/ptyhub", args: [] as string[] };
/** What a project config (committed, shared) registers. */
const PORTABLE = { command: "ptyhub", args: [] as string[] };
const FIXED_NOW = new Date("2025-01-02T03:04:05.678Z");

interface Harness {
  io: InstallIo;
  stdout: string[];
  stderr: string[];
}

let home: string;
let project: string;

beforeEach(() => {
  home = makeTempDir("home");
  project = join(home, "project");
  mkdirSync(project);
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

function harness(machine: Partial<InstallEnvironment> = {}): Harness {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const io: InstallIo = {
    machine: { home, cwd: project, platform: "linux", env: {}, ...machine },
    launch: LAUNCH,
    out: (line) => stdout.push(line),
    err: (line) => stderr.push(line),
    now: () => FIXED_NOW,
  };
  return { io, stdout, stderr };
}

async function install(args: string[], machine: Partial<InstallEnvironment> = {}) {
  const h = harness(machine);
  const code = await runInstall(args, h.io);
  return { code, stdout: h.stdout.join("\n"), stderr: h.stderr.join("\n") };
}

function configPath(client: McpClient, scope: "user" | "project" = "user"): string {
  return client.configPath(harness().io.machine, scope)!;
}

/** A realistic existing config with unrelated settings and another server. */
function seedConfig(client: McpClient): string {
  if (client.format.kind === "toml") {
    return `# Codex settings\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "other-server"\nargs = ["--flag"]\n\n[profiles.fast]\nmodel = "o4-mini"\n`;
  }
  const key = client.format.serversKey;
  return `// kept\n{\n  "theme": "dark",\n  "${key}": {\n    "other": {\n      "command": "other-server",\n      "args": ["--flag"]\n    }\n  },\n  "numStartups": 12345678901234567890\n}\n`;
}

function registeredEntry(client: McpClient, text: string): unknown {
  if (client.format.kind === "toml") return (Bun.TOML.parse(text) as any).mcp_servers?.ptyhub;
  return (nodeValue(parseJsonc(text).root!) as any)[client.format.serversKey]?.ptyhub;
}

function expectedEntry(client: McpClient, launch = LAUNCH): unknown {
  return client.format.kind === "toml" ? { ...launch, env_vars: CODEX_ENV_VARS } : client.format.entry(launch);
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function backupsOf(path: string): string[] {
  const name = path.slice(dirname(path).length + 1);
  return readdirSync(dirname(path)).filter((f) => f.startsWith(`${name}.ptyhub-backup-`));
}

for (const client of CLIENTS) {
  describe(`ptyhub install ${client.id}`, () => {
    test("registers into an existing config, keeps unrelated settings, and backs the file up", async () => {
      const path = configPath(client);
      const original = seedConfig(client);
      write(path, original);

      const result = await install([client.id]);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const text = readFileSync(path, "utf8");
      expect(registeredEntry(client, text)).toEqual(expectedEntry(client));
      expect(text).toContain("other-server");
      expect(text).toContain(
        client.format.kind === "toml" ? `[profiles.fast]\nmodel = "o4-mini"` : `"numStartups": 12345678901234567890`,
      );
      if (client.format.kind === "json") expect(text.startsWith("// kept\n")).toBe(true);
      expect(result.stdout).toContain(
        `${client.id}: registered ptyhub in ${path} (backup: ${path}.ptyhub-backup-20250102T030405678Z)`,
      );
      expect(readFileSync(`${path}.ptyhub-backup-20250102T030405678Z`, "utf8")).toBe(original);
    });

    test("is idempotent: a second run changes nothing and makes no backup", async () => {
      const path = configPath(client);
      write(path, seedConfig(client));
      expect((await install([client.id])).code).toBe(0);
      const once = readFileSync(path, "utf8");

      const again = await install([client.id]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain(`${client.id}: already registered in ${path}; nothing to change`);
      expect(readFileSync(path, "utf8")).toBe(once);
      expect(backupsOf(path)).toHaveLength(1);
    });

    test("--dry-run shows the change and writes nothing", async () => {
      const path = configPath(client);
      const original = seedConfig(client);
      write(path, original);

      const result = await install([client.id, "--dry-run"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`${client.id}: would register ptyhub in ${path}:`);
      expect(result.stdout).toContain(`+ `);
      expect(result.stdout).toContain(LAUNCH.command);
      expect(readFileSync(path, "utf8")).toBe(original);
      expect(backupsOf(path)).toHaveLength(0);
    });

    test("--uninstall removes only ptyhub's entry", async () => {
      const path = configPath(client);
      const original = seedConfig(client);
      write(path, original);
      await install([client.id]);

      const removed = await install([client.id, "--uninstall"]);
      expect(removed.code).toBe(0);
      expect(removed.stdout).toContain(`${client.id}: removed ptyhub from ${path}`);
      expect(readFileSync(path, "utf8")).toBe(original);

      const again = await install([client.id, "--uninstall"]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain("not registered");
    });

    test("creates a missing config file and its directory", async () => {
      const path = configPath(client);
      const result = await install([client.id]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`${client.id}: registered ptyhub in ${path} (new file)`);
      expect(registeredEntry(client, readFileSync(path, "utf8"))).toEqual(expectedEntry(client));
    });

    test("refuses a config it cannot parse and leaves it untouched", async () => {
      const path = configPath(client);
      const broken =
        client.format.kind === "toml" ? `model = "o3\n[mcp_servers\n` : `{\n  "mcpServers": {\n    "other": {\n`;
      write(path, broken);

      for (const args of [[client.id], [client.id, "--uninstall"]]) {
        const result = await install(args);
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(
          `${client.id}: cannot edit ${path}: it is not valid ${client.format.kind === "toml" ? "TOML" : "JSON"}`,
        );
        expect(result.stderr).toContain("Left it unchanged.");
        expect(readFileSync(path, "utf8")).toBe(broken);
        expect(backupsOf(path)).toHaveLength(0);
      }
    });

    const projectPath = client.configPath({ home: "/h", cwd: "/p", platform: "linux", env: {} }, "project");
    if (projectPath) {
      test("--project writes the project config in the current directory, naming no path of this machine", async () => {
        const result = await install([client.id, "--project"]);
        expect(result.code).toBe(0);
        const path = configPath(client, "project");
        expect(path.startsWith(project)).toBe(true);
        const text = readFileSync(path, "utf8");
        // The file is committed and used on other machines: `ptyhub` from PATH, not /opt/ptyhub/bin/ptyhub.
        expect(registeredEntry(client, text)).toEqual(expectedEntry(client, PORTABLE));
        expect(text).not.toContain(LAUNCH.command);
        expect(existsSync(configPath(client))).toBe(false);
      });
    } else {
      test("--project is refused: the client has no project config", async () => {
        const result = await install([client.id, "--project"]);
        expect(result.code).toBe(2);
        expect(result.stderr).toContain(`${client.displayName} has no project config`);
      });
    }
  });
}

describe("ptyhub install without a client", () => {
  test("registers with every detected client and no other", async () => {
    mkdirSync(join(home, ".cursor"));
    mkdirSync(join(home, ".codex"));
    const result = await install([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Found: Cursor, Codex");
    expect(result.stdout).toContain(`ptyhub command: ${LAUNCH.command}`);
    expect(existsSync(join(home, ".cursor", "mcp.json"))).toBe(true);
    expect(existsSync(join(home, ".codex", "config.toml"))).toBe(true);
    expect(existsSync(join(home, ".claude.json"))).toBe(false);
    expect(existsSync(join(home, ".config", "Code"))).toBe(false);
  });

  test("fails clearly when no client is installed", async () => {
    const result = await install([]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("found no MCP client");
  });

  test("with --project, skips clients that have no project config", async () => {
    mkdirSync(join(home, ".cursor"));
    mkdirSync(join(home, ".codeium", "windsurf"), { recursive: true });
    const result = await install(["--project"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("windsurf: skipped (it has no project config)");
    expect(existsSync(join(project, ".cursor", "mcp.json"))).toBe(true);
  });

  test("one unparseable config fails the run but the other clients are still registered", async () => {
    write(join(home, ".cursor", "mcp.json"), "{ not json");
    mkdirSync(join(home, ".codex"));
    const result = await install([]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("cursor: cannot edit");
    expect(existsSync(join(home, ".codex", "config.toml"))).toBe(true);
  });
});

describe("config locations", () => {
  const byId = (id: string) => CLIENTS.find((c) => c.id === id)!;
  const where = (id: string, machine: Partial<InstallEnvironment>) =>
    byId(id).configPath({ home: "/home/u", cwd: "/work", platform: "linux", env: {}, ...machine }, "user");

  test("Linux defaults, and XDG_CONFIG_HOME for the Electron apps", () => {
    expect(where("claude-code", {})).toBe("/home/u/.claude.json");
    expect(where("claude-desktop", {})).toBe("/home/u/.config/Claude/claude_desktop_config.json");
    expect(where("vscode", {})).toBe("/home/u/.config/Code/User/mcp.json");
    expect(where("cursor", {})).toBe("/home/u/.cursor/mcp.json");
    expect(where("windsurf", {})).toBe("/home/u/.codeium/windsurf/mcp_config.json");
    expect(where("codex", {})).toBe("/home/u/.codex/config.toml");
    const xdg = { env: { XDG_CONFIG_HOME: "/xdg" } };
    expect(where("claude-desktop", xdg)).toBe("/xdg/Claude/claude_desktop_config.json");
    expect(where("vscode", xdg)).toBe("/xdg/Code/User/mcp.json");
    expect(where("vscode", { env: { XDG_CONFIG_HOME: "relative/ignored" } })).toBe(
      "/home/u/.config/Code/User/mcp.json",
    );
  });

  test("macOS and Windows", () => {
    expect(where("claude-desktop", { platform: "darwin" })).toBe(
      "/home/u/Library/Application Support/Claude/claude_desktop_config.json",
    );
    expect(where("vscode", { platform: "darwin" })).toBe("/home/u/Library/Application Support/Code/User/mcp.json");
    const windows = {
      platform: "win32" as const,
      home: "C:\\Users\\u",
      env: { APPDATA: "C:\\Users\\u\\AppData\\Roaming" },
    };
    expect(where("claude-desktop", windows)).toBe("C:\\Users\\u\\AppData\\Roaming\\Claude\\claude_desktop_config.json");
    expect(where("cursor", windows)).toBe("C:\\Users\\u\\.cursor\\mcp.json");
  });

  test("CODEX_HOME and CLAUDE_CONFIG_DIR", () => {
    expect(where("codex", { env: { CODEX_HOME: "/codex" } })).toBe("/codex/config.toml");
    expect(where("claude-code", { env: { CLAUDE_CONFIG_DIR: "/claude" } })).toBe("/claude/.claude.json");
  });
});

describe("file handling", () => {
  test("writes through a symlinked config (dotfile managers) and keeps the link", async () => {
    const real = join(home, "dotfiles", "mcp.json");
    write(real, `{\n  "mcpServers": {}\n}\n`);
    mkdirSync(join(home, ".cursor"));
    symlinkSync(real, join(home, ".cursor", "mcp.json"));
    const result = await install(["cursor"]);
    expect(result.code).toBe(0);
    expect(registeredEntry(CLIENTS.find((c) => c.id === "cursor")!, readFileSync(real, "utf8"))).toEqual(LAUNCH);
    expect(readdirSync(join(home, ".cursor"))).toEqual(["mcp.json"]);
    expect(backupsOf(real)).toHaveLength(1);
  });

  test("a config that starts with a UTF-8 byte-order mark is edited, and keeps its mark", async () => {
    const cursor = CLIENTS.find((c) => c.id === "cursor")!;
    const codex = CLIENTS.find((c) => c.id === "codex")!;
    for (const client of [cursor, codex]) {
      const path = configPath(client);
      write(path, `\uFEFF${seedConfig(client)}`);
      const result = await install([client.id]);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const text = readFileSync(path, "utf8");
      expect(text.startsWith("\uFEFF")).toBe(true);
      expect(registeredEntry(client, text.slice(1))).toEqual(expectedEntry(client));
      expect((await install([client.id])).stdout).toContain("already registered");
    }
  });

  test("refuses a config that is not UTF-8", async () => {
    const path = join(home, ".cursor", "mcp.json");
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    const result = await install(["cursor"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("it is not UTF-8 text");
  });
});

describe("command line", () => {
  test("an unknown client or flag is a usage error", async () => {
    const unknown = await install(["emacs"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      "unknown client 'emacs'; choose one of: claude-code, claude-desktop, cursor, vscode, windsurf, codex",
    );
    const flag = await install(["cursor", "--force"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("usage: ptyhub install");
  });

  test("--help prints usage to stdout", async () => {
    const result = await install(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("usage: ptyhub install [CLIENT] [--project] [--dry-run] [--uninstall]");
  });
});

describe("what each client needs, and what it shows next", () => {
  const codexConfig = () => join(home, ".codex", "config.toml");
  const codexTable = () => {
    const doc = Bun.TOML.parse(readFileSync(codexConfig(), "utf8")) as Record<string, any>;
    return doc.mcp_servers.ptyhub;
  };

  test("claude-code: this directory's entry (claude mcp add without -s) is set to the same command, never created", async () => {
    const claude = CLIENTS.find((c) => c.id === "claude-code")!;
    const file = configPath(claude);
    const other = join(home, "elsewhere");
    const local = { type: "stdio", command: "ptyhub", args: [] };
    const projects = { [project]: { mcpServers: { ptyhub: local } }, [other]: { mcpServers: {} } };
    write(file, JSON.stringify({ projects }, null, 2) + "\n");
    const added = await install(["claude-code"]);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain(
      "the entry for this directory (claude mcp add without -s) launches the same command",
    );
    const doc = nodeValue(parseJsonc(readFileSync(file, "utf8")).root!) as any;
    expect(doc.mcpServers.ptyhub).toEqual(expectedEntry(claude));
    expect(doc.projects[project].mcpServers.ptyhub).toEqual(expectedEntry(claude));
    // Another directory without an entry of ptyhub's gets none.
    expect(doc.projects[other].mcpServers).toEqual({});
    // Again: nothing to change; then --uninstall removes both.
    expect((await install(["claude-code"])).stdout).toContain("nothing to change");
    const removed = await install(["claude-code", "--uninstall"]);
    expect(removed.stdout).toContain("removed the entry for this directory");
    const after = nodeValue(parseJsonc(readFileSync(file, "utf8")).root!) as any;
    expect(after.mcpServers?.ptyhub).toBeUndefined();
    expect(after.projects[project].mcpServers.ptyhub).toBeUndefined();
  });

  test("claude-code: with no entry for this directory, none is made", async () => {
    const claude = CLIENTS.find((c) => c.id === "claude-code")!;
    const file = configPath(claude);
    write(file, JSON.stringify({ projects: { [project]: { allowedTools: [] } } }, null, 2) + "\n");
    const added = await install(["claude-code"]);
    expect(added.stdout).not.toContain("this directory");
    const doc = nodeValue(parseJsonc(readFileSync(file, "utf8")).root!) as any;
    expect(doc.projects[project]).toEqual({ allowedTools: [] });
    expect(doc.mcpServers.ptyhub).toEqual(expectedEntry(claude));
  });

  test("codex: env_vars Codex would strip; tool approval only with --approve-tools, and explained", async () => {
    const plain = await install(["codex"]);
    expect(plain.code).toBe(0);
    expect(codexTable().default_tools_approval_mode).toBeUndefined();
    expect(codexTable().env_vars).toEqual(CODEX_ENV_VARS);
    expect(plain.stdout).toContain('`codex exec` (approval "never") refuses those tools');
    expect(plain.stdout).toContain("ptyhub install codex --approve-tools");

    const approved = await install(["codex", "--approve-tools"]);
    expect(approved.stdout).toContain("codex: updated ptyhub in");
    expect(codexTable()).toMatchObject({ command: LAUNCH.command, default_tools_approval_mode: "approve" });
    expect(approved.stdout).toContain("its tools run without asking");
    // Idempotent with the same choice; without the flag an earlier approval is the user's to keep.
    expect((await install(["codex", "--approve-tools"])).stdout).toContain("already registered");
    expect((await install(["codex"])).stdout).toContain("already registered");
    expect(codexTable().default_tools_approval_mode).toBe("approve");
  });

  test("codex: variables the user listed in env_vars are kept, ours added after them", async () => {
    write(codexConfig(), `[mcp_servers.ptyhub]\ncommand = "old"\nargs = []\nenv_vars = ["MY_VAR", "USER"]\n`);
    await install(["codex"]);
    expect(codexTable().env_vars).toEqual(["MY_VAR", "USER", ...CODEX_ENV_VARS.filter((v) => v !== "USER")]);
  });

  test("claude-code --project: pending approval, not restart; --approve-tools has no setting there", async () => {
    const result = await install(["claude-code", "--project", "--approve-tools"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("shows ptyhub as pending approval");
    expect(result.stdout).not.toContain("Restart");
    expect(result.stdout).toContain("claude-code: --approve-tools has no setting here");
  });
});
