/**
 * Can ptyhub open a pseudo-terminal and run a program on it? A program started with argv (nothing
 * typed, so nothing echoed) prints a known line; seeing it and exit 0 proves the program ran on
 * the PTY and its output came back.
 */
import { errorText, type Finding, findingsOf } from "./finding.ts";
import { runOnPty } from "./session-probe.ts";

const is = findingsOf("pty");

const EXPECTED = "ptyhub-doctor-42";
const PROBE: Record<"win32" | "posix", { command: string; args: string[] }> = {
  win32: { command: "cmd.exe", args: ["/d", "/c", `echo ${EXPECTED}`] },
  // Computed by the shell, so a line that merely repeats the command line cannot pass for it.
  posix: { command: "/bin/sh", args: ["-c", "echo ptyhub-doctor-$((6*7))"] },
};
const PTY_FIX =
  "Check that /dev/ptmx and /dev/pts are available (in a container: mount devpts); PTYHUB_LOG_LEVEL=debug ptyhub " +
  "doctor shows more.";

export async function checkPty(): Promise<Finding[]> {
  const probe = PROBE[process.platform === "win32" ? "win32" : "posix"];
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
