/**
 * Push, not poll, as a user sees it: interactive Claude Code 2.1.330 (a scripted model, offline)
 * runs `term_exec "sleep 20; echo BUILD-OK"`, is told the command runs in the background, makes no
 * model call while it runs, and within 3 s after it ends starts a new turn by itself carrying the
 * output and exit 0. Needs the rig installed (test/helpers/claude-rig.ts); skipped otherwise.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { findRig, RigRun } from "../helpers/claude-rig.ts";

const rig = findRig();
const skip = "missing" in rig;
if (skip) console.warn(`skipping the Claude Code Tasks e2e: ${rig.missing}`);

/** The bound from a command's end to the model's new turn. */
const WAKE_BOUND_MS = 3000;
/** The command prints the time it ended, so the delay is measured from the command's own clock. */
const COMMAND = "sleep 20; echo BUILD-OK at $(date +%s%3N)";
const BACKGROUNDED_WITHIN_MS = 60_000;
const WOKEN_WITHIN_MS = 60_000;
/** How long one keypress may take to show in the dialog. */
const DIALOG_STEP_MS = 10_000;
const ENTER_ATTEMPTS = 5;

const runs: RigRun[] = [];
afterAll(async () => {
  for (const r of runs) await r.stop();
});

describe.skipIf(skip)("interactive Claude Code: a long term_exec as an MCP Task", () => {
  test(
    "moved to the background, then a new turn by itself with BUILD-OK and exit 0 within 3 s of the end",
    async () => {
      if ("missing" in rig) return;
      const run = await RigRun.start(rig, {
        scratch: join(process.env.TMPDIR ?? "/tmp", "claude-rig"),
        steps: [["term_exec", { command: COMMAND }]],
        env: { PTYHUB_PERSISTENT: "0" },
      });
      runs.push(run);
      const placeholder = await run.request(
        (r) =>
          (r.text.includes("tool_result") && r.text.includes("BUILD-OK")) || r.text.includes("moved to the background"),
        BACKGROUNDED_WITHIN_MS,
      );
      // Claude Code bounds its server/discover probe: a server slower than that to answer (a loaded
      // machine) is served in the legacy era for the connection, where no call becomes a task.
      expect(run.era(), "Claude Code fell back to the 2025-11-25 era: ptyhub answered server/discover too late").toBe(
        "modern",
      );
      expect(placeholder.text).toContain("ptyhub/term_exec");
      const woken = await run.request((r) => r.text.includes("BUILD-OK at"), WOKEN_WITHIN_MS, placeholder.index + 1);
      // Nothing asked the model anything while the command ran: the turn after the placeholder is the wake-up.
      expect(woken.index).toBe(placeholder.index + 1);
      expect(woken.text).toContain("task-notification");
      expect(woken.text).toMatch(/exit 0/);
      const ended = Number(/BUILD-OK at (\d+)/.exec(woken.text)![1]);
      const delay = woken.t - ended;
      console.log(`command end → new model turn: ${delay} ms`);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(WAKE_BOUND_MS);
    },
    BACKGROUNDED_WITHIN_MS + WOKEN_WITHIN_MS + 30_000,
  );

  test(
    "a command at a yes/no prompt asks the human in Claude Code's dialog; the answer is typed and it finishes",
    async () => {
      if ("missing" in rig) return;
      const run = await RigRun.start(rig, {
        scratch: join(process.env.TMPDIR ?? "/tmp", "claude-rig-confirm"),
        steps: [["term_exec", { command: `read -p 'Continue? [y/N] ' a; echo "answer=$a"` }]],
        env: { PTYHUB_PERSISTENT: "0" },
      });
      runs.push(run);
      await run.screenShows('waiting for a yes/no answer: "Continue? [y/N]"', BACKGROUNDED_WITHIN_MS);
      // The form's one checkbox: tick it (y), move to Accept, confirm.
      await run.keys("Space");
      await run.screenShows("☒", DIALOG_STEP_MS);
      await run.keys("Down");
      await run.screenShows("❯ Accept", DIALOG_STEP_MS);
      await run.pressUntilGone("Enter", "requests your input", ENTER_ATTEMPTS, DIALOG_STEP_MS / ENTER_ATTEMPTS);
      const woken = await run.request((r) => r.text.includes("answer=y"), WOKEN_WITHIN_MS);
      expect(woken.text).toContain("task-notification");
      expect(woken.text).toMatch(/exit 0/);
    },
    BACKGROUNDED_WITHIN_MS + WOKEN_WITHIN_MS + 30_000,
  );
});
