/**
 * `ptyhub doctor` as a person runs it, in the test run's own HOME and daemon socket: healthy parts
 * say ok, `--json` is one array of findings, a broken configuration or a client launching something
 * missing fails (exit 1), an empty configuration and a daemon older than this ptyhub are warnings.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stopDaemon, daemonStatus } from "../helpers/daemon.ts";
import { CLI, REPO } from "../helpers/mcp-client.ts";
import { runCli } from "../daemon/helpers.ts";
import { waitFor } from "../helpers/wait.ts";
import { VERSION } from "../../src/version.ts";

const root = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? tmpdir(), "doctor-"));
const OLD_VERSION = "0.0.1";
const START_WAIT_MS = 20_000;
/** Sockets of daemons these tests start besides the run's own; each is stopped afterwards. */
const extraSockets: string[] = [];

afterAll(async () => {
  await stopDaemon();
  for (const socket of extraSockets) await stopDaemon({ PTYHUB_SOCKET: socket });
  rmSync(root, { recursive: true, force: true });
});

/** `ptyhub doctor ARGS` to completion, in this run's environment with `env` on top. */
function doctor(args: string[], env: Record<string, string> = {}): ReturnType<typeof runCli> {
  const inherited = Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined);
  return runCli({ ...Object.fromEntries(inherited), ...env }, ["doctor", ...args]);
}

interface Finding {
  group: string;
  status: "ok" | "warn" | "fail";
  subject: string;
  detail: string;
  fix: string | null;
}

async function doctorJson(env: Record<string, string> = {}): Promise<{ code: number | null; findings: Finding[] }> {
  const r = await doctor(["--json"], env);
  return { code: r.code, findings: JSON.parse(r.stdout) as Finding[] };
}

/** A config directory whose ptyhub/config.json holds `text`; returns it, for XDG_CONFIG_HOME. */
function configDirWith(name: string, text: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, "ptyhub"), { recursive: true });
  writeFileSync(join(dir, "ptyhub", "config.json"), text);
  return dir;
}

describe("ptyhub doctor", () => {
  test("a healthy machine: ok lines for the PTY, bash, the daemon and the config; exit 0", async () => {
    const r = await doctor([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok +pty +\/bin\/sh on a new PTY: opened, ran a command, exit 0$/m);
    expect(r.stdout).toMatch(/^ok +shells +bash \(.+\): shell integration loads/m);
    expect(r.stdout).toMatch(new RegExp(`^ok +daemon +daemon ${VERSION.replace(/\./g, "\\.")}: `, "m"));
    expect(r.stdout).toMatch(/^ok +daemon +.+daemon\.sock: the socket is yours, mode 0600$/m);
    expect(r.stdout).toMatch(/^ok +config +.+config\.json: no config file/m);
    expect(r.stdout).toMatch(/^\d+ ok, \d+ warn, 0 fail$/m);
  });

  test("--json: one array of {group, status, subject, detail, fix}, every group present", async () => {
    const { code, findings } = await doctorJson();
    expect(code).toBe(0);
    expect(Array.isArray(findings)).toBe(true);
    for (const f of findings) {
      expect(Object.keys(f).sort()).toEqual(["detail", "fix", "group", "status", "subject"]);
      expect(["ok", "warn", "fail"]).toContain(f.status);
      expect(f.fix === null).toBe(f.status === "ok");
    }
    const groups = new Set(findings.map((f) => f.group));
    for (const g of ["config", "pty", "shells", "daemon", "sandbox", "clients", "ssh-agent", "containers"])
      expect(groups).toContain(g);
  });

  test("an invalid config file fails, naming the key and the closest setting; exit 1", async () => {
    const r = await doctor([], { XDG_CONFIG_HOME: configDirWith("bad", `{"colz": 100}`) });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^fail +config +.+config\.json: .*unknown key "colz".*did you mean "cols"\?/m);
  });

  test("an empty config file is a warning, not silence; exit 0", async () => {
    const { code, findings } = await doctorJson({ XDG_CONFIG_HOME: configDirWith("empty", "\n") });
    expect(findings.find((f) => f.group === "config")).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/empty/),
    });
    expect(code).toBe(0);
  });

  test("a client launching a missing command fails; one launching this ptyhub is ok; two scopes warn", async () => {
    const home = join(root, "home-clients");
    mkdirSync(home, { recursive: true });
    const servers = (command: string, args: string[]) => JSON.stringify({ mcpServers: { ptyhub: { command, args } } });
    // At user scope (ptyhub install) and at local scope (`claude mcp add` without -s) for this directory.
    const claude = JSON.parse(servers(process.execPath, [CLI]));
    claude.projects = { [process.cwd()]: JSON.parse(servers(process.execPath, [CLI])) };
    writeFileSync(join(home, ".claude.json"), JSON.stringify(claude));
    mkdirSync(join(home, ".cursor"), { recursive: true });
    writeFileSync(join(home, ".cursor", "mcp.json"), servers(join(root, "gone", "ptyhub"), []));
    const { code, findings } = await doctorJson({ HOME: home, CLAUDE_CONFIG_DIR: home });
    const clients = findings.filter((f) => f.group === "clients");
    expect(clients.find((f) => f.subject === `claude-code: ${join(home, ".claude.json")}`)).toMatchObject({
      status: "ok",
      detail: expect.stringMatching(new RegExp(`launches ptyhub ${VERSION.replace(/\./g, "\\.")}`)),
    });
    expect(clients.find((f) => f.subject === "claude-code")).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/Conflicting scopes/),
      fix: expect.stringMatching(/claude mcp remove -s local ptyhub/),
    });
    expect(clients.find((f) => f.subject.startsWith("cursor"))).toMatchObject({
      status: "fail",
      fix: expect.stringMatching(/ptyhub install cursor/),
    });
    expect(code).toBe(1);
  });

  test("a config file changed after the daemon started is a warning: it still has the old settings", async () => {
    await doctor([]); // the run's daemon is running now (doctor starts one when none is)
    const configDir = join(process.env.XDG_CONFIG_HOME!, "ptyhub");
    mkdirSync(configDir, { recursive: true });
    const file = join(configDir, "config.json");
    writeFileSync(file, `{"cols": 100}`);
    try {
      const { findings } = await doctorJson();
      expect(findings.find((f) => f.group === "daemon" && f.subject === file)).toMatchObject({
        status: "warn",
        detail: expect.stringMatching(/changed after the running daemon started/),
        fix: expect.stringMatching(/ptyhub daemon --stop/),
      });
    } finally {
      rmSync(file);
    }
  });

  test("a running daemon older than this ptyhub is a warning that says how to replace it", async () => {
    const oldTree = join(root, "old-ptyhub");
    cpSync(join(REPO, "src"), join(oldTree, "src"), { recursive: true });
    writeFileSync(join(oldTree, "src", "version.ts"), `export const VERSION: string = "${OLD_VERSION}";\n`);
    symlinkSync(join(REPO, "node_modules"), join(oldTree, "node_modules"));
    const socket = join(root, "old.sock");
    extraSockets.push(socket);
    const env = { PTYHUB_SOCKET: socket };
    Bun.spawn([process.execPath, join(oldTree, "src", "cli.ts"), "daemon"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "ignore"],
    });
    await waitFor(async () => (await daemonStatus(env))?.version === OLD_VERSION, START_WAIT_MS, "the old daemon");
    const { findings } = await doctorJson(env);
    expect(findings.find((f) => f.group === "daemon" && f.subject === `daemon ${OLD_VERSION}`)).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/older than this ptyhub/),
      fix: expect.stringMatching(/ptyhub daemon --stop/),
    });
  });
});
