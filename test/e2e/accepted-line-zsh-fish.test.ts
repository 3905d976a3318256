/**
 * The guard judges what zsh and fish are about to run, as the shell reports it (issue 35, item 2),
 * as test/e2e/accepted-line.test.ts does for bash: zsh asks from a DEBUG trap before each command
 * (of the line, its functions, subshells and widgets), fish from its Enter binding with the line
 * `commandline` holds. Each case types editing keys that turn a harmless-looking line into
 * `rm -rf /`; `rm` is a stand-in earlier in PATH that only logs its arguments, and after every
 * case its log must be empty (the command was never run), whichever layer stopped it. Through the
 * real MCP client, the real shells on a real PTY.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMcp, type McpClient } from "../helpers/mcp-client.ts";

/**
 * Long enough for the shell to run what was submitted, and for the stand-in to write its log; a
 * call ends sooner when the line ends. fish asks about a line before it leaves the edit line, so a
 * barrier typed while it waits would be read by the key model as appended to the asked line.
 */
const SETTLE_MS = 5000;
/** A call that only types (no Enter): long enough for the line editor to take the keys. */
const TYPED_MS = 1000;
/** Rounds of a line whose processes ask at once: a garbled answer shows in one of a few. */
const CONCURRENT_ROUNDS = 5;
/** Well under the shell's wait for an answer (20 s): a garbled answer would run into it. */
const CONCURRENT_BOUND_MS = 10_000;
/** Bound on a barrier line's run (ran()) on a loaded machine. */
const BARRIER_WAIT_MS = 20_000;
/** One read's wait for the barrier's output; an earlier command's end may cut it short. */
const BARRIER_READ_MS = 2000;

interface Smuggle {
  name: string;
  /** term_send calls, in order; the last one submits. */
  steps: Record<string, unknown>[];
}

/** The keys each shell's line editor has by default (zsh emacs keymap, fish's default bindings). */
const COMMON: Smuggle[] = [
  {
    name: "text typed, ctrl+u in one call; ctrl+y enter in the next",
    steps: [{ text: "rm -rf /", enter: false, keys: ["ctrl+u"] }, { keys: ["ctrl+y", "enter"] }],
  },
  {
    name: "ctrl+t transposes mr into rm",
    steps: [{ text: "mr -rf /", enter: false, keys: ["ctrl+a", "right", "ctrl+t"] }, { keys: ["enter"] }],
  },
  {
    name: "ctrl+_ undoes an edit that made the line harmless",
    steps: [{ text: "rm -rf /", enter: false, keys: ["ctrl+a", "ctrl+k"] }, { keys: ["ctrl+_", "enter"] }],
  },
  {
    name: "a function defined from a yanked line, called in the next call",
    steps: [
      { text: "function wipe; rm -rf /; end", enter: false, keys: ["ctrl+u"] },
      { keys: ["ctrl+y", "enter"] },
      { text: "wipe" },
    ],
  },
];

