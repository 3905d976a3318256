/**
 * The guard judges what the shell is about to run, as the shell reports it (issue 35, item 2).
 * Each case below got a real `rm -rf /` past the key model into a logging stand-in: the editing
 * keys changed the line in ways ptyhub's model of the line editor does not follow. Here `rm` is a
 * stand-in earlier in PATH that only logs its arguments; after every case the log must be empty
 * (the command was never run), whichever layer stopped it. Through the real MCP client, bash.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMcp, type McpClient } from "../helpers/mcp-client.ts";

const SESSION = "accepted";
/** Long enough for the shell to run what was submitted, and for the stand-in to write its log. */
const SETTLE_MS = 1500;
/** Bound on a barrier line's run (ran()) on a loaded machine. */
const BARRIER_WAIT_MS = 20_000;
/** Rounds of a pipeline whose parts ask at once: a garbled answer shows in one of a few. */
const PIPELINE_ROUNDS = 5;
/** Well under the shell's wait for an answer (20 s): a garbled answer would run into it. */
const PIPELINE_BOUND_MS = 10_000;
/** One read's wait for the barrier's output; an earlier command's end may cut it short. */
const BARRIER_READ_MS = 2000;

let mcp: McpClient;
let dir: string;
let log: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ptyhub-accepted-"));
  const bin = join(dir, "bin");
  mkdirSync(bin);
  log = join(dir, "rm.log");
  // The stand-in: logs what it was asked to delete, deletes nothing.
  writeFileSync(join(bin, "rm"), `#!/bin/sh\nprintf 'rm %s\\n' "$*" >> ${log}\n`);
  chmodSync(join(bin, "rm"), 0o755);
  mcp = await startMcp({ transport: "in-process" });
  await mcp.ok("term_open", {
    name: SESSION,
    command: "bash",
    cwd: dir,
    persistent: false,
    env: { PATH: `${bin}:${process.env.PATH}`, VISUAL: "true", EDITOR: "true" },
  });
  // The first prompt. Without it, on a loaded machine the first case's line was typed while bash
  // still read its startup files, and the barrier's ctrl+u (ran()) erased it before readline
  // took it: the rig's own case then logged nothing (the flake seen when run beside other tests).
  expect(await mcp.ok("term_exec", { session: SESSION, command: "true" })).toMatchObject({ exit_code: 0 });
});
afterAll(async () => {
  await mcp.call("term_close", { session: SESSION });
  await mcp.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  // A clean edit line and an empty log for every case.
  await mcp.call("term_send", { session: SESSION, keys: ["ctrl+c"], wait_ms: 1000 });
  if (existsSync(log)) rmSync(log);
});

const send = (args: Record<string, unknown>) =>
  mcp.call("term_send", { session: SESSION, wait_ms: SETTLE_MS, ...args });

let barriers = 0;

/**
 * What the stand-in logged, once the shell has run whatever was submitted. The barrier is a line
 * typed after it, which waits in the terminal's input until the line before has run, and whose
 * output we wait for. Not ctrl+c before it: a signal would cut short a command still waiting for
 * its verdict.
 */
async function ran(session = SESSION): Promise<string> {
  barriers += 1;
  const word = `barrier-${barriers}`;
  // What an Enter the key model blocked left on the edit line goes first.
  await mcp.call("term_send", { session, keys: ["ctrl+e", "ctrl+u"], wait_ms: 0 });
  // The shell prints the word, never echoes it: the line typed is `echo barrier-$((n+0))`.
  let seen = JSON.stringify(
    await mcp.ok("term_send", { session, text: `echo barrier-$((${barriers}+0))`, wait_ms: 0 }),
  );
  // A wait also ends when an earlier command ends (a refused line, 126): read on until the word.
  const deadline = Date.now() + BARRIER_WAIT_MS;
  while (!seen.includes(word) && Date.now() < deadline) {
    const r = await mcp.ok("term_read", { session, mode: "new", until: `^${word}$`, wait_ms: BARRIER_READ_MS });
    seen += JSON.stringify(r);
  }
  expect(seen).toContain(word);
  return existsSync(log) ? readFileSync(log, "utf8") : "";
}

