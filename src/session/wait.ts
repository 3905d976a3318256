/**
 * Waiting on a session without polling: a check runs on every change (output parsed, mark,
 * exit). It returns a verdict, or asks to be asked again after some quiet time (for "the prompt
 * has been stable for 50 ms"), or nothing. The deadline and the caller's cancellation end it.
 */
import type { Session } from "./session.ts";
import { CancelledError } from "../api/errors.ts";

/** `retryInMs: 0` asks for the next event-loop turn (after pending I/O), not a 1 ms timer. */
export type CheckResult<T> = { done: T } | { retryInMs: number } | null;
export type Check<T> = () => CheckResult<T>;

export interface WaitOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Next-turn looks in a row before a look waits at least a millisecond: a check that keeps asking
 * for 0 then polls at timer pace instead of spinning the event loop.
 */
const NEXT_TURN_LOOKS_IN_A_ROW = 2;

/** Resolves with the check's verdict, or "timeout" at the deadline. Rejects when cancelled. */
export function waitFor<T>(session: Session, check: Check<T>, opts: WaitOptions): Promise<T | "timeout"> {
  return new Promise<T | "timeout">((resolve, reject) => {
    let settled = false;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let nextTurn: ReturnType<typeof setImmediate> | undefined;
    let nextTurnsInARow = 0;
    const cancelRetry = () => {
      clearTimeout(retryTimer);
      if (nextTurn !== undefined) clearImmediate(nextTurn);
      nextTurn = undefined;
    };
    let deadlineTimer: ReturnType<typeof setTimeout> | undefined;
    const cleanup = () => {
      settled = true;
      unsubscribe();
      cancelRetry();
      clearTimeout(deadlineTimer);
      opts.signal?.removeEventListener("abort", onAbort);
    };
    const evaluate = () => {
      if (settled) return;
      let result: CheckResult<T>;
      try {
        result = check();
      } catch (err) {
        cleanup();
        reject(err);
        return;
      }
      cancelRetry();
      if (result === null) return;
      if ("done" in result) {
        cleanup();
        resolve(result.done);
        return;
      }
      if (result.retryInMs <= 0 && nextTurnsInARow < NEXT_TURN_LOOKS_IN_A_ROW) {
        nextTurnsInARow++;
        nextTurn = setImmediate(evaluate);
        return;
      }
      nextTurnsInARow = 0;
      retryTimer = setTimeout(evaluate, Math.max(1, result.retryInMs));
    };
    const onAbort = () => {
      if (settled) return;
      cleanup();
      reject(new CancelledError());
    };
    const unsubscribe = session.onChange(evaluate);
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener("abort", onAbort);
    deadlineTimer = setTimeout(
      () => {
        if (settled) return;
        // One last look, so a verdict that is due right now is not reported as a timeout.
        evaluate();
        if (settled) return;
        cleanup();
        resolve("timeout");
      },
      Math.max(0, opts.timeoutMs),
    );
    evaluate();
  });
}
