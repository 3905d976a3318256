/**
 * Interactive Claude Code 2.1.330 (a scripted model, offline, in a private tmux) and the
 * 2026-07-28 era as a user meets it (issue 36 items 5, 8 and 9):
 * - wake on output: `term_read until` on a server that prints its ready line after a while runs as
 *   an MCP Task; the model makes no call while it waits and is woken by the line itself, within
 *   3 s of it, while the server keeps running; a term_read following a long, silent command wakes
 *   it when the command ends, with the exit code;
 * - term_secret on a plain call asks with input_required: Claude Code shows ptyhub's one-time page,
 *   the human types the secret there, and the retried call types it into the session;
 * - a guard question on term_open (a plain call): Claude Code's form, answered yes, the session starts;
 * - a guard question in a task: the task panel says a human is being asked, and the model, woken
 *   with the result, reads that a human answered.
 * Needs the rig installed (test/helpers/claude-rig.ts); skipped otherwise.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { findRig, RigRun } from "../helpers/claude-rig.ts";

const rig = findRig();
const skip = "missing" in rig;
if (skip) console.warn(`skipping the interactive Claude Code era e2e: ${rig.missing}`);

/** The bound from an event (the line, the command's end) to the model's new turn. */
const WAKE_BOUND_MS = 3000;
/** How long the server takes to print its ready line: well past the task window (3 s). */
const SERVER_START_S = 12;
const STEP_MS = 60_000;
/** How long one keypress may take to show in a dialog. */
const DIALOG_STEP_MS = 10_000;
const ENTER_ATTEMPTS = 5;
const TEST_MS = 4 * STEP_MS;
const TMP = process.env.TMPDIR ?? "/tmp";

const runs: RigRun[] = [];
afterAll(async () => {
  for (const r of runs) await r.stop();
});

async function start(name: string, steps: unknown[]): Promise<RigRun> {
  if ("missing" in rig) throw new Error(rig.missing);
  const run = await RigRun.start(rig, {
    scratch: join(TMP, `claude-era-${name}`),
    steps,
    env: { PTYHUB_PERSISTENT: "0" },
  });
  runs.push(run);
  return run;
}

