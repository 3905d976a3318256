/**
 * Every verb of the command line behaves alike, as the real `ptyhub` process a person runs:
 * `--help` prints the verb's usage on stdout and exits 0; an unknown option or a missing argument
 * is a usage error on stderr, with the reason and the usage, exit 2, and nothing on stdout.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reachDaemon } from "../../src/daemon-client/start.ts";
import { stopDaemon } from "../helpers/daemon.ts";
import { CLI, REPO } from "../helpers/mcp-client.ts";
import { PtyProbe } from "../helpers/pty.ts";

interface VerbRow {
  /** The words after `ptyhub`, e.g. ["kill"] or ["guard", "check"]. */
  verb: string[];
  /** What its usage line shows, to know the help printed is this verb's. */
  usage: RegExp;
  /** A command line lacking the verb's required argument, and the reason it must name; null if none is required. */
  missing: { args: string[]; reason: RegExp } | null;
}

/** One row per verb; a new verb (e.g. `guard check`) adds its row here. */
const VERBS: VerbRow[] = [
  {
    verb: ["serve"],
    usage: /usage: ptyhub serve --http/i,
    missing: { args: [], reason: /say which transport/ },
  },
  { verb: ["daemon"], usage: /usage: ptyhub daemon \[--status\|--stop\]/i, missing: null },
  { verb: ["ls"], usage: /usage: ptyhub ls \[--json\]/i, missing: null },
  { verb: ["attach"], usage: /usage: ptyhub attach SESSION/i, missing: { args: [], reason: /missing SESSION/ } },
  { verb: ["kill"], usage: /usage: ptyhub kill SESSION/i, missing: { args: [], reason: /missing SESSION/ } },
  { verb: ["log"], usage: /usage: ptyhub log SESSION/i, missing: { args: [], reason: /missing SESSION/ } },
  { verb: ["bridge"], usage: /usage: ptyhub bridge \[--no-start\]/i, missing: null },
  { verb: ["doctor"], usage: /usage: ptyhub doctor \[--json\]/i, missing: null },
  { verb: ["install"], usage: /usage: ptyhub install \[CLIENT\]/i, missing: null },
  { verb: ["guard", "check"], usage: /usage: ptyhub guard check \[--cwd DIR\]/i, missing: null },
];

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function ptyhub(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const proc = Bun.spawn([process.execPath, CLI, ...args], {
    env: { ...process.env, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

function expectUsageError(r: Ran, verb: string[], reason: RegExp, usage: RegExp): void {
  expect(r.stdout).toBe("");
  expect(r.stderr).toStartWith(`ptyhub ${verb.join(" ")}: `);
  expect(r.stderr).toMatch(reason);
  expect(r.stderr).toMatch(usage);
  expect(r.code).toBe(2);
}

describe.each(VERBS)("ptyhub $verb", ({ verb, usage, missing }) => {
  test("--help: the usage on stdout, exit 0", async () => {
    for (const flag of ["--help", "-h"]) {
      const r = await ptyhub([...verb, flag]);
      expect(r.stderr).toBe("");
      expect(r.stdout).toMatch(usage);
      expect(r.code).toBe(0);
    }
  });

  test("an unknown option: the reason and the usage on stderr, exit 2", async () => {
    const r = await ptyhub([...verb, "--bogus"]);
    expectUsageError(r, verb, /unknown option '--bogus'/, usage);
  });

  test.if(missing !== null)("a missing argument: the reason and the usage on stderr, exit 2", async () => {
    const r = await ptyhub([...verb, ...missing!.args]);
    expectUsageError(r, verb, missing!.reason, usage);
  });
});

describe("usage errors beyond the table", () => {
  test("kill --signal with a signal it does not send names the ones it does", async () => {
    const r = await ptyhub(["kill", "X", "--signal", "FOO"]);
    expectUsageError(r, ["kill"], /--signal must be one of TERM, KILL, HUP, not 'FOO'/, /usage: ptyhub kill/i);
  });

  test("an option's missing value and an extra argument are usage errors", async () => {
    expectUsageError(await ptyhub(["kill", "X", "--signal"]), ["kill"], /'--signal' needs a value/, /ptyhub kill/);
    expectUsageError(await ptyhub(["ls", "extra"]), ["ls"], /unexpected argument 'extra'/, /ptyhub ls/);
    expectUsageError(await ptyhub(["install", "cursor", "vscode"]), ["install"], /too many/, /ptyhub install/);
  });

  test("serve's bad values are usage errors too (exit 2, not 1)", async () => {
    const r = await ptyhub(["serve", "--http", "--port", "99999"]);
    expectUsageError(r, ["serve"], /--port must be 0–65535/, /usage: ptyhub serve/);
  });

  test("an unknown verb is a usage error; -V and --version print the version", async () => {
    const unknown = await ptyhub(["frobnicate"]);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'\n");
    expect(unknown.code).toBe(2);
    const typo = await ptyhub(["lss"]);
    expect(typo.stderr).toContain("unknown command 'lss' — did you mean 'ptyhub ls'?");
    expect(typo.code).toBe(2);
    for (const flag of ["-V", "--version"]) {
      const r = await ptyhub([flag]);
      expect(r.stdout).toMatch(/^ptyhub \d+\.\d+\.\d+/);
      expect(r.code).toBe(0);
    }
  });
});

describe("hints for a person", () => {
  afterAll(() => stopDaemon());

  test("an unknown session points at `ptyhub ls`, not at MCP tools", async () => {
    (await reachDaemon({ role: "cli", start: true })).close();
    const r = await ptyhub(["kill", "no-such-session"]);
    expect(r.stderr).toContain("SESSION_NOT_FOUND: no session 'no-such-session'");
    expect(r.stderr).toContain("`ptyhub ls`");
    expect(r.stderr).not.toMatch(/term_(open|list)/);
    expect(r.code).toBe(1);
  });
});

/** An XDG_CONFIG_HOME whose ptyhub/config.json holds `text`. */
function configHome(text: string): string {
  const dir = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? tmpdir(), "verbs-config-"));
  mkdirSync(join(dir, "ptyhub"));
  writeFileSync(join(dir, "ptyhub", "config.json"), text);
  return dir;
}

describe("ptyhub ls and the configuration", () => {
  test("a broken configuration is said on stderr; the listing (--json too) stays as it was", async () => {
    const env = { XDG_CONFIG_HOME: configHome(`{"rowz": 30}`) };
    const r = await ptyhub(["ls", "--json"], env);
    expect(r.code).toBe(0);
    expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
    expect(r.stderr).toContain(`ptyhub: note: ptyhub's configuration is invalid:`);
    expect(r.stderr).toContain(`unknown key "rowz" — did you mean "rows"?`);
  });

  test("an empty configuration file is said, not accepted silently", async () => {
    const r = await ptyhub(["ls"], { XDG_CONFIG_HOME: configHome("  \n") });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/ptyhub: note: .*config\.json is empty: every setting has its default/);
  });
});

describe("the clone", () => {
  // `bun link` makes the bin executable in place: committed any other way, it leaves the clone dirty.
  test.if(existsSync(join(REPO, ".git")))("src/cli.ts is committed executable (mode 100755)", () => {
    const r = Bun.spawnSync(["git", "ls-files", "-s", "src/cli.ts"], { cwd: REPO, stdout: "pipe" });
    expect(r.stdout.toString()).toStartWith("100755 ");
  });
});

describe("no verb", () => {
  test("in a terminal, the stdio server says what it is and how to register it (on stderr)", async () => {
    const probe = new PtyProbe([process.execPath, CLI]);
    try {
      await probe.waitFor(/an MCP server on stdio, waiting for an MCP client/);
      await probe.waitFor(/ptyhub install/);
    } finally {
      await probe.backend.close("TERM");
    }
  });

  test("launched by a client (stdin a pipe), it says nothing: stdout is the protocol's", async () => {
    const proc = Bun.spawn([process.execPath, CLI], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    proc.stdin.end();
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    await proc.exited;
    expect(stdout).toBe("");
    expect(stderr).not.toContain("waiting for an MCP client");
  });
});
