/**
 * `ptyhub doctor [--json]`: a self-check in seconds. Each line says ok, warn or fail, what it is
 * about, and (for warn and fail) what to do; `--json` prints the same findings as one JSON array.
 * Exit status 1 when anything failed: a warning is worth reading, not a broken installation.
 */
import { parseVerbArgs } from "../util/verb-args.ts";
import type { Finding, Status } from "./finding.ts";
import { runChecks } from "./runner.ts";

const USAGE = `usage: ptyhub doctor [--json]

Checks, in a few seconds, what ptyhub needs: PTYs, the shells found and whether ptyhub's shell
integration loads in each, the daemon (it starts one if none runs; socket and directory modes,
version), sandbox support, the MCP clients that register ptyhub and what they launch, the
ssh-agent, container engines, and the configuration file.

  --json   one JSON array: [{"group", "status", "subject", "detail", "fix"}]

Exit status: 0 when nothing failed (warnings included), 1 when a check failed, 2 on a usage error.
`;

export const EXIT_CHECK_FAILED = 1;

const DOCTOR_ARGS = { verb: "doctor", usage: USAGE, options: { json: { type: "boolean" } } } as const;

const STATUS_WIDTH = 5;

export function renderText(findings: Finding[]): string {
  const groupWidth = Math.max(...findings.map((f) => f.group.length));
  const lines = findings.map((f) => {
    const head = `${f.status.padEnd(STATUS_WIDTH)} ${f.group.padEnd(groupWidth)}  ${f.subject}: ${f.detail}`;
    return f.fix === null ? head : `${head}\n${" ".repeat(STATUS_WIDTH + groupWidth + 3)}→ ${f.fix}`;
  });
  const count = (status: Status) => findings.filter((f) => f.status === status).length;
  return `${lines.join("\n")}\n\n${count("ok")} ok, ${count("warn")} warn, ${count("fail")} fail\n`;
}

export async function runDoctor(args: string[]): Promise<number> {
  const parsed = parseVerbArgs(DOCTOR_ARGS, args);
  if (parsed === null) return 0;
  const findings = await runChecks();
  process.stdout.write(parsed.values.json ? `${JSON.stringify(findings, null, 2)}\n` : renderText(findings));
  return findings.some((f) => f.status === "fail") ? EXIT_CHECK_FAILED : 0;
}
