/**
 * `ptyhub log SESSION [--follow] [--json]`: a session's audit trail, oldest first, one line per
 * entry (or the JSON lines as stored). --follow keeps printing entries as they are written.
 */
import { existsSync, openSync, readSync, closeSync, statSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "../api/errors.ts";
import { validateSessionId } from "../api/session-id.ts";
import { auditDir, trailFiles } from "./trail.ts";
import { parseVerbArgs } from "../util/verb-args.ts";

/** --follow looks for new entries this often: cheap, and quick enough for a human watching. */
const FOLLOW_POLL_MS = 250;
const LOG_ARGS = {
  verb: "log",
  usage:
    "Usage: ptyhub log SESSION [--follow] [--json]\n\nA session's audit trail: who typed what, when, exit codes.\n" +
    "  --follow, -f  keep printing entries as they are written\n  --json        the entries as stored (JSON lines)\n",
  options: { follow: { type: "boolean", short: "f" }, json: { type: "boolean" } },
  positionals: { min: 1, max: 1, name: "SESSION (see `ptyhub ls`)" },
} as const;

/** One trail entry as a line a human reads: time, who, what. */
export function formatEntry(e: Record<string, unknown>): string {
  const time = typeof e.t === "string" ? e.t.replace("T", " ").replace(/\.\d+Z$/, "Z") : "?";
  const who = typeof e.who === "string" ? e.who : "";
  const text = typeof e.text === "string" ? JSON.stringify(e.text) : "";
  let what: string;
  switch (e.event) {
    case "open":
      what = `opened ${String(e.kind)} ${String(e.target)}`;
      if (e.pid) what += ` pid ${String(e.pid)}`;
      if (e.cwd) what += ` in ${String(e.cwd)}`;
      break;
    case "typed":
      what = `${String(e.via)}: ${text}`;
      if (Array.isArray(e.keys)) what += ` keys ${e.keys.join(" ")}`;
      if (e.via === "attach" && e.enter) what += " ⏎";
      break;
    case "secret":
      what = "secret typed (not recorded)";
      break;
    case "guard":
      what = `guard ${String(e.outcome)}: ${text} (${Array.isArray(e.rules) ? e.rules.join(", ") : ""})`;
      break;
    case "command_start":
      what = "command started";
      break;
    case "command_end":
      what = `command ended: exit ${e.exit_code ?? "?"}${e.cwd ? ` · cwd ${String(e.cwd)}` : ""}`;
      break;
    case "closed":
    case "exited":
      what = String(e.event);
      if (e.exit_code !== null && e.exit_code !== undefined) what += ` (exit ${String(e.exit_code)})`;
      break;
    default:
      what = JSON.stringify(e);
  }
  return `${time}  ${who ? who + "  " : ""}${what}`;
}

function printLines(chunk: string, json: boolean): void {
  for (const line of chunk.split("\n")) {
    if (line.trim() === "") continue;
    if (json) {
      process.stdout.write(line + "\n");
      continue;
    }
    try {
      process.stdout.write(formatEntry(JSON.parse(line) as Record<string, unknown>) + "\n");
    } catch {
      process.stdout.write(line + "\n"); // a line cut by a crash is still shown as it is
    }
  }
}

export async function runLog(args: string[]): Promise<number> {
  const parsed = parseVerbArgs(LOG_ARGS, args);
  if (!parsed) return 0;
  const follow = parsed.values.follow === true;
  const json = parsed.values.json === true;
  const session = parsed.positionals[0]!;
  validateSessionId(session);
  const dir = auditDir();
  const files = trailFiles(session, dir);
  if (files.length === 0 && !follow) {
    throw new AppError(
      "SESSION_NOT_FOUND",
      `no audit trail for session '${session}' in ${dir}`,
      "Check the name with `ptyhub ls`; trails older than audit.retention_days are deleted.",
    );
  }
  const current = join(dir, `${session}.jsonl`);
  // --follow goes on from exactly the bytes shown, so nothing appended meanwhile is skipped.
  let shown = 0;
  for (const f of files) {
    const bytes = readFileSync(f);
    if (f === current) shown = bytes.length;
    printLines(bytes.toString("utf8"), json);
  }
  if (!follow) return 0;
  return followTrail(current, shown, json);
}

/** Prints what is appended to `file` until interrupted; starts over when the file is rotated. */
async function followTrail(file: string, from: number, json: boolean): Promise<number> {
  let offset = from;
  let partial = "";
  let stop = false;
  const onSignal = (): void => {
    stop = true;
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const buf = Buffer.alloc(64 * 1024);
  while (!stop) {
    if (existsSync(file)) {
      const size = statSync(file).size;
      if (size < offset) offset = 0; // rotated: the new file starts empty
      if (size > offset) {
        const fd = openSync(file, "r");
        try {
          let n: number;
          while ((n = readSync(fd, buf, 0, buf.length, offset)) > 0) {
            offset += n;
            partial += buf.subarray(0, n).toString("utf8");
          }
        } finally {
          closeSync(fd);
        }
        const end = partial.lastIndexOf("\n");
        if (end !== -1) {
          printLines(partial.slice(0, end), json);
          partial = partial.slice(end + 1);
        }
      }
    }
    await Bun.sleep(FOLLOW_POLL_MS);
  }
  return 0;
}
