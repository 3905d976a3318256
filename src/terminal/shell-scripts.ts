/**
 * What the shell-integration scripts print and read. The scripts are shell files in shells/, one
 * descriptor per shell beside them (shells/all-shells.ts), imported as text so the compiled binary
 * carries them, and read by shellcheck, `zsh -n` and `fish -n` (test/unit/shell-script-files.test.ts).
 * Each script first loads the user's own startup files (their rc still runs, untouched), then installs hooks
 * that print marks: OSC 6973 ; <nonce> ; <kind> [; args] BEL.
 *   A        the prompt is about to be drawn
 *   B        the prompt is drawn (end of PS1): the line editor reads input now, so typed text
 *            is echoed once (text typed before this is echoed by the tty, then again by the editor)
 *   C        a command line was accepted and starts running: its output begins here
 *   D;n;cwd  the command finished with exit status n, in cwd (%, ;, LF, BEL, ESC %-escaped)
 *   P        a continuation prompt (PS2) is drawn: the shell waits for the rest of an
 *            unfinished command line (open quote, `if … then`, a here-document)
 * The nonce comes on file descriptor 3 (NONCE_FD), which ptyhub hands the shell at its start and
 * the script reads and closes before anything else runs: it is in no environment (not even the
 * shell's initial one, which /proc/PID/environ shows), no argv and no file, so programs started in
 * the session cannot read it to forge a mark. (A program that may read the shell's memory —
 * ptrace, /proc/PID/mem as the same user without Yama — can; session.ts checks marks further.)
 * "__ptyhub_" prefixes keep our names out of the user's way.
 */

export const OSC_MARK_ID = 6973;
/** One of our marks in output (BEL- or ST-terminated): not what the program sent, and it carries the nonce. */
export const OSC_MARK_PATTERN = new RegExp(`\x1b\\]${OSC_MARK_ID};[^\x07\x1b]*(?:\x07|\x1b\\\\)`, "g");

/** The descriptor the nonce arrives on (one line); hard-coded as 3 in the scripts below. */
export const NONCE_FD = 3;

/**
 * The second line on NONCE_FD when ptyhub keeps that socket open as the channel for the guard's
 * verdicts on commands the shell is about to run (bash moves it to descriptor 63, zsh to one it
 * picks; fish keeps it on NONCE_FD).
 */
export const VERDICT_CHANNEL_LINE = "verdicts";

/** bash keeps the verdict channel on this descriptor: high, out of the way of the user's own. */
export const VERDICT_FD = 63;

/**
 * How long the shell waits for a verdict before it refuses the command (fail closed) and says no
 * answer came: ptyhub answers in milliseconds, but a loaded machine may stall it for seconds.
 */
export const VERDICT_WAIT_S = 20;
