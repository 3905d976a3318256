/**
 * Job notices: what an interactive shell prints on its own when a background job ends or stops.
 *   bash, sh   [1]+  Done                    sleep 1      [2]-  Exit 3     false
 *   zsh        [1]  + done       sleep 1                  [1]  + terminated  sleep 10
 *   fish       fish: Job 1, 'sleep 1 &' has ended        (after a blank line of its own)
 * The shell prints them when it notices, which is usually in the middle of whatever command runs
 * next (bash and zsh as soon as one of its foreground jobs finishes, fish before its prompt
 * event): they belong to neither command, so term_exec takes them out of the output and reports
 * them on their own. What the shell prints when a job starts (`[1] 12345`) is the answer to the
 * `&` command and stays its output; so does `jobs`, whose whole output is the job table.
 * A command's own output that happens to look exactly like a notice is moved, never lost.
 */
import type { Item, Line } from "./render.ts";
import type { ShellFamily } from "./shell-integration.ts";
import { shellDescriptor } from "./shells/all-shells.ts";

/** Commands whose own output is the job table (`jobs`, `jobs -l`, `builtin jobs`). */
const LISTS_JOBS = /^\s*(?:builtin\s+|command\s+)?jobs\b/;

export interface SplitNotices {
  items: Item[];
  notices: string[];
}

/** Takes the shell's job notices out of a command's output items (see the module comment). */
export function splitJobNotices(items: Item[], family: ShellFamily | null, command: string): SplitNotices {
  // Each shell's own notice (its descriptor); Windows shells print none.
  const shell = shellDescriptor(family);
  const pattern = shell?.jobNotice ?? null;
  if (!pattern || LISTS_JOBS.test(command)) return { items, notices: [] };
  const notices: string[] = [];
  const kept: Item[] = [];
  for (const item of items) {
    if ("gap" in item || !pattern.test(item.text)) {
      kept.push(item);
      continue;
    }
    notices.push(item.text.replace(/\s+$/, ""));
    // fish opens its notice with a blank line of its own: that line goes with it.
    const before = kept[kept.length - 1];
    if (shell?.noticeAfterBlankLine && before && isBlank(before)) kept.pop();
  }
  return notices.length > 0 ? { items: kept, notices } : { items, notices };
}

function isBlank(item: Item): item is Line {
  return !("gap" in item) && item.text.trim() === "";
}
