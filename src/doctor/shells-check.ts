/**
 * The shells on this machine and whether ptyhub's shell integration loads in each: each one found
 * is started with the integration (as term_open starts it) and runs one command, whose end must be
 * reported by the integration's mark rather than guessed from a prompt or a timeout.
 */
import { shellFamilyOf } from "../terminal/shell-integration.ts";
import { shellDescriptor } from "../terminal/shells/all-shells.ts";
import { errorText, type Finding, findingsOf } from "./finding.ts";
import { runInShell } from "./session-probe.ts";

const is = findingsOf("shells");

/** The shells looked for on PATH, in the order they are reported. */
export const KNOWN_SHELLS = ["bash", "zsh", "fish", "sh", "dash", "ksh", "pwsh"] as const;
/** How a command's end is known when the integration works: its own marks. */
const MARKED_ENDS = new Set(["shell", "marker"]);
const PROBE_COMMAND = "echo ptyhub-doctor-$((6*7))";
const PROBE_OUTPUT = "ptyhub-doctor-42";
/** fish has no $((…)) arithmetic. */
const FISH_PROBE_COMMAND = "echo ptyhub-doctor-(math 6 \\* 7)";

export async function checkShells(): Promise<Finding[]> {
  const found = KNOWN_SHELLS.map((name) => ({ name, path: Bun.which(name) })).filter(
    (s): s is { name: (typeof KNOWN_SHELLS)[number]; path: string } => s.path !== null,
  );
  if (found.length === 0)
    return [is.fail("shells", "no shell found on PATH", "Install bash or make /bin/sh reachable.")];
  return Promise.all(found.map(({ name, path }) => checkShell(name, path)));
}

export async function checkShell(name: string, path: string): Promise<Finding> {
  const subject = `${name} (${path})`;
  if (shellFamilyOf(path) === null) {
    return is.warn(
      subject,
      "found; ptyhub has no shell integration for it on this platform, so term_exec cannot run in it",
      `Open it with term_open {command: "${name}"} and drive it with term_send; use bash, zsh or fish for term_exec.`,
    );
  }
  const command = shellDescriptor(shellFamilyOf(path))?.syntax === "fish" ? FISH_PROBE_COMMAND : PROBE_COMMAND;
  try {
    const run = await runInShell(path, command);
    if (!MARKED_ENDS.has(run.via)) {
      return is.fail(
        subject,
        `its integration did not load: the command's end was known by "${run.via}", not by the integration's mark`,
        `Check that ${name}'s startup files (e.g. ~/.${name}rc) do not exit or replace the shell; ` +
          "PTYHUB_LOG_LEVEL=debug ptyhub doctor shows more.",
      );
    }
    if (!run.output.includes(PROBE_OUTPUT) || run.exitCode !== 0) {
      return is.fail(
        subject,
        `a command did not run as expected (exit ${run.exitCode}, output ${JSON.stringify(run.output.slice(0, 80))})`,
        `Start ${name} by hand and look for errors from its startup files.`,
      );
    }
    const how = run.shellIntegration ? "shell integration loads" : "integration loads (end markers; no prompt marks)";
    return is.ok(subject, `${how}; a command ran, exit 0`);
  } catch (err) {
    return is.fail(subject, `cannot start it with ptyhub's integration: ${errorText(err)}`, `Start ${name} by hand.`);
  }
}
