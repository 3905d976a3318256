/**
 * The one polling helper of the tests: a barrier on observable state (a file, a screen, a log
 * line, a process gone), never a fixed sleep. And `alive`, the process check most barriers ask.
 */
import { readFileSync } from "node:fs";

/** The first re-check comes soon (most conditions hold quickly); later ones back off to this. */
const FIRST_POLL_MS = 5;
const MAX_POLL_MS = 100;

type Truthy<T> = Exclude<T, null | undefined | false>;

/**
 * Re-checks `probe` until it returns a value (anything but null/undefined/false), and returns it;
 * after `ms` fails with "timed out waiting for <what>" (`what` may be a function, to describe the
 * state at that moment: a screen, a log).
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  ms: number,
  what: string | (() => string | Promise<string>),
): Promise<Truthy<T>> {
  const deadline = Date.now() + ms;
  let delay = FIRST_POLL_MS;
  for (;;) {
    const v = await probe();
    if (v !== null && v !== undefined && v !== false) return v as Truthy<T>;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${typeof what === "string" ? what : await what()}`);
    await Bun.sleep(delay);
    delay = Math.min(delay * 2, MAX_POLL_MS);
  }
}

/** Whether `pid` is a live process (a zombie is dead for our purposes: its parent reaps it). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    // No /proc (macOS): kill(0) said it is there.
    return process.platform !== "linux";
  }
}
