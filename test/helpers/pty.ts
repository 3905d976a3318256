/**
 * Driving a LocalBackend (a real PTY we own, a real program) without a session on top: for tests
 * of the backend itself. Output is kept as text (a bounded tail plus a running total) and waited
 * on with a pattern, never with a bare sleep.
 */
import { LocalBackend, type LocalSpawnOptions } from "../../src/backend/local/local-backend.ts";
import type { ExitInfo } from "../../src/backend/backend.ts";

/** How much recent output a probe keeps to match against. */
const TAIL_CHARS = 256 * 1024;

export class PtyProbe {
  readonly backend: LocalBackend;
  /** Recent output, latin1-decoded (bytes stay one char each). */
  tail = "";
  bytes = 0;
  exit: ExitInfo | null = null;
  private waiters: Array<() => void> = [];

  constructor(argv: string[], opts: Partial<LocalSpawnOptions> = {}) {
    this.backend = new LocalBackend({ argv, cwd: process.cwd(), env: probeEnv(), cols: 100, rows: 30, ...opts });
    this.backend.onData((data) => {
      this.bytes += data.length;
      this.tail = (this.tail + Buffer.from(data).toString("latin1")).slice(-TAIL_CHARS);
      this.wake();
    });
    this.backend.onExit((info) => {
      this.exit = info;
      this.wake();
    });
  }

  /** Forgets the output seen so far, so the next wait only sees what comes after. */
  clear(): void {
    this.tail = "";
  }

  /** Resolves with the match once `pattern` appears in the tail; rejects after `timeoutMs`. */
  async waitFor(pattern: RegExp, timeoutMs = 10_000): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = pattern.exec(this.tail);
      if (m) return m;
      const recent = JSON.stringify(this.tail.slice(-300));
      if (this.exit) throw new Error(`program exited (${this.exit.reason}) before ${pattern}; tail: ${recent}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${pattern}; tail: ${recent}`);
      await this.nextEvent(left);
    }
  }

  async exited(timeoutMs = 10_000): Promise<ExitInfo> {
    const deadline = Date.now() + timeoutMs;
    while (!this.exit) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("program did not exit");
      await this.nextEvent(left);
    }
    return this.exit;
  }

  /** Until the next output or exit, or `ms`. */
  private nextEvent(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** An interactive bash with no rc files and a prompt that shows the last exit status. */
export const BASH = ["/bin/bash", "--norc", "--noprofile", "-i"];

export function probeEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    PS1: "[rc=$?]$ ",
    HISTFILE: "/dev/null",
    PTYHUB_TEST_RUN: process.env.PTYHUB_TEST_RUN ?? "",
    ...extra,
  };
}
