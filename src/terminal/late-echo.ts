/**
 * The late echo of typed-ahead input. A line typed while the program is busy (python in
 * `time.sleep(2)`, a shell running a command, a REPL still starting) is echoed twice: by the tty at
 * once, then again by the program's line editor when it reads it, after its prompt:
 * `>>> time.sleep(3); print("MARK")`. That second copy is not output either: `until` must not
 * match it (issue 21: MARK matched 3 s early) and term_send's output starts after it (the banner
 * of a REPL that started meanwhile is not the answer to the line).
 */
import { looksLikePrompt } from "./classify.ts";

/** A line that is a prompt followed by exactly the typed line: the program echoing it as it reads it. */
export function isLateEcho(line: string, typedLine: string): boolean {
  const text = line.trimEnd();
  const typed = typedLine.trim();
  if (typed.length === 0 || !text.endsWith(typed)) return false;
  return isPromptText(text.slice(0, text.length - typed.length));
}

/** A line that may still become a late echo as more arrives: a prompt, then the typed line's start. */
export function mayBecomeLateEcho(line: string, typedLine: string): boolean {
  const typed = typedLine.trim();
  if (typed.length === 0) return false;
  const text = line.trimEnd();
  for (let i = 1; i <= text.length; i++) {
    if (i < text.length && text[i] !== typed[0]) continue;
    const rest = text.slice(i);
    if (rest.length < typed.length && typed.startsWith(rest) && isPromptText(text.slice(0, i))) return true;
  }
  return false;
}

function isPromptText(prefix: string): boolean {
  return prefix.trim().length > 0 && looksLikePrompt(prefix);
}

/** A pending prompt at the end is held back this long for its echo (timed from the last output parsed). */
export const LATE_ECHO_HOLD_MS = 300;

/**
 * Text for `until` with late echoes blanked, while one is expected: once a late echo was seen, lines
 * before it are not looked at (unless `keepEarlier`: a reader's unread output from before the line
 * was typed is still output); a last line that may still become one (a prompt drawn, its echo
 * still coming) is held back until output has been quiet for LATE_ECHO_HOLD_MS.
 */
export class LateEchoFilter {
  private seen = false;
  constructor(
    private readonly typedLine: string,
    private readonly keepEarlier = false,
  ) {}

  /** Whether a late echo has been seen. */
  get echoed(): boolean {
    return this.seen;
  }

  /** `text` as `until` may see it, and whether its last line is held back (look again later). */
  filter(text: string, quietMs: number): { text: string; held: boolean } {
    const lines = text.split("\n");
    let from = 0;
    for (let i = 0; i < lines.length; i++) {
      if (!isLateEcho(lines[i]!, this.typedLine)) continue;
      this.seen = true;
      if (this.keepEarlier) lines[i] = "";
      else from = i + 1;
    }
    let kept = lines.slice(from);
    let held = false;
    const last = kept[kept.length - 1];
    if (!this.seen && last !== undefined && quietMs < LATE_ECHO_HOLD_MS && mayBecomeLateEcho(last, this.typedLine)) {
      kept = kept.slice(0, -1);
      held = true;
    }
    return { text: kept.join("\n"), held };
  }
}