const SHELLS: Record<string, Smuggle[]> = {
  zsh: [
    ...COMMON.filter((c) => !c.name.startsWith("a function")),
    {
      name: "alt+l lower-cases RM",
      steps: [{ text: "RM -rf /", enter: false, keys: ["ctrl+a", "alt+l"] }, { keys: ["enter"] }],
    },
    {
      name: "a function defined from a yanked line, called in the next call",
      steps: [
        { text: "wipe() { rm -rf /; }", enter: false, keys: ["ctrl+u"] },
        { keys: ["ctrl+y", "enter"] },
        { text: "wipe" },
      ],
    },
    {
      name: "a ( ) subshell from a yanked line",
      steps: [{ text: "( rm -rf / )", enter: false, keys: ["ctrl+u"] }, { keys: ["ctrl+y", "enter"] }],
    },
    {
      name: "a bindkey -s macro defined in one call, pressed in the next",
      steps: [{ text: `bindkey -s '^G' 'rm -rf /^M'` }, { keys: ["ctrl+g"] }],
    },
    {
      name: "a zle widget defined from a yanked line, bound and pressed in later calls",
      steps: [
        { text: "w() { rm -rf /; }", enter: false, keys: ["ctrl+u"] },
        { keys: ["ctrl+y", "enter"] },
        { text: "zle -N w; bindkey '^G' w" },
        { keys: ["ctrl+g"] },
      ],
    },
  ],
  fish: [
    ...COMMON,
    {
      name: "a binding that runs a command, defined from a yanked line, pressed in the next call",
      steps: [
        { text: "bind \\cg 'rm -rf /'", enter: false, keys: ["ctrl+u"] },
        { keys: ["ctrl+y", "enter"] },
        { keys: ["ctrl+g"] },
      ],
    },
    {
      name: "a binding that sets the line and executes it, pressed in the next call",
      steps: [
        { text: `bind \\cg 'commandline "rm -rf /"; commandline -f execute'`, enter: false, keys: ["ctrl+u"] },
        { keys: ["ctrl+y", "enter"] },
        { keys: ["ctrl+g"] },
      ],
    },
  ],
};

let mcp: McpClient;
let dir: string;
let bin: string;
let log: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ptyhub-accepted-zf-"));
  bin = join(dir, "bin");
  mkdirSync(bin);
  log = join(dir, "rm.log");
  // The stand-in: logs what it was asked to delete, deletes nothing. fish's completions for rm ask
  // it for --version when rm is typed: no deletion, not logged.
  writeFileSync(join(bin, "rm"), `#!/bin/sh\n[ "$1" = --version ] && exit 1\nprintf 'rm %s\\n' "$*" >> ${log}\n`);
  chmodSync(join(bin, "rm"), 0o755);
  mcp = await startMcp({ transport: "in-process" });
});
afterAll(async () => {
  await mcp.close();
  rmSync(dir, { recursive: true, force: true });
});

