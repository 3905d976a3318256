/**
 * Keeping term_exec working when the shell at the prompt changes under the session:
 *  - `exec bash`, `exec zsh -l`, `exec su -`: a new shell replaced ours, without our hooks. Its
 *    prompt would never be marked, so the session would stay "running" and every later term_exec
 *    would answer SESSION_BUSY.
 *  - `bash`, `zsh`, `fish` typed at the prompt: a nested shell, likewise without hooks.
 * Such a shell is recognised without typing anything (bare-shell.ts): the session's last mark says
 * a command is running (or, with per-command markers, a prompt without our ready mark is on the
 * cursor's row), yet a shell we know leads the terminal's foreground process group, its line
 * editor reading keys. Then its family's hooks are installed the way shell-reinstall.ts
 * describes, and the session completes commands through them. When a nested shell exits, the
 * outer shell's marks take over again, and the next term_exec types for that shell (its family is
 * read from the foreground process again). Only local sessions show their processes; elsewhere
 * the session stays honest (`input` at the new prompt, then a SESSION_BUSY that says the command
 * waits at a prompt of its own), never stuck in a wait.
 */
import { unlinkSync } from "node:fs";
import { writeNewPrivateFile } from "../terminal/owned-file.ts";
import { AppError } from "../api/errors.ts";
import { reinstallDir, type PosixShellFamily, type ShellFamily } from "../terminal/shell-integration.ts";
import { integrationOf, reinstallFor } from "../terminal/shell-reinstall.ts";
import { PROMPT_QUIET_MS } from "./completion.ts";
import type { Session } from "./session.ts";
import { waitFor } from "./wait.ts";
import { atOurPrompt, bareShell, foregroundShell, noteHookedShell } from "./bare-shell.ts";
import { rowStart } from "../terminal/output-region.ts";
import type { Pos } from "../terminal/emulator.ts";

/** How long a shell gets to source the hooks and draw its prompt with them, when the caller allows. */
const INSTALL_ANSWER_MS = 5000;
/**
 * A shell that drew a new line and then stayed quiet this long without our ready mark did not take
 * the hooks (it could not read them). Should they come later after all, the marks still count.
 */
const INSTALL_REFUSED_QUIET_MS = 500;
/** A new shell still starting (rc files, greeting) gets this long to reach its prompt. */
const BARE_PROMPT_WAIT_MS = 2000;

/** Where the last install was tried and failed, per session: not typed again at the same prompt. */
const failedAt = new WeakMap<Session, number>();
/** One install at a time per session (two term_exec calls may both find the bare shell). */
const installing = new WeakMap<Session, Promise<Installed | null>>();

/** Where the installing line was typed (the start of the shell's prompt row), and whether it took. */
export interface Installed {
  at: Pos;
  ok: boolean;
}

/** A bare shell (bare-shell.ts) whose prompt has stood for a moment. */
function quietBareShell(session: Session): PosixShellFamily | null {
  return Date.now() - session.lastOutputAt >= PROMPT_QUIET_MS ? bareShell(session) : null;
}

/**
 * Installs `family`'s hooks into the bare shell at the prompt. Returns where the line was typed
 * (the start of the shell's own prompt row: output before it is the earlier command's) and
 * whether the shell answered with a prompt carrying our mark; null when not tried again at a
 * prompt where it failed before.
 */
