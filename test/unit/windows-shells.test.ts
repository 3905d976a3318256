/**
 * How cmd.exe and PowerShell are started with integration, and what term_exec types into them.
 * cmd.exe runs under Wine in test/ship/windows.test.ts; PowerShell cannot run on this machine
 * (scripts/windows-smoke.ts runs it on the real-Windows CI job): here, the text it is handed.
 */
import { describe, expect, test } from "bun:test";
import { planWindows } from "../../src/backend/local/launch.ts";
import { commandLine, parseMark } from "../../src/terminal/shell-integration.ts";
import { CMD_END_SCRIPT, PWSH_NONCE_ENV, PWSH_SCRIPT } from "../../src/terminal/windows-shell-scripts.ts";
import {
  CMD_END_FILE,
  cmdCommandLine,
  cmdPrompt,
  windowsShellFamilyOf,
  windowsShellLaunch,
} from "../../src/terminal/windows-shells.ts";
import { AppError } from "../../src/api/errors.ts";
import { parseControlResult } from "../../src/daemon-client/control-table.ts";

const NONCE = "0123456789abcdef01234567";
const DIR = "C:\\Users\\me\\AppData\\Local\\Temp\\ptyhub\\shell-abc";

describe("Windows shells", () => {
  test("cmd.exe and PowerShell are known by name or path, any case, with or without .exe", () => {
    expect(windowsShellFamilyOf("cmd.exe")).toBe("cmd");
    expect(windowsShellFamilyOf("C:\\Windows\\System32\\CMD.EXE")).toBe("cmd");
    expect(windowsShellFamilyOf("powershell")).toBe("pwsh");
    expect(windowsShellFamilyOf("C:\\Program Files\\PowerShell\\7\\pwsh.exe")).toBe("pwsh");
    expect(windowsShellFamilyOf("python.exe")).toBeNull();
    expect(windowsShellFamilyOf("bash")).toBeNull();
  });

  test("cmd.exe: prompt marks around the user's prompt, markers from its environment, no nonce in argv", () => {
    const launch = windowsShellLaunch("C:\\Windows\\System32\\cmd.exe", "cmd", NONCE, {}, DIR);
    expect(launch.integration).toBe("marker");
    expect(launch.argv).toEqual([
      "C:\\Windows\\System32\\cmd.exe",
      "/s",
      "/k",
      "prompt %__ptyhub_p% & set __ptyhub_p=",
    ]);
    expect(launch.argv.join(" ")).not.toContain(NONCE);
    expect(launch.env.__ptyhub_p).toBe(`$E]6973;${NONCE};A$E\\$P$G$E]6973;${NONCE};B$E\\`);
    expect(launch.env.__ptyhub_m).toBe(`\x1b]6973;${NONCE};`);
    expect(launch.env.__ptyhub_t).toBe("\x1b\\");
    expect(launch.env.__ptyhub_d).toBe(`${DIR}\\${CMD_END_FILE}`);
    // What a mark printed from these parts says, once the session parses it.
    const printed = `${launch.env.__ptyhub_m}D;3;C:\\work`;
    expect(parseMark(printed.slice("\x1b]6973;".length), NONCE)).toEqual({ kind: "end", exitCode: 3, cwd: "C:\\work" });
  });

  test("cmd.exe: the user's PROMPT is kept, its special characters escaped for the `prompt` line", () => {
    expect(cmdPrompt(NONCE, "$T $P$G")).toBe(`$E]6973;${NONCE};A$E\\$T $P$G$E]6973;${NONCE};B$E\\`);
    const launch = windowsShellLaunch("cmd.exe", "cmd", NONCE, { PROMPT: "(x) a&b $G" }, DIR);
    expect(launch.env.__ptyhub_p).toContain("^(x^) a^&b $G");
  });

  test("cmd.exe: term_exec's line wraps the command between the start mark and the end marker", () => {
    const line = commandLine("dir nonexistent || echo no", "cmd", "marker");
    expect(line).toBe(cmdCommandLine("dir nonexistent || echo no"));
    expect(line).toBe(
      '<nul set /p "=%__ptyhub_m%C%__ptyhub_t%" & (call ) & dir nonexistent || echo no & call "%__ptyhub_d%"',
    );
    expect(line).not.toContain(NONCE);
    // `if` and `for` would take the end marker into their body: they go in parentheses.
    for (const command of ["if 1==2 echo no", "@for %i in (a) do echo %i", "cd x && IF exist y echo z"]) {
      expect(cmdCommandLine(command)).toContain(` & (${command}) & call`);
    }
    expect(cmdCommandLine("echo (hi) for you")).toContain(" & echo (hi) for you & call");
    // The end marker expands ERRORLEVEL and CD when it runs, and hands the status back.
    expect(CMD_END_SCRIPT).toContain("D;%ERRORLEVEL%;%CD%");
    expect(CMD_END_SCRIPT).toContain("exit /b %ERRORLEVEL%");
  });

  test("cmd.exe: a command with a line break is refused before anything is typed", () => {
    let caught: unknown;
    try {
      commandLine("echo a\necho b", "cmd", "marker");
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).code).toBe("INVALID_ARGUMENT");
    expect((caught as AppError).hint).toContain("&");
  });

  test("PowerShell: the script runs from -EncodedCommand after the profile; the nonce comes in the environment", () => {
    const launch = windowsShellLaunch("pwsh.exe", "pwsh", NONCE, {}, DIR);
    expect(launch.integration).toBe("shell");
    expect(launch.family).toBe("pwsh");
    expect(launch.argv.slice(0, 4)).toEqual(["pwsh.exe", "-NoLogo", "-NoExit", "-EncodedCommand"]);
    expect(launch.argv).not.toContain("-NoProfile");
    expect(Buffer.from(launch.argv[4]!, "base64").toString("utf16le")).toBe(PWSH_SCRIPT);
    expect(launch.argv.join(" ")).not.toContain(NONCE);
    expect(launch.env).toEqual({ [PWSH_NONCE_ENV]: NONCE });
  });

  test("PowerShell: the script takes the nonce out of its environment and prints every mark", () => {
    const takes = PWSH_SCRIPT.indexOf(`$env:${PWSH_NONCE_ENV}`);
    const removes = PWSH_SCRIPT.indexOf(`Remove-Item -Path Env:${PWSH_NONCE_ENV}`);
    expect(takes).toBeGreaterThan(0);
    // Removed before anything else runs, so no program it starts inherits it.
    expect(removes).toBeGreaterThan(takes);
    expect(PWSH_SCRIPT.slice(0, removes).split("\n").length).toBe(3);
    for (const kind of ["'A'", "'B'", "'C'", '"D;$code;']) expect(PWSH_SCRIPT).toContain(`__ptyhub_mark ${kind}`);
    expect(PWSH_SCRIPT).toContain("$global:LASTEXITCODE");
    // Braces balance: a stray one would make PowerShell refuse the whole script.
    expect(PWSH_SCRIPT.split("{").length).toBe(PWSH_SCRIPT.split("}").length);
    expect(PWSH_SCRIPT.split("(").length).toBe(PWSH_SCRIPT.split(")").length);
  });

  test("PowerShell: a single line is typed as it is; lines are decoded and run by Invoke-Expression", () => {
    expect(commandLine("Get-Location", "pwsh", "shell")).toBe("Get-Location");
    const line = commandLine("$x = 1\nWrite-Output 'a'", "pwsh", "shell");
    expect(line).not.toContain("\n");
    const encoded = /FromBase64String\('([^']+)'\)/.exec(line)?.[1];
    expect(Buffer.from(encoded!, "base64").toString("utf8")).toBe("$x = 1\nWrite-Output 'a'");
    expect(line.startsWith("Invoke-Expression ")).toBe(true);
  });

  test("term_open on Windows: shells by name get integration, anything else runs as it is", () => {
    const cmd = planWindows("cmd.exe", "C:\\", {}, undefined, NONCE);
    expect(cmd).toMatchObject({ integration: "marker", family: "cmd", target: "cmd.exe" });
    expect(cmd.env.__ptyhub_m).toBe(`\x1b]6973;${NONCE};`);
    const pwsh = planWindows("powershell.exe", "C:\\", { PATH: "x" }, undefined, NONCE);
    expect(pwsh).toMatchObject({ integration: "shell", family: "pwsh", env: { PATH: "x", [PWSH_NONCE_ENV]: NONCE } });
    const other = planWindows("python.exe", "C:\\", {}, undefined, NONCE);
    expect(other).toMatchObject({ integration: "none", family: null, target: "python.exe" });
    expect(other.argv.slice(1)).toEqual(["/d", "/s", "/c", "python.exe"]);
    const line = planWindows("echo hi & exit 3", "C:\\", {}, undefined, NONCE);
    expect(line).toMatchObject({ integration: "none", target: "echo hi & exit 3" });
    expect(line.argv.slice(1)).toEqual(["/d", "/s", "/c", "echo hi & exit 3"]);
  });

  test("a daemon's attach reply may name a Windows shell (a remote ptyhub parses the session's marks by it)", () => {
    for (const family of ["cmd", "pwsh"] as const) {
      const reply = { session: "s", cols: 80, rows: 24, screen: "", exited: false, integration: "marker", family };
      expect(parseControlResult("attach", reply).family).toBe(family);
    }
  });
});