for (const [shell, cases] of Object.entries(SHELLS)) {
  describe.skipIf(Bun.which(shell) === null)(`${shell}: editing keys do not smuggle a line past the guard`, () => {
    const session = `accepted-${shell}`;
    let barriers = 0;

    beforeAll(async () => {
      const home = join(dir, `home-${shell}`);
      mkdirSync(home);
      await mcp.ok("term_open", {
        name: session,
        command: shell,
        cwd: dir,
        persistent: false,
        env: { HOME: home, PATH: `${bin}:${process.env.PATH}`, VISUAL: "true", EDITOR: "true" },
      });
      // The first prompt (fish's first start in a new home is slow): keys go to its line editor.
      expect(await mcp.ok("term_exec", { session, command: "true" })).toMatchObject({ status: "done", exit_code: 0 });
    });
    afterAll(() => mcp.call("term_close", { session }));
    beforeEach(async () => {
      // A clean edit line and an empty log for every case.
      await mcp.call("term_send", { session, keys: ["ctrl+c"], wait_ms: 1000 });
      if (existsSync(log)) rmSync(log);
    });

    /**
     * What the stand-in logged, once the shell has run whatever was submitted: a barrier line typed
     * after it waits in the terminal's input until the line before has run (see accepted-line.test.ts).
     */
    async function ran(): Promise<string> {
      barriers += 1;
      const word = `barrier-${barriers}`;
      await mcp.call("term_send", { session, keys: ["ctrl+e", "ctrl+u"], wait_ms: 0 });
      // The shell prints the word, never echoes it: `echo barrier-(math n+0)` / `$((n+0))`.
      const sum = shell === "fish" ? `(math ${barriers}+0)` : `$((${barriers}+0))`;
      let seen = JSON.stringify(await mcp.ok("term_send", { session, text: `echo barrier-${sum}`, wait_ms: 0 }));
      const deadline = Date.now() + BARRIER_WAIT_MS;
      while (!seen.includes(word) && Date.now() < deadline) {
        const r = await mcp.ok("term_read", { session, mode: "new", until: `^${word}$`, wait_ms: BARRIER_READ_MS });
        seen += JSON.stringify(r);
      }
      expect(seen).toContain(word);
      return existsSync(log) ? readFileSync(log, "utf8") : "";
    }

    /** Types a step; the key model refusing to type it (the first filter) stops the case as well. */
    async function typeOrStopped(args: Record<string, unknown>): Promise<void> {
      try {
        await mcp.call("term_send", args);
      } catch (err) {
        expect(String(err)).toContain("not typed into");
      }
    }

    test("the stand-in logs when it runs (the rig works)", async () => {
      await mcp.call("term_send", { session, text: "rm -rf ./nothing-here", wait_ms: SETTLE_MS });
      expect(await ran()).toBe("rm -rf ./nothing-here\n");
    });

    for (const smuggle of cases) {
      test(smuggle.name, async () => {
        for (const step of smuggle.steps) {
          // A step that submits nothing has no end to wait for: the keys only need to be read.
          const wait = step.enter === false ? TYPED_MS : SETTLE_MS;
          await typeOrStopped({ session, wait_ms: wait, ...step });
        }
        expect(await ran()).toBe("");
      });
    }

    test("a refused line says so, and the rest of it is skipped", async () => {
      const line = "rm -rf /; rm ./second";
      await mcp.call("term_send", { session, text: line, enter: false, keys: ["ctrl+u"], wait_ms: TYPED_MS });
      await mcp.call("term_send", { session, keys: ["ctrl+y", "enter"], wait_ms: SETTLE_MS });
      expect(await ran()).toBe("");
      const screen = JSON.stringify(await mcp.ok("term_read", { session, mode: "screen" }));
      expect(screen).toContain("ptyhub guard: refused, not run: rm -rf /");
    });

    test("a harmless line still runs, and its exit code is the command's", async () => {
      const r = await mcp.ok("term_exec", { session, command: "echo still-here" });
      expect(r).toMatchObject({ status: "done", exit_code: 0, output: "still-here" });
      const failed = await mcp.ok("term_exec", { session, command: "false" });
      expect(failed).toMatchObject({ status: "done", exit_code: 1 });
    });

    test.skipIf(shell !== "zsh")(
      "the parts of a pipeline and a background subshell that ask at once each get their answer",
      async () => {
        // zsh asks in every process; one asks at a time (the turn pipe, made one byte again by the
        // shell at its prompt). Each round well within the shell's 20 s wait for an answer.
        for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
          const r = await mcp.ok("term_exec", {
            session,
            command: `{ echo a1; echo a2; } | { cat; echo b1; }; (sleep 0.03; echo c1) & wait; echo round-${round}`,
            timeout_ms: CONCURRENT_BOUND_MS,
          });
          expect(r).toMatchObject({ status: "done", exit_code: 0 });
          expect(r.output).toContain(`a1\na2\nb1`);
          expect(r.output).toContain(`c1`);
          expect(r.output).toContain(`round-${round}`);
        }
      },
    );

    test("a line typed ahead while a command runs is run too: verdicts never take the terminal's input", async () => {
      const first = await mcp.ok("term_exec", { session, command: "sleep 1; echo first", timeout_ms: 200 });
      expect(first.status).toBe("running");
      const r = await mcp.ok("term_send", { session, text: "echo second", until: "^second$", wait_ms: 20_000 });
      expect(r.status).not.toBe("timeout");
      const barrier = await mcp.ok("term_exec", { session, command: "echo third" });
      expect(barrier).toMatchObject({ status: "done", exit_code: 0, output: "third" });
      const screen = JSON.stringify(await mcp.ok("term_read", { session, mode: "screen" }));
      for (const word of ["first", "second", "third"]) expect(screen).toContain(`\\n${word}\\n`);
    });
  });
}
