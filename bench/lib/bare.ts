/**
 * The physical limit: a bash in a PTY from Bun.spawn's terminal option, no MCP, no emulator. A
 * command is done when the (unique) prompt appears after the command's output, which is exact
 * for an interactive bash: readline prints PS1 only once the command has finished.
 */
import type { Subprocess } from "bun";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv } from "./env.ts";
import { awaitGone, killAll, SERVER_VAR } from "./procs.ts";

const PROMPT = "__BARE_PROMPT__> ";

interface Waiter {
  expect: string;
  resolve: () => void;
}

export class BareShell {
  private readonly proc: Subprocess;
  private readonly tag: string;
  private tail = "";
  private waiter: Waiter | null = null;
  /** Bytes received over the shell's life. */
  bytes = 0;

  private constructor(cols: number, rows: number) {
    const iso = isolatedEnv("bare", { PS1: PROMPT, PS2: "", HISTFILE: "/dev/null" });
    this.tag = iso.env[SERVER_VAR]!;
    // Bracketed-paste toggles would sit between the output and the prompt: turn them off.
    const inputrc = join(iso.home, ".inputrc");
    writeFileSync(inputrc, "set enable-bracketed-paste off\n");
    iso.env.INPUTRC = inputrc;
    this.proc = Bun.spawn(["/bin/bash", "--noprofile", "--norc", "-i"], {
      cwd: iso.home,
      env: iso.env,
      terminal: {
        cols,
        rows,
        data: (_term, data) => this.onData(data),
      },
    });
  }

  static async open(cols = 120, rows = 40): Promise<BareShell> {
    const sh = new BareShell(cols, rows);
    await sh.waitFor(PROMPT, 10_000);
    // Interactive bash prints its prompt once more after this no-op: start from a quiet state.
    await sh.run(":", "", 10_000);
    return sh;
  }

  private onData(data: Uint8Array): void {
    this.bytes += data.length;
    // Only the tail matters for detection: keep it short so floods cost nothing here.
    this.tail = (this.tail + Buffer.from(data.subarray(Math.max(0, data.length - 256))).toString("latin1")).slice(-256);
    const w = this.waiter;
    if (w && this.tail.endsWith(w.expect)) {
      this.waiter = null;
      w.resolve();
    }
  }

  private waitFor(expect: string, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(
          new Error(
            `bare PTY: no ${JSON.stringify(expect)} within ${timeoutMs} ms (tail ${JSON.stringify(this.tail.slice(-80))})`,
          ),
        );
      }, timeoutMs);
      this.waiter = {
        expect,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      if (this.tail.endsWith(expect)) {
        this.waiter = null;
        clearTimeout(timer);
        resolve();
      }
    });
  }

  /**
   * Types `command` and waits until its output ends with `lastLine` followed by the prompt.
   * Returns the milliseconds from the write to that moment.
   */
  async run(command: string, lastLine: string, timeoutMs = 60_000): Promise<number> {
    this.tail = "";
    const expect = lastLine ? `${lastLine}\r\n${PROMPT}` : PROMPT;
    const t0 = performance.now();
    const done = this.waitFor(expect, timeoutMs);
    this.proc.terminal!.write(command + "\r");
    await done;
    return performance.now() - t0;
  }

  /** Starts a command without waiting (a flood); output is counted and dropped. */
  start(command: string): void {
    this.tail = "";
    this.proc.terminal!.write(command + "\r");
  }

  interrupt(): void {
    this.proc.terminal!.write("\x03");
  }

  async close(): Promise<void> {
    try {
      this.proc.terminal?.close();
    } catch {
      // Already closed.
    }
    this.proc.kill("SIGKILL");
    killAll(await awaitGone(SERVER_VAR, this.tag, 500));
  }
}