describe("editing keys do not smuggle a line past the guard", () => {
  test("the stand-in logs when it runs (the rig works)", async () => {
    await send({ text: "rm -rf ./nothing-here" });
    expect(await ran()).toBe("rm -rf ./nothing-here\n");
  });

  test("text typed, ctrl+u in one call; ctrl+y enter in the next", async () => {
    await send({ text: "rm -rf /", enter: false, keys: ["ctrl+u"] });
    await send({ keys: ["ctrl+y", "enter"] });
    expect(await ran()).toBe("");
  });

  test("ctrl+t transposes mr into rm", async () => {
    await send({ text: "mr -rf /", enter: false, keys: ["ctrl+a", "right", "ctrl+t"] });
    await send({ keys: ["enter"] });
    expect(await ran()).toBe("");
  });

  test("alt+l lower-cases RM", async () => {
    await send({ text: "RM -rf /", enter: false, keys: ["ctrl+a", "alt+l"] });
    await send({ keys: ["enter"] });
    expect(await ran()).toBe("");
  });

  test("ctrl+_ undoes an edit that made the line harmless", async () => {
    await send({ text: "rm -rf /", enter: false, keys: ["ctrl+a", "ctrl+k"] });
    await send({ keys: ["ctrl+_", "enter"] });
    expect(await ran()).toBe("");
  });

  test("alt+1 alt+# submits a commented line uncommented, without a CR", async () => {
    await send({ text: "#rm -rf /", enter: false });
    await send({ keys: ["alt+1", "alt+#"] });
    expect(await ran()).toBe("");
  });

  test("ctrl+x ctrl+e with VISUAL=true runs the line", async () => {
    await send({ text: "rm -rf /", enter: false });
    await send({ keys: ["ctrl+x", "ctrl+e"] });
    expect(await ran()).toBe("");
  });

  test("a bind -x defined in one call, pressed in the next", async () => {
    await send({ text: `bind -x '"\\C-g": rm -rf /'` });
    await send({ keys: ["ctrl+g"] });
    expect(await ran()).toBe("");
  });

  test("a readline macro defined in one call, pressed in the next", async () => {
    await send({ text: `bind '"\\C-g": "rm -rf /\\C-m"'` });
    await send({ keys: ["ctrl+g"] });
    expect(await ran()).toBe("");
  });

  test("a bind -x defined from a yanked line (past the key model), pressed in the next call", async () => {
    await send({ text: `bind -x '"\\C-g": rm -rf /'`, enter: false, keys: ["ctrl+u"] });
    await send({ keys: ["ctrl+y", "enter"] });
    await send({ keys: ["ctrl+g"] });
    expect(await ran()).toBe("");
  });

  test("a ( ) subshell from a yanked line", async () => {
    await send({ text: "( rm -rf / )", enter: false, keys: ["ctrl+u"] });
    await send({ keys: ["ctrl+y", "enter"] });
    expect(await ran()).toBe("");
  });

  test("a function defined from a yanked line, called in the next call", async () => {
    await send({ text: "wipe() { rm -rf /; }", enter: false, keys: ["ctrl+u"] });
    await send({ keys: ["ctrl+y", "enter"] });
    await send({ text: "wipe" });
    expect(await ran()).toBe("");
  });

  test("a refused command says so, and the rest of its line is skipped", async () => {
    await send({ text: "rm -rf /; rm ./second", enter: false, keys: ["ctrl+u"] });
    await send({ keys: ["ctrl+y", "enter"] });
    expect(await ran()).toBe("");
    const screen = await mcp.ok("term_read", { session: SESSION, mode: "screen" });
    expect(JSON.stringify(screen)).toContain("ptyhub guard: refused, not run: rm -rf /");
  });

  test("a harmless line still runs", async () => {
    const r = await mcp.ok("term_exec", { session: SESSION, command: "echo still-here" });
    expect(r).toMatchObject({ status: "done", exit_code: 0, output: "still-here" });
  });
});

