/**
 * The guard: before a line is typed into a session, judge it; a destructive one is typed only
 * when the human confirms it through MCP elicitation. Nothing the model sends can skip this: the
 * only ways around it are the human's (the settings file, or typing it in `ptyhub attach`).
 */
import { SHELLS } from "../terminal/shells/all-shells.ts";
import { hookTampering } from "./hook-tampering.ts";
import { join } from "node:path";
import { AppError } from "../api/errors.ts";
import { configDir } from "../paths.ts";
import { logger } from "../log.ts";
import type { CallContext } from "../api/host.ts";
import type { Session } from "../session/session.ts";
import { builtinRuleIds, classifyShellLine, classifySqlLine, ruleSet, type Finding, type RuleSet } from "./classify.ts";
import type { RuleContext } from "./rules.ts";
import { DATABASE_CLIENTS, DATABASE_PROMPT } from "./sql.ts";
import { STORE_CLIENTS } from "./rules-datastore.ts";
import { parseShellLine } from "./parse.ts";
import { readEditLine, withoutPrompts } from "./edit-line.ts";
import { maySubmit, submittedLines } from "./line-editor.ts";
import { inputBytes } from "../session/send.ts";
import { hostContext, judgedThere, unknownContext } from "./site-context.ts";
import { resolveCwd } from "../backend/local/launch.ts";
import type { OpenParams } from "../backend/descriptor.ts";
import { kindDescriptor, kindOfParams } from "../backend/registry/kinds.ts";
import { argvLine } from "./shell-quote.ts";
import { readOpenEnv, STARTUP_ENV_RULE } from "./open-env.ts";
import { disguisedProgram } from "./program-identity.ts";

export { argvLine } from "./shell-quote.ts";

const log = logger("guard");

/** The guard's settings (config.ts `guard`). */
export interface GuardSettings {
  enabled: boolean;
  disable: string[];
  rules: { id: string; pattern: string; reason: string }[];
}

/** What the guard decided about one line, for the audit trail. */
export interface GuardDecision {
  line: string;
  findings: Finding[];
  outcome: "confirmed" | "declined" | "blocked";
}

/** term_send's input, as far as the guard cares. */
export interface TypedInput {
  text?: string;
  enter?: boolean;
  keys?: string[];
}
/**
 * Foreground programs whose typed lines are a shell's: shells, and programs that hand the terminal
 * to one (a login on another host or container, a multiplexer).
 */
const SHELL_HOSTS = new Set([
  // The shells ptyhub integrates with (their descriptors), and others it does not.
  ...SHELLS.flatMap((shell) => shell.names),
  ...["busybox", "toybox", "tcsh", "csh", "yash"],
  ...["ssh", "mosh-client", "telnet", "su", "sudo", "doas", "login", "docker", "podman", "kubectl", "lxc"],
  ...["nsenter", "chroot", "script", "sshpass", "tmux", "screen", "nix-shell", "env", "unshare", "systemd-run"],
]);

/** How a submitted line is judged: as a shell line, as SQL, or not at all (a program known not to be a shell). */
function inputKind(session: Session): "shell" | "sql" | null {
  if (session.emulator.altScreen) return null; // a full-screen program (an editor, a pager) owns the keys
  if (session.integration !== "none" && session.phase === "prompt") return "shell";
  const foreground = session.foregroundCommands();
  if (foreground !== null && foreground.length > 0) {
    if (foreground.some((name) => DATABASE_CLIENTS.has(name) || STORE_CLIENTS.has(name))) return "sql";
    // By name, or by the file it runs: a bash started as `cat` (a symlink or link) is a shell.
    const names = [...foreground, ...session.foregroundExecutables()];
    return names.some((name) => SHELL_HOSTS.has(name)) ? "shell" : null;
  }
  return DATABASE_PROMPT.test(session.emulator.textBeforeCursor()) ? "sql" : "shell";
}

/** Does the shell (or database client) wait for more of this line before running it? */
function continues(kind: "shell" | "sql", text: string): boolean {
  if (kind === "sql") return !/;\s*$/.test(text.replace(/--[^\n]*$/, "")) && !/^\s*\\/.test(text);
  return parseShellLine(text).incomplete || /(\\|\||&&|\|\|)\s*$/.test(text);
}

