/**
 * term_exec: type one command line at a shell prompt and wait until the shell says it finished.
 * Completion comes from shell integration (via "shell") or per-command markers (via "marker"),
 * never from silence. Output is exactly what the command printed: after its start mark, before
 * its end mark, so neither the echo of the typed line nor the next prompt is included.
 */
import { AppError } from "../errors.ts";
import { commandLine } from "../terminal/shell-integration.ts";
import { render, type Truncation } from "../terminal/render.ts";
import type { MarkRecord, Session } from "./session.ts";
import { waitFor } from "./wait.ts";
import { region } from "./output.ts";
import { withoutEcho } from "./echo-items.ts";
import { ensureReady } from "./ready.ts";

/** A command waiting at a password/confirm prompt or pager must be quiet this long to count as waiting for input. */
const INPUT_QUIET_MS = 120;
/** A full-screen program (alt screen) quiet this long is waiting for keys. */
const SCREEN_INPUT_QUIET_MS = 400;

export interface ExecParams {
  command: string;
  timeout_ms: number;
  max_tokens: number;
}

export interface ExecResult {
  session: string;
  status: "done" | "running" | "input";
  exit_code: number | null;
  output: string;
  cwd: string | null;
  duration_ms: number;
  via: "shell" | "marker" | "exit" | "prompt" | "timeout";
  truncated: Truncation | null;
  state: string;
}

type Outcome = { kind: "end"; end: MarkRecord; start: MarkRecord | null } | { kind: "exit" } | { kind: "input" };

export function assertCanExec(session: Session): void {
  session.assertAlive();
  if (session.integration === "none") {
    throw new AppError(
      "INVALID_ARGUMENT",
      `session '${session.id}' runs ${session.target}, not a shell, so term_exec cannot know when a command ends`,
      "Drive programs and REPLs with term_send (use `until` to wait for their prompt), or term_exec in a shell session.",
    );
  }
  if (session.execOwner !== null || session.phase === "running") {
    throw new AppError(
      "SESSION_BUSY",
      `session '${session.id}' is still running a command`,
      "Follow it with term_read, interrupt it with term_send keys:[\"ctrl+c\"], or use another session.",
    );
  }
}

export async function execCommand(session: Session, p: ExecParams, clientId: string, signal?: AbortSignal): Promise<ExecResult> {
  const t0 = performance.now();
  assertCanExec(session);
  session.execOwner = clientId;
  try {
    await ensureReady(session, p.timeout_ms, signal);
    session.assertAlive(); // it may have exited while we waited for its prompt
    const seq0 = session.lastMarkSeq;
    const typedAt = session.emulator.cursorPos();
    const typedCapture = session.captureFrom(typedAt);
    const line = commandLine(p.command, session.family ?? "sh", session.integration);
    try {
      session.write(line + "\r");
      const remaining = Math.max(0, p.timeout_ms - (performance.now() - t0));
      const outcome = await waitFor<Outcome>(
        session,
        () => {
          const marks = session.marksAfter(seq0);
          const end = marks.find((m) => m.kind === "end" && marks.some((s) => s.kind === "start" && s.seq < m.seq));
          const lone = marks.find((m) => m.kind === "end");
          if (end || lone) {
            const e = (end ?? lone)!;
            return { done: { kind: "end", end: e, start: marks.find((m) => m.kind === "start" && m.seq < e.seq) ?? null } };
          }
          if (session.exit) return { done: { kind: "exit" } };
          if (!marks.some((m) => m.kind === "start")) return null;
          return waitingForInput(session);
        },
        { timeoutMs: remaining, signal },
      );

      const startMark = outcome === "timeout" || outcome.kind !== "end" ? (session.marksAfter(seq0).find((m) => m.kind === "start") ?? null) : outcome.start;
      const endPos = outcome !== "timeout" && outcome.kind === "end" ? outcome.end.pos : null;
      let items;
      if (startMark) {
        const cap = session.command && session.command.startSeq === startMark.seq ? session.command.capture : null;
        items = region(session, startMark.pos, endPos, cap, Infinity, p.max_tokens).items;
      } else {
        // No start mark (a syntax error, or the shell exited first): what followed the typed line.
        const r = withoutEcho(region(session, typedAt, endPos, typedCapture).items, line, true);
        items = r.pending ? [] : r.items;
      }
      const rendered = render(items, p.max_tokens, (t) => session.redact(t));
      session.setCursor(clientId, session.emulator.cursorPos());

      let status: ExecResult["status"] = "done";
      let exitCode: number | null = null;
      let via: ExecResult["via"];
      if (outcome === "timeout") {
        status = "running";
        via = "timeout";
      } else if (outcome.kind === "end") {
        exitCode = outcome.end.exitCode;
        via = session.integration === "marker" ? "marker" : "shell";
      } else if (outcome.kind === "exit") {
        exitCode = session.exit?.exitCode ?? null;
        via = "exit";
      } else {
        status = "input";
        via = "prompt";
      }
      return {
        session: session.id,
        status,
        exit_code: exitCode,
        output: rendered.output,
        cwd: session.cwd,
        duration_ms: Math.round(performance.now() - t0),
        via,
        truncated: rendered.truncated,
        state: session.state(),
      };
    } finally {
      session.release(typedCapture);
    }
  } finally {
    session.execOwner = null;
  }
}

/** While a command runs: is it now waiting for the user (password, yes/no, pager, full-screen app)? */
function waitingForInput(session: Session): { done: Outcome } | { retryInMs: number } | null {
  // Classify only once output paused: it is cheap to wait, and classifying every chunk of a flood is not.
  const quietFor = Date.now() - session.lastOutputAt;
  if (quietFor < INPUT_QUIET_MS) return { retryInMs: INPUT_QUIET_MS - quietFor };
  const state = session.state();
  if (state === "password" || state === "confirm" || state === "pager") return { done: { kind: "input" } };
  if (session.emulator.altScreen) {
    return quietFor >= SCREEN_INPUT_QUIET_MS ? { done: { kind: "input" } } : { retryInMs: SCREEN_INPUT_QUIET_MS - quietFor };
  }
  return null;
}
