/**
 * Where typed input passes on its way into a session: the guard judges it (and may ask the
 * human), the audit trail records it. LocalHost calls this once per operation, so the sessions
 * hosted in the daemon and in-process ones are guarded and recorded the same way.
 */
import type { Config } from "../config/config.ts";
import type { CallContext } from "../api/host.ts";
import type { HumanVia } from "../api/fields.ts";
import type { SessionManager } from "../session/manager.ts";
import type { OpenParams } from "../backend/descriptor.ts";
import type { Session } from "../session/session.ts";
import { SessionAudit } from "../audit/recorder.ts";
import { Guard, type TypedInput } from "../guard/guard.ts";
import { argvLine } from "../guard/shell-quote.ts";
import { kindOfParams } from "../backend/registry/kinds.ts";

/** What a term_open runs, as its trail shows it: the command line, or the argv as a shell line. */
function openedLine(p: OpenParams): string {
  return p.args === undefined ? (p.command ?? "") : argvLine([p.command ?? "", ...p.args]);
}
import { AcceptedLines } from "../guard/accepted-line.ts";

/** What a host method types into a session (its entry's `types` in local-operations.ts). */
export type TypedCall =
  | { via: "exec"; command: string }
  | { via: "send"; input: TypedInput }
  | { via: "secret" }
  | { via: "view"; text: string };

/** Who the audit trail names for a command refused when the shell reported it (no client asked). */
const SHELL_REPORTED = "shell";

export class TypingGate {
  private readonly guard: Guard;
  private readonly audit: SessionAudit;
  private readonly encoder = new TextEncoder();

  /** The guard's look at the commands the shell accepted, before they run (accepted-line.ts). */
  private readonly accepted: AcceptedLines;

  constructor(config: Config, manager: SessionManager) {
    this.audit = new SessionAudit(config.audit, manager);
    this.guard = new Guard(config.guard, (session, decision, ctx) => {
      if (decision.outcome === "confirmed") this.accepted.noteConfirmed(session, decision.line);
      this.audit.guard(session, decision, ctx.clientId);
    });
    this.accepted = new AcceptedLines(manager, this.guard, (session, decision) =>
      this.audit.guard(session, decision, SHELL_REPORTED),
    );
  }

  /** Before a call types into `session`: throws BLOCKED_BY_GUARD unless it may; then records it. */
  async admit(session: Session, typed: TypedCall, ctx: CallContext): Promise<void> {
    switch (typed.via) {
      case "exec":
        await this.guard.checkExec(session, typed.command, ctx);
        this.audit.typed(session, ctx.clientId, "exec", typed.command);
        return;
      case "send":
        await this.guard.checkSend(session, typed.input, ctx);
        this.audit.typed(session, ctx.clientId, "send", typed.input.text, typed.input.keys);
        return;
      case "secret":
        // term_secret is not judged (a human chose to type it), only recorded: never what.
        this.audit.secret(session, ctx.clientId);
        return;
      case "view":
        // The MCP Apps view's take-over: recorded as the human's, but judged as term_send is. The
        // call comes through the MCP client, which the model also speaks through: ptyhub cannot
        // tell that the view made it, so the human's name in the trail gives it no more power than
        // the agent's own keys (no noteHuman: the shell's accepted-line check still applies).
        await this.guard.checkSend(session, { text: typed.text, enter: false }, ctx);
        this.audit.humanInput(session, this.encoder.encode(typed.text), "app");
    }
  }

  /** Before term_open starts `command`/`args` in the session `id`: throws BLOCKED_BY_GUARD unless it may. */
  async open(id: string, p: OpenParams, ctx: CallContext): Promise<void> {
    await this.guard.checkOpen(id, p, ctx, (decision) => this.audit.guardAtOpen(id, decision, ctx.clientId));
    // A program the caller chose is recorded before it starts, as typed input is (fails closed).
    if (p.command !== undefined && kindOfParams(p).runsProgram) this.audit.starting(id, ctx.clientId, openedLine(p));
  }

  /** A human typed into the session through `ptyhub attach` or the web view. */
  humanInput(session: Session, data: Uint8Array, via: HumanVia): void {
    this.accepted.noteHuman(session);
    this.audit.humanInput(session, data, via);
  }

  dispose(): void {
    this.accepted.dispose();
    this.audit.dispose();
  }
}
