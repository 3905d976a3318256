/**
 * term_exec on a serial line. A local sh gets its marker functions through $ENV and an SSH shell
 * through a setup channel; a serial line has neither: the shell at the far end (a board's
 * console, usually busybox ash) is already running. So the first term_exec types one line that
 * defines the same marker functions as a local sh session (shells/sh.ts, SH_SCRIPT) and
 * prints a prompt mark; once that mark comes back, the session completes commands on markers
 * with exact exit codes. The typed line starts with a space (kept out of bash/zsh history with
 * ignorespace); its echo shows the nonce as text, but a mark needs a real ESC byte, which an
 * echo of `\033` never is.
 *
 * The shell may lose the functions: the device was unplugged and came back, or the board rebooted
 * (its USB adapter staying plugged), or someone ran `exec sh`. Our PS1 carries a ready mark, so a
 * prompt drawn without one on the cursor's row is a shell that does not have them: the line is
 * typed again. Checked before every term_exec, at no cost (no probe is sent).
 */
import { AppError } from "../api/errors.ts";
import type { Session } from "./session.ts";
import { SH_SCRIPT } from "../terminal/shells/sh.ts";
import { waitFor } from "./wait.ts";
import { waitForPromptDrawn } from "./ready.ts";
import { atOurPrompt } from "./bare-shell.ts";

/** Time for the shell to answer, on top of the time the line takes on the wire both ways. */
const SHELL_ANSWER_MS = 3000;
/** Bits per character on the wire (start, 8 data, stop) and echo both ways, for the wait bound. */
const WIRE_BITS_PER_CHAR = 10;

/** Which reopen of the line the markers were installed on, per session. */
const installedOn = new WeakMap<Session, number>();

/** After a command's end mark, how long its prompt (with the ready mark) may take to arrive. */
const PROMPT_DRAW_MS = 1000;

/** Whether the far end's shell still has the marker functions, as far as the line shows. */
async function stillInstalled(session: Session, generation: number, signal?: AbortSignal): Promise<boolean> {
  if (session.integration !== "marker" || installedOn.get(session) !== generation) return false;
  // A command running, or another exec: execCommand answers that (SESSION_BUSY), not us.
  if (session.phase === "running" || session.execBusy) return true;
  await waitForPromptDrawn(session, PROMPT_DRAW_MS, signal);
  return atOurPrompt(session) || session.state() !== "prompt";
}

/**
 * The lines of SH_SCRIPT that define the marker functions (the nonce written into their text),
 * the prompt mark and the ready mark, and unset the nonce again.
 */
const MARKER_SETUP_LINE = /^(eval "__ptyhub_[cd]\(\) \{|PS1=|printf '\\033\]6973;%s;A|unset __ptyhub_nonce$)/;
const MARKER_SETUP_LINES = 5;

function markerSetup(nonce: string): string {
  const keep = SH_SCRIPT.split("\n").filter((l) => MARKER_SETUP_LINE.test(l));
  if (keep.length !== MARKER_SETUP_LINES) throw new Error("sh integration script changed: update markerSetup");
  return ` __ptyhub_nonce=${nonce}; ${keep.join("; ")}`;
}

interface LineInfo {
  generation: number;
  baud: number;
}

/** Makes term_exec possible on a serial session (no-op elsewhere, or when already done). */
export async function ensureSerialShell(
  session: Session,
  line: LineInfo,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  if (await stillInstalled(session, line.generation, signal)) return;
  session.assertAlive();
  const state = session.state();
  if (state !== "prompt") {
    const shown = session.emulator.textBeforeCursor().trim().slice(-60);
    throw new AppError(
      "INVALID_ARGUMENT",
      `the serial line is not at a shell prompt (state ${state}, ${shown ? `showing '${shown}'` : "nothing shown"})`,
      "Get to a shell prompt first with term_send (press Enter to wake the console, log in, leave the bootloader); " +
        "drive other consoles (routers, bootloaders) with term_send and `until`.",
    );
  }
  const setup = markerSetup(session.nonce);
  const seq0 = session.lastMarkSeq;
  session.write(setup + "\r");
  const wireMs = Math.ceil((2 * setup.length * WIRE_BITS_PER_CHAR * 1000) / line.baud);
  const answered = () => session.exit !== null || session.marksAfter(seq0).some((m) => m.kind === "prompt");
  const outcome = await waitFor<true>(session, () => (answered() ? { done: true } : null), {
    timeoutMs: Math.min(timeoutMs, SHELL_ANSWER_MS + wireMs),
    signal,
  });
  session.assertAlive();
  if (outcome === "timeout") {
    throw new AppError(
      "INVALID_ARGUMENT",
      "no POSIX shell answered on the serial line, so term_exec cannot know when a command ends",
      "Drive the console with term_send (use `until` to wait for its prompt); " +
        "term_exec needs sh, ash, dash, bash or ksh at the other end.",
    );
  }
  session.adoptMarkers();
  installedOn.set(session, line.generation);
  // The prompt mark comes before the shell draws our PS1. Typed before that prompt (and its ready
  // mark) is drawn, a command's echo lands above it, and the prompt then looks like the shell
  // dropping the typed line (seen once in a full test run under load: `sleep 30` came back "done").
  await waitForPromptDrawn(session, PROMPT_DRAW_MS + wireMs, signal, true);
}
