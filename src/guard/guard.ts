/**
 * The guard: before a line is typed into a session, judge it; a destructive one is typed only
 * when the human confirms it through MCP elicitation. Nothing the model sends can skip this: the
 * only ways around it are the human's (the settings file, or typing it in `ptyhub attach`).
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { AppError } from "../errors.ts";
import { configDir } from "../paths.ts";
import { logger } from "../log.ts";
import type { CallContext } from "../session/host.ts";
import type { Session } from "../session/session.ts";
import { shellFamilyOf } from "../terminal/shell-integration.ts";
import { builtinRuleIds, classifyShellLine, classifySqlLine, ruleSet, type Finding, type RuleSet } from "./classify.ts";
import type { RuleContext } from "./rules.ts";
import { DATABASE_PROMPT } from "./sql.ts";
import { gitBranch, gitStatus } from "./git.ts";

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

/**
 * What `~` means on an SSH host is unknown here; a path that cannot name any real directory
 * stands for it, so `rm -rf ~` is still the home directory and nothing else is mistaken for it.
 */
const REMOTE_HOME = "/\0remote-home";
/** Key names (keys.ts) that press Enter. */
const ENTER_KEY = /^(enter|return|ctrl\+[mj]|c-[mj]|\^[mj])$/i;
/** term_send's input, as far as the guard cares. */
export interface TypedInput {
  text?: string;
  enter?: boolean;
  keys?: string[];
}
/** A shell prompt drawn by a shell we have no integration with (a nested ssh, `su`): `$ ` or `# `. */
const PLAIN_SHELL_PROMPT = /[$#]\s?$/;

export class Guard {
  private readonly rules: RuleSet;

  constructor(
    private readonly settings: GuardSettings,
    /** Told about every line the guard stopped or the human confirmed. */
    private readonly onDecision: (session: Session, decision: GuardDecision, ctx: CallContext) => void = () => {},
  ) {
    const known = new Set(builtinRuleIds());
    for (const id of settings.disable) {
      if (!known.has(id)) log.warn(`guard.disable names an unknown rule '${id}' (rules: ${[...known].join(", ")})`);
    }
    const patterns = settings.rules.map((r) => ({ id: r.id, pattern: new RegExp(r.pattern), reason: r.reason }));
    this.rules = ruleSet({ disable: settings.disable, patterns });
  }

  /** term_exec: the command is a shell line typed at the prompt. */
  async checkExec(session: Session, command: string, ctx: CallContext): Promise<void> {
    if (!this.settings.enabled) return;
    await this.decide(session, command, classifyShellLine(command, this.ruleContext(session), this.rules), ctx);
  }

  /**
   * term_send: text that ends up submitted (Enter pressed, or a newline in it) at a shell prompt
   * is a shell line, together with whatever was already typed on that line; at a database
   * client's prompt it is SQL. Anything else (an editor, a REPL) is the program's business.
   */
  async checkSend(session: Session, p: TypedInput, ctx: CallContext): Promise<void> {
    if (!this.settings.enabled || session.exit !== null) return;
    const text = p.text ?? "";
    // Enter comes with the text (the default when text is given), inside it, or as a key after it.
    const submitted =
      (p.text !== undefined && (p.enter ?? true)) ||
      /[\r\n]/.test(text) ||
      (p.keys ?? []).some((k) => ENTER_KEY.test(k));
    if (!submitted) return;
    const before = session.emulator.textBeforeCursor();
    const line = this.pendingLine(session) + text;
    if (line.trim() === "") return;
    if (this.atShellPrompt(session, before)) {
      await this.decide(session, line, classifyShellLine(line, this.ruleContext(session), this.rules), ctx);
    } else if (DATABASE_PROMPT.test(before)) {
      await this.decide(session, line, classifySqlLine(line, this.rules), ctx);
    }
  }

  private atShellPrompt(session: Session, before: string): boolean {
    if (session.integration !== "none" && session.phase === "prompt") return true;
    if (DATABASE_PROMPT.test(before)) return false;
    const shellProgram = session.integration === "none" && shellFamilyOf(session.target.split(" ")[0] ?? "") !== null;
    return (shellProgram || session.phase === "running" || session.kind === "ssh") && PLAIN_SHELL_PROMPT.test(before);
  }

  /** What is already typed on the shell's edit line (text sent earlier without Enter). */
  private pendingLine(session: Session): string {
    if (session.integration === "none" || !session.inputReady) return "";
    const ready = session
      .marksAfter(0)
      .filter((m) => m.kind === "ready")
      .pop();
    const cursor = session.emulator.cursorPos();
    if (!ready || ready.pos.row !== cursor.row) return "";
    return cursor.prefix.slice(ready.pos.col);
  }

  private ruleContext(session: Session): RuleContext {
    const local = session.kind === "local";
    return {
      cwd: session.judgedCwd,
      home: local ? homedir() : REMOTE_HOME,
      gitStatus: (dir) => (local ? gitStatus(dir) : null),
      gitBranch: (dir) => (local ? gitBranch(dir) : null),
    };
  }

  private async decide(session: Session, line: string, findings: Finding[], ctx: CallContext): Promise<void> {
    if (findings.length === 0) return;
    const why = findings.map((f) => `${f.reason} [${f.rule}]`).join("; ");
    const shown = line.length > MAX_SHOWN_LINE ? `${line.slice(0, MAX_SHOWN_LINE)}…` : line;
    if (ctx.elicit) {
      let allowed = false;
      try {
        const answer = await ctx.elicit(
          `ptyhub guard: the agent wants to type this into terminal session '${session.id}':\n\n${shown}\n\n` +
            `Why it was stopped: ${why}.\n\nType it?`,
          CONFIRM_SCHEMA,
        );
        allowed = answer.action === "accept" && answer.content?.allow === true;
      } catch (err) {
        // No answer (the request timed out, the client went away): only a yes lets it through.
        log.info(`guard question for '${session.id}' got no answer: ${(err as Error).message}`);
      }
      if (allowed) {
        this.onDecision(session, { line, findings, outcome: "confirmed" }, ctx);
        return;
      }
      this.onDecision(session, { line, findings, outcome: "declined" }, ctx);
      throw new AppError(
        "BLOCKED_BY_GUARD",
        `the human did not confirm running this in '${session.id}': ${why}`,
        "Do not retry it. Ask the human what they want instead, or find a less destructive way.",
        false,
      );
    }
    this.onDecision(session, { line, findings, outcome: "blocked" }, ctx);
    throw new AppError(
      "BLOCKED_BY_GUARD",
      `not typed into '${session.id}': ${why}; this MCP client cannot ask the human to confirm (no elicitation)`,
      allowHint(session.id, findings),
      false,
    );
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
function allowHint(session: string, findings: Finding[]): string {
  const ids = [...new Set(findings.map((f) => JSON.stringify(f.rule)))].join(", ");
  const file = join(configDir(), "config.json");
  return (
    `Tell the human: they can type it themselves in \`ptyhub attach ${session}\`, or allow it by adding ` +
    `{"guard": {"disable": [${ids}]}} to ${file} and restarting ptyhub (\`ptyhub daemon --stop\`). ` +
    "Do not try to get around the guard."
  );
}