/** The findings of several readings of one line, each rule and reason once. */
function unique(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.rule}\0${f.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The rules the settings leave on, with the pattern rules they add. */
export function settingsRuleSet(settings: GuardSettings): RuleSet {
  const patterns = settings.rules.map((r) => ({ id: r.id, pattern: new RegExp(r.pattern), reason: r.reason }));
  return ruleSet({ disable: settings.disable, patterns });
}

export class Guard {
  private readonly rules: RuleSet;
  /** Per session: lines submitted that the shell continues (a trailing `\`, an open here-document). */
  private readonly pending = new WeakMap<Session, { text: string; ready: number }>();

  constructor(
    private readonly settings: GuardSettings,
    /** Told about every line the guard stopped or the human confirmed. */
    private readonly onDecision: (session: Session, decision: GuardDecision, ctx: CallContext) => void = () => {},
  ) {
    const known = new Set(builtinRuleIds());
    for (const id of settings.disable) {
      if (!known.has(id)) log.warn(`guard.disable names an unknown rule '${id}' (rules: ${[...known].join(", ")})`);
    }
    this.rules = settingsRuleSet(settings);
  }

  /** term_exec: the command is a shell line typed at the prompt. */
  async checkExec(session: Session, command: string, ctx: CallContext): Promise<void> {
    if (!this.settings.enabled) return;
    const findings = await this.shellFindings(session, command);
    await this.decide(session.id, command, findings, ctx, (d) => this.onDecision(session, d, ctx));
  }

  /**
   * term_open: the program a new session starts runs as surely as a typed line. A command line is
   * what `sh -c` (or the remote shell) runs; a command with `args` is that argv, judged as the shell
   * line that would run it. Called once the session's id is settled, before anything starts.
   */
  async checkOpen(
    id: string,
    p: OpenParams,
    ctx: CallContext,
    record: (decision: GuardDecision) => void,
  ): Promise<void> {
    const kind = kindOfParams(p);
    if (!this.settings.enabled || !kind.runsProgram) return;
    const env = readOpenEnv(p.env);
    if (!p.command && env.lines.length === 0 && env.unreadable.length === 0) return;
    // Paths and repositories are judged where the program runs: this machine's only for its kinds.
    const local = kind.hostFiles;
    const cwd = local ? openCwd(p.cwd) : null;
    const line = p.command === undefined ? "" : p.args === undefined ? p.command : argvLine([p.command, ...p.args]);
    // A shell under another name (a symlink or copy called `cat`) is judged as the shell it is.
    const judged = local && p.command !== undefined ? undisguised(line, p.command, p.args, cwd) : line;
    const ruleContext = local ? hostContext(cwd) : unknownContext(cwd);
    // The program runs in the environment `env` gives: `$X` in its line, or in a script its args
    // hand a shell (`sh -c '$X'`), is that value.
    const assignments = Object.entries(p.env ?? {})
      .filter(([name]) => /^[A-Za-z_]\w*$/.test(name))
      .map(([name, value]) => `${name}=${argvLine([value])}; `)
      .join("");
    const findings = [
      ...(judged === "" ? [] : classifyShellLine(assignments + judged, ruleContext, this.rules)),
      ...env.lines.flatMap((l) => classifyShellLine(l, ruleContext, this.rules)),
      ...(this.rules.disabled.has(STARTUP_ENV_RULE)
        ? []
        : env.unreadable.map((reason) => ({ rule: STARTUP_ENV_RULE, reason }))),
    ];
    const shown = [line, ...env.shown].filter((l) => l !== "").join("\n");
    await this.decide(id, shown, unique(findings), ctx, record, "start");
  }

  /**
   * term_send: every line the input submits (CR, LF, ^O, in text or keys, whatever the key is
   * called) is judged before anything is written: the line as the line editor will hold it — what
   * the screen shows on the edit line, with the text and keys applied (line-editor.ts) — joined to
   * the lines before it that the shell is still continuing (`rm -rf \`, a here-document). At a
   * database client it is SQL. A program known not to be a shell (cat, an editor, a REPL) gets
   * its input unjudged; when the foreground program cannot be seen, the line is judged as a shell's.
   */
  async checkSend(session: Session, p: TypedInput, ctx: CallContext): Promise<void> {
    if (!this.settings.enabled || session.exit !== null) return;
    const bytes = inputBytes(session, p);
    if (!maySubmit(bytes)) return;
    const kind = inputKind(session);
    if (kind === null) return;
    const edit = readEditLine(session);
    const { submitted, cancelled, unseen } = submittedLines(edit.line, edit.cursor, bytes);
    if (unseen) {
      throw new AppError(
        "INVALID_ARGUMENT",
        "these keys put on the line what the guard cannot see before Enter submits it (history, search, completion)",
        "Send those keys without Enter first, then Enter in its own call: the guard judges the line the screen shows.",
      );
    }
    // Text after the cursor may be the line's, or a suggestion the shell drew there (fish, zsh
    // autosuggestions) that Enter does not submit: the line is also read without it.
    const typedOnly = submittedLines(edit.line.slice(0, edit.cursor), edit.cursor, bytes).submitted;
    const pending = this.continued(session, cancelled);
    const record = (d: GuardDecision) => this.onDecision(session, d, ctx);
    for (const [n, typed] of submitted.entries()) {
      const line = pending.text === "" ? typed : `${pending.text}\n${typed}`;
      const alternative = typedOnly[n] === undefined || typedOnly[n] === typed ? [] : [typedOnly[n]!];
      if (line.trim() !== "") {
        // Without a mark saying where the prompt ends, the line is read with and without it.
        const versions = [line, ...alternative.map((t) => (pending.text === "" ? t : `${pending.text}\n${t}`))];
        const readings = versions.flatMap((v) => (edit.promptKnown ? [v] : withoutPrompts(v)));
        const found: Finding[] = [];
        for (const l of readings)
          found.push(...(kind === "sql" ? classifySqlLine(l, this.rules) : await this.shellFindings(session, l)));
        const findings = unique(found);
        await this.decide(session.id, line, findings, ctx, record);
      }
      pending.text = continues(kind, line) ? line : "";
    }
  }

  /**
   * A command the shell accepted and is about to run (accepted-line.ts): what the rules find in
   * it, judged as a shell line in the session's real working directory, and whether it would
   * switch that check off (hook-tampering.ts). Empty when the guard is off.
   */
  judgeAccepted(session: Session, text: string): Finding[] {
    if (!this.settings.enabled) return [];
    const tampering = hookTampering(text);
    return [...classifyShellLine(text, this.ruleContext(session), this.rules), ...(tampering ? [tampering] : [])];
  }

  /** The lines a session's shell is still continuing; forgotten at a new prompt or after ^C. */
  private continued(session: Session, cancelled: boolean): { text: string; ready: number } {
    const ready =
      session
        .marksAfter(0)
        .filter((m) => m.kind === "ready")
        .pop()?.seq ?? 0;
    let pending = this.pending.get(session);
    if (!pending || pending.ready !== ready || cancelled) {
      pending = { text: "", ready };
      this.pending.set(session, pending);
    }
    return pending;
  }

  /** The session's files as far as they can be known without asking anyone (site-context.ts). */
  private ruleContext(session: Session): RuleContext {
    const local = kindDescriptor(session.kind).hostFiles;
    return local ? hostContext(session.judgedCwd) : unknownContext(session.judgedCwd);
  }

  /** What the rules find in a shell line typed into `session`, judged against its own files. */
  private async shellFindings(session: Session, line: string): Promise<Finding[]> {
    const files = kindDescriptor(session.kind).hostFiles ? null : session.siteFiles;
    if (!files) return classifyShellLine(line, this.ruleContext(session), this.rules);
    return judgedThere(files, session.judgedCwd, (ctx) => classifyShellLine(line, ctx, this.rules));
  }

  /** `action` says what would happen: the line is typed into a session, or a new session starts it. */
  private async decide(
    sessionId: string,
    line: string,
    findings: Finding[],
    ctx: CallContext,
    record: (decision: GuardDecision) => void,
    action: "type" | "start" = "type",
  ): Promise<void> {
    if (findings.length === 0) return;
    const doing =
      action === "type" ? "type this into terminal session" : "start a new terminal session running this as";
    const why = findings.map((f) => `${f.reason} [${f.rule}]`).join("; ");
    const shown = line.length > MAX_SHOWN_LINE ? `${line.slice(0, MAX_SHOWN_LINE)}…` : line;
    const hint = allowHint(sessionId, findings, action);
    const notDone = action === "type" ? `not typed into '${sessionId}'` : `session '${sessionId}' not started`;
    if (!ctx.elicit) {
      record({ line, findings, outcome: "blocked" });
      throw new AppError(
        "BLOCKED_BY_GUARD",
        `${notDone}: ${why}. Nobody was asked: this MCP client cannot ask the human to confirm (no elicitation)`,
        hint,
        false,
      );
    }
    let answer: Awaited<ReturnType<NonNullable<CallContext["elicit"]>>> | null = null;
    try {
      answer = await ctx.elicit(
        `ptyhub guard: the agent wants to ${doing} '${sessionId}':\n\n${shown}\n\n` +
          `Why it was stopped: ${why}.\n\n${action === "type" ? "Type it?" : "Start it?"}`,
        CONFIRM_SCHEMA,
      );
    } catch (err) {
      // No answer (the request timed out, the client went away): only a yes lets it through.
      log.info(`guard question for '${sessionId}' got no answer: ${(err as Error).message}`);
    }
    if (answer?.action === "accept" && answer.content?.allow === true) {
      record({ line, findings, outcome: "confirmed" });
      return;
    }
    if (answer?.unaskedWhy) {
      // The client refused by itself (src/mcp/unasked.ts): nobody said no, as when it cannot ask.
      record({ line, findings, outcome: "blocked" });
      throw new AppError("BLOCKED_BY_GUARD", `${notDone}: ${why}. Nobody was asked: ${answer.unaskedWhy}`, hint, false);
    }
    record({ line, findings, outcome: "declined" });
    if (answer === null) {
      throw new AppError(
        "BLOCKED_BY_GUARD",
        `${notDone}: ${why}. The human was asked but nobody answered (the client could not show the question)`,
        hint,
        false,
      );
    }
    throw new AppError(
      "BLOCKED_BY_GUARD",
      `the human did not confirm running this in '${sessionId}': ${why}`,
      "Do not retry it. Ask the human what they want instead, or find a less destructive way.",
      false,
    );
  }
}

/** The line with its program named as what it is, when it is a shell under another name. */
function undisguised(line: string, command: string, args: string[] | undefined, cwd: string | null): string {
  if (args !== undefined) {
    const real = disguisedProgram(command, cwd);
    return real === null ? line : argvLine([real, ...args]);
  }
  // A command line: its first word is the program (when the line starts with it as written).
  const first = parseShellLine(line).pipelines[0]?.[0]?.argv[0];
  const real = first === undefined ? null : disguisedProgram(first, cwd);
  const rest = line.trimStart();
  return real !== null && first !== undefined && rest.startsWith(first) ? `${real}${rest.slice(first.length)}` : line;
}

/** Where a new local session starts, for relative paths in its command (null when it cannot be known). */
function openCwd(cwd: string | undefined): string | null {
  try {
    return resolveCwd(cwd);
  } catch {
    return null; // opening will fail with its own error; the command is judged without a cwd
  }
}

/** The human's answer: one yes/no, no by default. */
const CONFIRM_SCHEMA = {
  type: "object",
  properties: {
    allow: {
      type: "boolean",
      title: "Type this command",
      description: "Yes: ptyhub types it now. No: the agent is told you declined.",
      default: false,
    },
  },
  required: ["allow"],
};

/** The confirmation shows at most this much of a long line (a pasted script). */
const MAX_SHOWN_LINE = 2000;

/** How a human lets such a line through: type it themselves, or turn the rule off. */
function allowHint(session: string, findings: Finding[], action: "type" | "start"): string {
  const ids = [...new Set(findings.map((f) => JSON.stringify(f.rule)))].join(", ");
  const file = join(configDir(), "config.json");
  const themselves =
    action === "type"
      ? `type it themselves in \`ptyhub attach ${session}\``
      : "run it themselves in a terminal (or open a shell session and type it in `ptyhub attach SESSION`)";
  return (
    `Tell the human: they can ${themselves}, or allow it by adding ` +
    `{"guard": {"disable": [${ids}]}} to ${file} and restarting ptyhub (\`ptyhub daemon --stop\`). ` +
    "Do not try to get around the guard."
  );
}