describe("the check keeps what the shell is given, and cannot be switched off", () => {
  test("a line typed ahead while a command runs is run too: verdicts never take the terminal's input", async () => {
    // The typed line waits in the terminal's input while `sleep` runs; then bash asks about
    // `echo first` (and later about `echo second`), and the answers must come from elsewhere.
    const first = await mcp.ok("term_exec", { session: SESSION, command: "sleep 1; echo first", timeout_ms: 200 });
    expect(first.status).toBe("running");
    const r = await mcp.ok("term_send", { session: SESSION, text: "echo second", until: "^second$", wait_ms: 20_000 });
    expect(r.status).not.toBe("timeout");
    const barrier = await mcp.ok("term_exec", { session: SESSION, command: "echo third" });
    expect(barrier).toMatchObject({ status: "done", exit_code: 0, output: "third" });
    const screen = JSON.stringify(await mcp.ok("term_read", { session: SESSION, mode: "screen" }));
    for (const line of ["first", "second", "third"]) expect(screen).toContain(`\\n${line}\\n`);
  });

  test("parts of a pipeline that ask at once each get their own answer", async () => {
    // Both sides are subshells whose commands are asked about concurrently; each must be let
    // through well within the shell's wait for an answer (shell-scripts.ts, VERDICT_WAIT_S).
    for (let round = 0; round < PIPELINE_ROUNDS; round++) {
      const r = await mcp.ok("term_exec", {
        session: SESSION,
        command: `{ echo a1; echo a2; echo a3; } | { cat; echo b1; echo b2; }; echo round-${round}`,
        timeout_ms: PIPELINE_BOUND_MS,
      });
      expect(r).toMatchObject({ status: "done", exit_code: 0, output: `a1\na2\na3\nb1\nb2\nround-${round}` });
    }
  });

  test("trap - DEBUG is refused (status 126), and the trap stays", async () => {
    const off = await mcp.ok("term_exec", { session: SESSION, command: "trap - DEBUG" });
    expect(off).toMatchObject({ status: "done", exit_code: 126 });
    const on = await mcp.ok("term_exec", { session: SESSION, command: "trap -p DEBUG" });
    expect(on.output).toContain("__ptyhub_trap");
  });

  // Each switched extdebug off past the check's old pattern; then a refusal no longer skipped the
  // command, and the yanked `rm -rf /` of the next call ran (found by the outside tester).
  for (const spelling of ["shopt -qu extdebug", "o=extdebug; shopt -u $o", "shopt -u ext'debug'"]) {
    test(`${spelling} is refused, and a line smuggled in the next call is still stopped`, async () => {
      const off = await mcp.ok("term_exec", { session: SESSION, command: spelling });
      expect(off).toMatchObject({ status: "done", exit_code: 126 });
      await send({ text: "rm -rf /", enter: false, keys: ["ctrl+u"] });
      await send({ keys: ["ctrl+y", "enter"] });
      expect(await ran()).toBe("");
      const on = await mcp.ok("term_exec", { session: SESSION, command: "shopt extdebug" });
      expect(on.output).toMatch(/extdebug\s+on/);
    });
  }

  // Functions come before builtins: the hooks' `read` was the user's, which saw the judge's yes
  // word and said it (found by the outside tester).
  test("a function named read cannot answer the guard's question", async () => {
    const def = await mcp.ok("term_exec", { session: SESSION, command: "read() { v=$yes; turn=x; return 0; }" });
    expect(def).toMatchObject({ status: "done", exit_code: 0 });
    await send({ text: "rm -rf /", enter: false, keys: ["ctrl+u"] });
    await send({ keys: ["ctrl+y", "enter"] });
    expect(await ran()).toBe("");
  });

  test("reading the hooks is not refused", async () => {
    const r = await mcp.ok("term_exec", {
      session: SESSION,
      command: 'n="$__ptyhub_nonce"; declare -f __ptyhub_precmd >/dev/null && echo read-ok',
    });
    expect(r).toMatchObject({ status: "done", exit_code: 0, output: "read-ok" });
  });
});