export function installHooks(
  session: Session,
  family: PosixShellFamily,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Installed | null> {
  const running = installing.get(session);
  if (running) return running;
  const attempt = install(session, family, timeoutMs, signal).finally(() => installing.delete(session));
  installing.set(session, attempt);
  return attempt;
}

async function install(
  session: Session,
  family: PosixShellFamily,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Installed | null> {
  if (failedAt.get(session) === session.emulator.bytesIn) return null;
  const plan = reinstallFor(family, session.nonce, reinstallDir(session.id));
  writeNewPrivateFile(plan.path, plan.script);
  try {
    const seq = session.lastMarkSeq;
    const at = session.emulator.cursorPos();
    session.write(`${plan.line}\r`);
    const drawn = await waitFor<boolean>(
      session,
      () => {
        if (session.exit) return { done: false };
        if (session.marksAfter(seq).some((m) => m.kind === "ready")) return { done: true };
        const quietFor = Date.now() - session.lastOutputAt;
        if (session.emulator.cursorPos().row <= at.row) return null;
        return quietFor >= INSTALL_REFUSED_QUIET_MS
          ? { done: false }
          : { retryInMs: INSTALL_REFUSED_QUIET_MS - quietFor };
      },
      { timeoutMs: Math.min(timeoutMs, INSTALL_ANSWER_MS), signal },
    );
    if (drawn !== true) {
      failedAt.set(session, session.emulator.bytesIn);
      return { at: rowStart(at), ok: false };
    }
    session.adoptShell(family, integrationOf(family));
    return { at: rowStart(at), ok: true };
  } finally {
    // The script removes itself once sourced; this is for a shell that never read it.
    try {
      unlinkSync(plan.path);
    } catch {}
  }
}

/**
 * Before a term_exec claims the prompt: a shell without hooks there gets them (then
 * adoptPromptShell, once the prompt is drawn, picks the family to type for).
 * Throws SESSION_BUSY, with what to do, when a bare shell is there but could not be integrated, or
 * the command waits at a prompt no hook marks (a REPL, a shell out of sight).
 */
export async function followShell(session: Session, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  if (session.execBusy) return; // the other term_exec answers for the prompt; claimExec says so
  if (session.phase === "prompt" && !bareShell(session)) return;
  if (session.phase !== "running" && session.phase !== "prompt") return;
  if (!foregroundShell(session)) {
    if (session.phase === "running" && session.state() === "prompt") throw atForeignPrompt(session);
    return;
  }
  // A new shell may still be starting: give it a moment to reach its prompt. Our own prompt drawn
  // meanwhile (its ready mark was merely late) settles it the other way.
  await waitFor<boolean>(
    session,
    () => {
      if (quietBareShell(session)) return { done: true };
      if (!foregroundShell(session) || (session.phase === "prompt" && atOurPrompt(session))) return { done: false };
      return { retryInMs: PROMPT_QUIET_MS };
    },
    { timeoutMs: Math.min(timeoutMs, BARE_PROMPT_WAIT_MS), signal },
  );
  const family = quietBareShell(session);
  if (!family) return;
  if ((await installHooks(session, family, timeoutMs, signal))?.ok) return;
  throw new AppError(
    "SESSION_BUSY",
    `session '${session.id}' now runs ${family} at its prompt without ptyhub's shell integration ` +
      "(installing it got no answer), so term_exec cannot know when a command ends",
    "Drive this shell with term_send (until: its prompt), or `exit` it with term_send to return to the session's " +
      "shell, or open a new session with term_open.",
  );
}

/**
 * At a prompt our hooks drew (call once it is drawn): commands are typed for the shell that drew
 * it, which after a nested shell exited is the one below again. Its company does not matter.
 */
export function adoptPromptShell(session: Session): void {
  if (session.phase !== "prompt") return;
  // The shell at the prompt is the leader of the terminal's foreground group. Within one group it
  // changes only by exec, and a shell exec'd there has no hooks until reintegration adopts it (which
  // changes the family); a nested shell that exited hands the terminal back to another group. So one
  // ioctl tells whether the /proc reads (three files, most of the session layer's syscalls per
  // command) can tell anything new.
  const group = session.backendHandle.foregroundGroup?.() ?? null;
  const seen = checkedPromptShell.get(session);
  if (group !== null && seen?.group === group && seen.family === session.family) return;
  const family = foregroundShell(session, false);
  if (family && family !== session.family) session.adoptShell(family, integrationOf(family));
  if (group !== null) {
    checkedPromptShell.set(session, { group, family: session.family });
    noteHookedShell(session, group);
  }
}

/** Per session, the foreground group whose shell adoptPromptShell last read, and the family then. */
const checkedPromptShell = new WeakMap<Session, { group: number; family: ShellFamily | null }>();

/**
 * The command waits at a prompt that no hook marks: a REPL it started, or a shell ptyhub cannot
 * see (over SSH or serial the processes are out of sight). More precise than "still running".
 */
function atForeignPrompt(session: Session): AppError {
  return new AppError(
    "SESSION_BUSY",
    `session '${session.id}' runs a command that seems to wait at a prompt of its own (a REPL, or a shell it started ` +
      "that ptyhub cannot see to integrate), so term_exec cannot know when a line typed there ends",
    "Drive it with term_send (until: its prompt); leave it (exit, quit(), ctrl+d) to get the session's shell " +
      "back, or open a new session with term_open.",
  );
}