describe.skipIf(skip)("interactive Claude Code, 2026-07-28 era", () => {
  test(
    "wake on output: term_read until runs as a task and the ready line itself wakes the model",
    async () => {
      const run = await start("wake", [
        ["term_open", { name: "srv" }],
        // A server that says it is ready after a while, then keeps running.
        [
          "term_send",
          { session: "srv", text: `sleep ${SERVER_START_S}; echo READY at $(date +%s%3N); sleep 600`, wait_ms: 300 },
        ],
        ["term_read", { session: "srv", until: "READY at [0-9]+", wait_ms: 120_000 }],
      ]);
      const placeholder = await run.request(
        (r) => r.text.includes("moved to the background") || r.text.includes("READY at"),
        STEP_MS,
      );
      expect(run.era(), "Claude Code fell back to the 2025-11-25 era: ptyhub answered server/discover too late").toBe(
        "modern",
      );
      expect(placeholder.text).toContain("ptyhub/term_read");
      const woken = await run.request((r) => /READY at \d+/.test(r.text), STEP_MS, placeholder.index + 1);
      // Nothing asked the model anything while it waited: the turn after the placeholder is the wake-up.
      expect(woken.index).toBe(placeholder.index + 1);
      expect(woken.text).toContain("task-notification");
      expect(woken.text).toContain("via until");
      // The server goes on after its ready line: the read ended on the line, not on the command's end.
      expect(woken.text).toContain("state running");
      const printed = Number(/READY at (\d+)/.exec(woken.text)![1]);
      const delay = woken.t - printed;
      console.log(`ready line printed → new model turn: ${delay} ms`);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(WAKE_BOUND_MS);
    },
    TEST_MS,
  );

  test(
    "wake at the end: a term_read following a long, silent command runs as a task and its end wakes the model",
    async () => {
      const run = await start("end", [
        // Past its own timeout_ms (shorter than the task window): an inline "still running".
        ["term_exec", { command: `sleep ${SERVER_START_S}; echo BUILD-DONE at $(date +%s%3N)`, timeout_ms: 1000 }],
        ["term_read", { session: "main", wait_ms: 120_000 }],
      ]);
      const placeholder = await run.request(
        (r) => r.text.includes("moved to the background") || r.text.includes("BUILD-DONE at"),
        STEP_MS,
      );
      expect(run.era(), "Claude Code fell back to the 2025-11-25 era").toBe("modern");
      expect(placeholder.text).toContain("ptyhub/term_read");
      const woken = await run.request((r) => /BUILD-DONE at \d+/.test(r.text), STEP_MS, placeholder.index + 1);
      expect(woken.index).toBe(placeholder.index + 1);
      expect(woken.text).toContain("task-notification");
      // The read carries the command's end: its exit code, the shell back at its prompt.
      expect(woken.text).toMatch(/exit 0/);
      const printed = Number(/BUILD-DONE at (\d+)/.exec(woken.text)![1]);
      const delay = woken.t - printed;
      console.log(`command end → new model turn: ${delay} ms`);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(WAKE_BOUND_MS);
    },
    TEST_MS,
  );

  test(
    "term_secret asks with input_required: the human types on ptyhub's page, the retry types it",
    async () => {
      // Made at run time: no file holds it, and any log or result that does leaked it.
      const secret = `cc-${randomBytes(6).toString("hex")}`;
      const run = await start("secret", [
        ["term_open", { name: "pw", command: "bash", args: ["--norc"] }],
        ["term_send", { session: "pw", text: "read -rs -p Password: pw; echo; echo got ${#pw}", until: "Password:" }],
        ["term_secret", { session: "pw" }],
        ["term_read", { session: "pw", until: "got [0-9]+", wait_ms: 20_000 }],
      ]);
      await run.screenShows("wants to open a URL", STEP_MS);
      const url = /http:\/\/127\.0\.0\.1:\d+\/secret\/[A-Za-z0-9_-]{43}/.exec(await run.screen())?.[0];
      expect(url).toBeDefined();
      // The human, in a browser on this computer: the page takes the secret, the client never sees it.
      const posted = await fetch(url!, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(url!).origin },
        body: new URLSearchParams({ secret }).toString(),
      });
      expect(posted.status).toBe(200);
      await run.keys("Right");
      await run.screenShows("❯ I'm done, continue", DIALOG_STEP_MS);
      await run.pressUntilGone("Enter", "wants to open a URL", ENTER_ATTEMPTS, DIALOG_STEP_MS / ENTER_ATTEMPTS);
      const typed = await run.request((r) => r.text.includes(`got ${secret.length}`), STEP_MS);
      const all = run.requests().map((r) => r.text);
      expect(all.some((t) => t.includes("[secret typed into pw]"))).toBe(true);
      expect(typed.text).not.toContain(secret);
      expect(all.some((t) => t.includes(secret))).toBe(false);
    },
    TEST_MS,
  );

  test(
    "a guard question on a plain call (term_open): Claude Code's form, the human's yes, the session starts",
    async () => {
      const repo = mkdtempSync(join(TMP, "claude-era-open-"));
      expect(Bun.spawnSync(["git", "init", "-q", repo]).exitCode).toBe(0);
      const untracked = join(repo, "untracked.txt");
      writeFileSync(untracked, "x\n");
      const script = `cd ${repo} && git clean -fdx; echo CLEANED; exec bash --norc`;
      const run = await start("open", [["term_open", { name: "g", command: "bash", args: ["-c", script] }]]);
      await run.screenShows("requests your input", STEP_MS);
      await run.screenShows("start a new terminal session", DIALOG_STEP_MS);
      expect(existsSync(untracked)).toBe(true);
      await run.keys("Space");
      await run.screenShows("☒", DIALOG_STEP_MS);
      await run.keys("Down");
      await run.screenShows("❯ Accept", DIALOG_STEP_MS);
      await run.pressUntilGone("Enter", "requests your input", ENTER_ATTEMPTS, DIALOG_STEP_MS / ENTER_ATTEMPTS);
      const opened = await run.request((r) => r.text.includes("CLEANED"), STEP_MS);
      expect(opened.text).toContain("[opened g");
      expect(opened.text).not.toContain("moved to the background");
      expect(existsSync(untracked)).toBe(false);
    },
    TEST_MS,
  );

  test(
    "a guard question in a task: the task panel says a human is asked; the woken model reads a human answered",
    async () => {
      const repo = mkdtempSync(join(TMP, "claude-era-repo-"));
      expect(Bun.spawnSync(["git", "init", "-q", repo]).exitCode).toBe(0);
      const untracked = join(repo, "untracked.txt");
      writeFileSync(untracked, "x\n");
      const run = await start("guard", [["term_exec", { command: `cd ${repo} && git clean -fdx` }]]);
      await run.screenShows("requests your input", STEP_MS);
      // Answer later, open the task panel: its status is what ptyhub says of the task.
      await run.pressUntilGone("Escape", "requests your input", ENTER_ATTEMPTS, DIALOG_STEP_MS / ENTER_ATTEMPTS);
      await run.screenShows("needs your input", DIALOG_STEP_MS);
      await run.keys("Down");
      await run.screenShows("enter to view tasks", DIALOG_STEP_MS);
      await run.keys("Enter");
      await run.screenShows("Status:", DIALOG_STEP_MS);
      await run.screenShows("a human is being asked: ptyhub guard", DIALOG_STEP_MS);
      expect(existsSync(untracked)).toBe(true);
      // Enter answers: tick the box (yes), move to Accept, confirm.
      await run.keys("Enter");
      await run.screenShows("requests your input", DIALOG_STEP_MS);
      await run.keys("Space");
      await run.screenShows("☒", DIALOG_STEP_MS);
      await run.keys("Down");
      await run.screenShows("❯ Accept", DIALOG_STEP_MS);
      await run.pressUntilGone("Enter", "requests your input", ENTER_ATTEMPTS, DIALOG_STEP_MS / ENTER_ATTEMPTS);
      const woken = await run.request((r) => r.text.includes("a human was asked and answered"), STEP_MS);
      expect(woken.text).toContain("task-notification");
      expect(woken.text).toMatch(/exit 0/);
      expect(existsSync(untracked)).toBe(false);
    },
    TEST_MS,
  );
});
