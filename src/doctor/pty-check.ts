/**
 * Can ptyhub open a pseudo-terminal and run a program on it? A program (no shell) prints a number
 * it computes, so seeing the number proves it ran on the PTY and its output came back.
 */
import { errorText, type Finding, findingsOf } from "./finding.ts";
import { runOnPty } from "./session-probe.ts";

const is = findingsOf("pty");

/** `6*7` computed by the program itself: the answer cannot be the echo of what was typed. */
const EXPECTED = "ptyhub-doctor-42";
const PROBE: Record<string, { command: string; args: string[] }> = {
  win32: { command: "cmd.exe", args: ["/d", "/c", "set /a 6*7 >nul & echo ptyhub-doctor-42"] },
  posix: { command: "/bin/sh", args: ["-c", "echo ptyhub-doctor-$((6*7))"] },
};

export async function checkPty(): Promise<Finding[]> {
  const probe = PROBE[process.platform === "win32" ? "win32" : "posix"]!;
  const subject = `${probe.command} on a new ${process.platform === "win32" ? "pseudo console" : "PTY"}`;
  try {
    const run = await runOnPty(probe.command, probe.args);
    if (!run.output.includes(EXPECTED)) {
      return [
        is.fail(subject, `its output did not come back (got ${JSON.stringify(run.output.slice(0, 80))})`, PTY_FIX),
      ];
    }
    if (run.exitCode !== 0) return [is.fail(subject, `ran but exited ${run.exitCode ?? "with no status"}`, PTY_FIX)];
    return [is.ok(subject, "opened, ran a command, exit 0")];
  } catch (err) {
    return [is.fail(subject, `cannot open: ${errorText(err)}`, PTY_FIX)];
  }
}

const PTY_FIX =
  "Check that /dev/ptmx and /dev/pts are available (in a container: mount devpts); PTYHUB_LOG_LEVEL=debug ptyhub " +
  "doctor shows more.";
