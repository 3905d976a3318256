/**
 * Commands scheduled in a cron table, for unwrap.ts: what `crontab -` is fed
 * (`echo '0 3 * * * rm -rf /var/backups' | crontab -`, `(crontab -l; echo '@reboot …') | crontab -`)
 * and what is written into /etc/crontab or /etc/cron.d (with their user field); and the Exec lines
 * of a systemd unit file written on the line. Each runs later, unattended, so the guard judges it now.
 */
import type { SimpleCommand } from "./parse.ts";
import { pipelineText } from "./piped-text.ts";

/** Five time fields or an `@keyword`, then (in the system tables) a user, then the command. */
const USER_ENTRY = /^\s*(?:@\w+\s+|(?:\S+\s+){5})\S+\s+(.+)$/;
const ENTRY = /^\s*(?:@\w+|(?:\S+\s+){5})(.+)$/;
/** A systemd unit file: its Exec lines run when the unit (or its timer) starts. */
const UNIT_FILE =
  /\/systemd\/(system|user)\/[^/]+\.(service|timer|socket|path)$|\.config\/systemd\/user\/[^/]+\.service$/;
/** `ExecStart=`, `ExecStartPre=`, `ExecStop=` …, with systemd's prefixes (`-`, `@`, `+`, `!`). */
const EXEC_LINE = /^\s*Exec\w*\s*=\s*[-@+!:]*(.+)$/;
/** The system's cron tables, whose entries name a user before the command. */
const SYSTEM_TABLE = /^\/etc\/(crontab|cron\.d\/.+)$/;

/** The commands of the entries in `text` (comments, blank lines and `VAR=value` lines skipped). */
function entryCommands(text: string, withUser: boolean): string[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.trim().startsWith("#") && !/^\s*\w+=/.test(l))
    .map((l) => (withUser ? USER_ENTRY : ENTRY).exec(l)?.[1])
    .filter((c): c is string => c !== undefined);
}

/** What a command prints as far as the line says: a pipeline's text, or the known parts of a subshell. */
function printedParts(cmd: SimpleCommand, stages: SimpleCommand[]): string {
  const whole = pipelineText(stages);
  if (whole !== null) return whole;
  // `(crontab -l; echo '…')`: the echoes are known, the old table is not (and was already there).
  const inner = cmd.argv.length === 0 ? cmd.nested.flatMap((line) => line.pipelines) : [];
  return inner.map((p) => pipelineText(p) ?? "").join("\n");
}

/** The cron entries' commands that `cmd` (the last of `stages`) installs, or none. */
export function scheduledCommands(stages: SimpleCommand[], cmd: SimpleCommand, argv: string[]): string[] {
  // `cat > /etc/systemd/system/x.service <<EOF … ExecStart=/bin/rm -rf / …`: what the unit will run.
  const intoUnit =
    cmd.redirects.some((r) => /^>>?$/.test(r.op) && UNIT_FILE.test(r.target)) ||
    (argv[0] === "tee" && argv.slice(1).some((a) => UNIT_FILE.test(a)));
  if (intoUnit) {
    const text = argv[0] === "tee" ? (cmd.stdin ?? pipelineText(stages.slice(0, -1))) : pipelineText(stages);
    const execs = (text ?? "").split("\n").map((l) => EXEC_LINE.exec(l)?.[1]);
    return execs.filter((c): c is string => c !== undefined);
  }
  if (argv[0] === "crontab") {
    const file = argv.slice(1).filter((a, i, all) => a !== "-u" && all[i - 1] !== "-u" && a !== "-")[0];
    if (file !== undefined || stages.length < 2) return cmd.stdin === null ? [] : entryCommands(cmd.stdin, false);
    return entryCommands(printedParts(stages[stages.length - 2]!, stages.slice(0, -1)), false);
  }
  const intoTable = cmd.redirects.some((r) => /^>>?$/.test(r.op) && SYSTEM_TABLE.test(r.target));
  const teeTable = argv[0] === "tee" && argv.slice(1).some((a) => SYSTEM_TABLE.test(a));
  if (!intoTable && !teeTable) return [];
  const text = teeTable ? pipelineText(stages.slice(0, -1)) : pipelineText(stages);
  return text === null ? [] : entryCommands(text, true);
}
