/**
 * Runs every check group at once (the slow ones, shells and the daemon, take about a second each),
 * each bounded in time so one that hangs shows as a failure instead of hanging `ptyhub doctor`.
 */
import { checkClients } from "./clients-check.ts";
import { checkConfig } from "./config-check.ts";
import { checkContainers } from "./containers-check.ts";
import { checkDaemon } from "./daemon-check.ts";
import { errorText, type Finding, findingsOf } from "./finding.ts";
import { checkPty } from "./pty-check.ts";
import { checkSandbox } from "./sandbox-check.ts";
import { checkShells } from "./shells-check.ts";
import { checkSshAgent } from "./ssh-agent-check.ts";

/** One group's time: well above a healthy run (a shell's start, a daemon's start on a busy machine). */
export const GROUP_TIMEOUT_MS = 30_000;

export interface CheckGroup {
  name: string;
  run(): Promise<Finding[]>;
}

/** In the order they are reported: the configuration first, as every other part reads it. */
export const CHECK_GROUPS: readonly CheckGroup[] = [
  { name: "config", run: checkConfig },
  { name: "pty", run: checkPty },
  { name: "shells", run: checkShells },
  { name: "daemon", run: checkDaemon },
  { name: "sandbox", run: checkSandbox },
  { name: "clients", run: () => checkClients() },
  { name: "ssh-agent", run: () => checkSshAgent() },
  { name: "containers", run: () => checkContainers() },
];

async function runGroup(group: CheckGroup, timeoutMs: number): Promise<Finding[]> {
  const is = findingsOf(group.name);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<Finding[]>((resolve) => {
    timer = setTimeout(
      () =>
        resolve([
          is.fail(
            group.name,
            `the check did not finish within ${timeoutMs / 1000} s`,
            "PTYHUB_LOG_LEVEL=debug shows more.",
          ),
        ]),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([group.run(), timedOut]);
  } catch (err) {
    return [is.fail(group.name, `the check itself failed: ${errorText(err)}`, "Report it with this output.")];
  } finally {
    clearTimeout(timer);
  }
}

export async function runChecks(
  groups: readonly CheckGroup[] = CHECK_GROUPS,
  timeoutMs = GROUP_TIMEOUT_MS,
): Promise<Finding[]> {
  return (await Promise.all(groups.map((g) => runGroup(g, timeoutMs)))).flat();
}