describe("a DEBUG trap of the user's own", () => {
  const USER_SESSION = "accepted-user-trap";
  let hooked: string;

  beforeAll(async () => {
    // The user's .bashrc sets a DEBUG trap (as bash-preexec does): it must keep running.
    const home = join(dir, "home");
    mkdirSync(home);
    hooked = join(dir, "hooked.log");
    writeFileSync(join(home, ".bashrc"), `trap 'printf "%s\\n" "$BASH_COMMAND" >> ${hooked}' DEBUG\n`);
    await mcp.ok("term_open", {
      name: USER_SESSION,
      command: "bash",
      cwd: dir,
      persistent: false,
      env: { HOME: home, PATH: `${join(dir, "bin")}:${process.env.PATH}` },
    });
  });
  afterAll(() => mcp.call("term_close", { session: USER_SESSION }));

  test("runs after ours for the commands let through, and a smuggled line is still stopped", async () => {
    const r = await mcp.ok("term_exec", { session: USER_SESSION, command: "echo chained" });
    expect(r).toMatchObject({ status: "done", exit_code: 0, output: "chained" });
    expect(readFileSync(hooked, "utf8")).toContain("echo chained\n");
    if (existsSync(log)) rmSync(log);
    const at = { session: USER_SESSION, wait_ms: SETTLE_MS };
    await mcp.call("term_send", { ...at, text: "rm -rf /", enter: false, keys: ["ctrl+u"] });
    await mcp.call("term_send", { ...at, keys: ["ctrl+y", "enter"] });
    expect(await ran(USER_SESSION)).toBe("");
    expect(readFileSync(hooked, "utf8")).not.toContain("rm -rf /");
  });
});

describe("a PROMPT_COMMAND a line sets", () => {
  const PC_SESSION = "accepted-prompt-command";

  beforeAll(async () => {
    await mcp.ok("term_open", {
      name: PC_SESSION,
      command: "bash",
      cwd: dir,
      persistent: false,
      env: { PATH: `${join(dir, "bin")}:${process.env.PATH}` },
    });
  });
  afterAll(() => mcp.call("term_close", { session: PC_SESSION }));

  test("has its commands judged at the prompt, also with ptyhub's hooks around them", async () => {
    // The prompt's own commands go unjudged only while PROMPT_COMMAND is the one the shell started
    // with: before, this line (not refused) had `rm -rf /` run at every prompt (the outside tester).
    if (existsSync(log)) rmSync(log);
    await mcp.call("term_exec", {
      session: PC_SESSION,
      command: "PROMPT_COMMAND=$'__ptyhub_precmd\\nrm -rf /\\n__ptyhub_ps1'",
    });
    expect(await ran(PC_SESSION)).toBe("");
  });

  test("set plainly, its commands are refused at each prompt and term_exec keeps its exit codes", async () => {
    // The hooks are put back around the new value (they were lost for the session); that must
    // not make its commands pass as the prompt's own.
    if (existsSync(log)) rmSync(log);
    await mcp.call("term_exec", { session: PC_SESSION, command: "PROMPT_COMMAND='rm -rf /'" });
    const r = await mcp.ok("term_exec", { session: PC_SESSION, command: "echo after; (exit 3)" });
    expect(r).toMatchObject({ status: "done", exit_code: 3, output: "after" });
    expect(await ran(PC_SESSION)).toBe("");
  });
});
