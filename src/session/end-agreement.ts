/**
 * A command's end mark, checked with the kernel (issue 35, item 3). A mark is only bytes in the
 * output: a command that has the nonce (a command in the same shell can always read it back from
 * the prompt string or the hooks' function bodies) can print one and go on running. The shell's
 * own end mark comes from its prompt hook, after the command's process group is gone, and the
 * shell then draws its prompt and waits for keys. So on a local PTY (Linux) an end is believed
 * only when, after it, the shell leads the terminal's foreground process group and its line
 * editor waits for the terminal (tty-wait.ts): a mark printed while a command's group holds the
 * terminal, or while the shell itself still runs the line (a builtin, a loop, `wait`), does not end
 * the wait, and the shell's real end mark, which follows, is the one reported.
 *
 * What it cannot tell: a forged mark followed by the shell waiting in a line editor of the
 * command's own (`read -e`, `vared`), which is the shell waiting for keys all the same.
 */
import { shellFamilyOf } from "../terminal/shell-integration.ts";
import { shellDescriptor } from "../terminal/shells/all-shells.ts";
import { foregroundShellAndLeader } from "./bare-shell.ts";
import type { Session } from "./session.ts";
import type { CheckResult } from "./wait.ts";

/**
 * The kernel's agreement is asked twice, this far apart, with nothing printed or typed between:
 * what the shell wrote before blocking (a later end mark) may still be on its way to the screen,
 * in the kernel's buffer between the two sides of the PTY (moved by a kernel worker) or in our
 * reader's next turn. Measured: `term_exec "echo hi"` in bash takes 5 ms median without the check;
 * a 10 ms confirmation after 15 ms of quiet (as the tty-wait check uses) made it 34 ms.
 */
const END_CONFIRM_MS = 3;
/**
 * Where the backend can tell that nothing the shell wrote is still on its way (outputDrained: the
 * kernel's buffer polled empty, our reader waiting), the second look comes in the next event-loop
 * turn (wait.ts), and agrees without the margin when nothing is on its way; else it waits it out.
 */
const END_CONFIRM_DRAINED_MS = 0;
/**
 * While the kernel disagrees (the prompt is still being drawn, the command runs), asked again
 * after this long at first…
 */
const END_RECHECK_MIN_MS = 2;
/** …then after an eighth of the time since the end mark, at most this long: a forged end costs little. */
const END_RECHECK_MAX_MS = 250;

/** When a session's shell was first seen agreeing, and its last output and input then. */
const agreedAt = new WeakMap<Session, { at: number; outputAt: number; activityAt: number }>();

/**
 * `true` when the kernel agrees that the shell is back at its prompt; otherwise when to ask again.
 * `endAt`: when the latest end mark arrived (to ask rarely while a forged end's command runs on).
 */
export function endAgreed(session: Session, endAt: number): true | CheckResult<never> {
  if (!session.endsNeedAgreement || session.exit) return true;
  const now = Date.now();
  const backend = session.backendHandle;
  const seen = agreedAt.get(session);
  const since =
    seen && seen.outputAt === session.lastOutputAt && seen.activityAt === session.lastActivityAt ? seen.at : null;
  // A later look, within the margin, agrees only once drained: until then the kernel is not asked
  // again (our reader may be between two reads for a turn, reader.ts, or bytes are on their way).
  const drained = since !== null && backend.outputDrained?.() === true;
  if (since !== null && backend.outputDrained && !drained && now - since < END_CONFIRM_MS)
    return { retryInMs: END_CONFIRM_DRAINED_MS };
  if (!shellWaitsForKeys(session)) {
    agreedAt.delete(session);
    const backoff = Math.round((now - endAt) / 8);
    return { retryInMs: Math.min(END_RECHECK_MAX_MS, Math.max(END_RECHECK_MIN_MS, backoff)) };
  }
  if (since !== null) {
    if (drained || now - since >= END_CONFIRM_MS) {
      agreedAt.delete(session);
      return true;
    }
    return { retryInMs: END_CONFIRM_MS - (now - since) };
  }
  agreedAt.set(session, { at: now, outputAt: session.lastOutputAt, activityAt: session.lastActivityAt });
  // The first look often comes while output is being delivered, when nothing can be drained yet.
  return { retryInMs: backend.outputDrained ? END_CONFIRM_DRAINED_MS : END_CONFIRM_MS };
}

/**
 * A shell leads the foreground group and its line editor waits for keys: the leader sleeps
 * watching the terminal, in the editor's raw mode (a shell's canonical `read` builtin is a command
 * reading a line, not its prompt; POSIX sh reads its prompt's line in canonical mode). Where the
 * kernel does not say what the leader sleeps in (no ptrace access: a shell run as another user),
 * the shell leading the group in its editor's mode is taken as the answer.
 */
function shellWaitsForKeys(session: Session): boolean {
  // The leader comes from the same read of the foreground group as the shell's family.
  const shell = foregroundShellAndLeader(session, false);
  if (shell === null || session.pid === null) return false;
  const { family, leader } = shell;
  if (!shellDescriptor(family)!.canonicalPrompt && session.backendHandle.ttyModes()?.canonical === true) return false;
  // `su -`: the leader is su, waiting for the shell beside it in its group; that shell is asked.
  const answer =
    shellFamilyOf(leader.comm) !== null
      ? (session.backendHandle.foregroundLeaderWatchesTty?.() ?? null)
      : (session.backendHandle.foregroundWatchesTty?.() ?? null);
  return answer !== false;
}
