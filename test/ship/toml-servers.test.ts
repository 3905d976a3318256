import { describe, expect, test } from "bun:test";
import { editTomlServer } from "../../src/install/toml-servers.ts";
import { ConfigEditError } from "../../src/install/config-edit.ts";

const LAUNCH = { command: "/opt/ptyhub/bin/ptyhub", args: [] as string[] };
const TABLE = `[mcp_servers.ptyhub]\ncommand = "/opt/ptyhub/bin/ptyhub"\nargs = []\n`;

function servers(text: string): Record<string, any> {
  return (Bun.TOML.parse(text) as Record<string, any>).mcp_servers ?? {};
}

const CODEX_CONFIG = `# Codex settings
model = "o3"
approval_policy = "on-request" # ask first

[mcp_servers.other]
command = "other-server"
args = [
  "--flag", # why
  "--other",
]

# Profiles below
[profiles.fast]
model = "o4-mini"
notes = """
[mcp_servers.ptyhub]
command = "not a real table"
"""
`;

describe("editTomlServer", () => {
  test("creates the table in a missing file", () => {
    const result = editTomlServer(null, "ptyhub", LAUNCH, "add");
    expect(result).toEqual({ text: TABLE, changed: true, existed: false });
  });

  test("appends the table and leaves every other byte alone; removal restores the file", () => {
    const added = editTomlServer(CODEX_CONFIG, "ptyhub", LAUNCH, "add");
    expect(added.text).toBe(`${CODEX_CONFIG}\n${TABLE}`);
    expect(servers(added.text).ptyhub).toEqual(LAUNCH);
    expect(servers(added.text).other.args).toEqual(["--flag", "--other"]);
    expect(editTomlServer(added.text, "ptyhub", LAUNCH, "add").changed).toBe(false);
    expect(editTomlServer(added.text, "ptyhub", LAUNCH, "remove").text).toBe(CODEX_CONFIG);
  });

  test("a header inside a multi-line string is not mistaken for a table", () => {
    expect(servers(CODEX_CONFIG).ptyhub).toBeUndefined();
    expect(editTomlServer(CODEX_CONFIG, "ptyhub", LAUNCH, "remove")).toMatchObject({ changed: false, existed: false });
  });

  test("updates command and args in place, keeping the user's other keys and subtables", () => {
    const original = `top = 1\n\n[mcp_servers.ptyhub]\ncommand = "/old/ptyhub"\nargs = [\n  "--old",\n]\nstartup_timeout_sec = 20 # slow disk\n\n[mcp_servers.ptyhub.env]\nA = "1"\n\n[tail]\nz = 2\n`;
    const updated = editTomlServer(original, "ptyhub", LAUNCH, "add");
    expect(updated).toMatchObject({ changed: true, existed: true });
    expect(updated.text).toBe(
      `top = 1\n\n[mcp_servers.ptyhub]\ncommand = "/opt/ptyhub/bin/ptyhub"\nargs = []\nstartup_timeout_sec = 20 # slow disk\n\n[mcp_servers.ptyhub.env]\nA = "1"\n\n[tail]\nz = 2\n`,
    );
    const removed = editTomlServer(updated.text, "ptyhub", LAUNCH, "remove");
    expect(removed.text).toBe(`top = 1\n\n[tail]\nz = 2\n`);
  });

  test("writes strings TOML can read back: quotes, backslashes, spaces, non-ASCII", () => {
    const launch = { command: String.raw`C:\Program Files\ptyhub "x"\ptyhub.exe`, args: ["/päth/with space/cli.ts"] };
    const added = editTomlServer("", "ptyhub", launch, "add");
    expect(servers(added.text).ptyhub).toEqual(launch);
  });

  test("keeps CRLF line ends", () => {
    const original = `title = "x"\r\n[t]\r\nk = 1\r\n`;
    const added = editTomlServer(original, "ptyhub", LAUNCH, "add");
    expect(added.text).toBe(`${original}\r\n${TABLE.replaceAll("\n", "\r\n")}`);
    expect(editTomlServer(added.text, "ptyhub", LAUNCH, "remove").text).toBe(original);
  });

  const refusals: Array<[string, string, RegExp]> = [
    ["a file that is not TOML", `model = "o3\n[mcp_servers`, /not valid TOML/],
    ["a table defined twice", `[a]\nx = 1\n[a]\ny = 2\n`, /not valid TOML/],
    ["ptyhub defined with dotted keys", `mcp_servers.ptyhub.command = "x"\n`, /inline table or with dotted keys/],
    ["ptyhub as an inline table", `[mcp_servers]\nptyhub = { command = "x" }\n`, /inline table or with dotted keys/],
    [
      "mcp_servers as an inline table",
      `mcp_servers = { other = { command = "x" } }\n`,
      /mcp_servers is written as an inline table/,
    ],
    ["mcp_servers that is not a table", `mcp_servers = 3\n`, /mcp_servers is not a table/],
  ];
  for (const [what, text, message] of refusals) {
    test(`refuses ${what}`, () => {
      expect(() => editTomlServer(text, "ptyhub", LAUNCH, "add")).toThrow(message);
      expect(() => editTomlServer(text, "ptyhub", LAUNCH, "add")).toThrow(ConfigEditError);
    });
  }
});
