/**
 * A scripted backend: completion logic tested without real shells and without sleeps. The test
 * says what the "shell" prints, marks included (`mark("D;0;/tmp")`), either at once or in answer
 * to what is typed (`onInput`). Output is delivered synchronously, so a mark written in answer to
 * a write is parsed before the writer's wait even starts.
 */
import type { Backend, ExitInfo, TtyModes } from "../../src/backend/backend.ts";
import { BackendSinks } from "../../src/backend/backend.ts";
import { Session } from "../../src/session/session.ts";
import { OSC_MARK_ID, type Integration, type ShellFamily } from "../../src/terminal/shell-integration.ts";

export const FAKE_NONCE = "fakenonce";

/** The bytes of one shell-integration mark, e.g. mark("D;0;/tmp"). */
export function mark(body: string): string {
  return `\x1b]${OSC_MARK_ID};${FAKE_NONCE};${body}\x07`;
}

/** A prompt as the integration scripts draw it: end of the last command, prompt start, prompt, ready. */
export function prompt(exitCode = 0, text = "$ "): string {
  return mark(`D;${exitCode};/tmp`) + mark("A") + text + mark("B");
}

export class FakeBackend implements Backend {
  readonly kind = "local" as const;
  readonly pid = null;
  /** Everything written to the "terminal", in order. */
  readonly written: string[] = [];
  /** Answers typed input (called after it is recorded). */
  onInput: ((input: string) => void) | null = null;
  private readonly sinks = new BackendSinks();
  private exitInfo: ExitInfo | null = null;

  onData(sink: (data: Uint8Array) => void): void {
    this.sinks.onData(sink);
  }
  onExit(sink: (info: ExitInfo) => void): void {
    this.sinks.onExit(sink);
  }
  write(data: string | Uint8Array): void {
    const text = typeof data === "string" ? data : new TextDecoder().decode(data);
    this.written.push(text);
    this.onInput?.(text);
  }
  resize(): void {}
  /** The program prints `text`. */
  emit(text: string): void {
    this.sinks.data(new TextEncoder().encode(text));
  }
  /** The program exits. */
  exit(exitCode: number): void {
    this.exitInfo = { exitCode, signal: null, reason: "exited" };
    this.sinks.exited(this.exitInfo);
  }
  close(): Promise<ExitInfo> {
    if (!this.exitInfo) this.exit(129);
    return Promise.resolve(this.exitInfo!);
  }
  ttyModes(): TtyModes | null {
    return { echo: true, canonical: false };
  }
}

/** A session over a fake backend, already at its first prompt. */
export function fakeSession(opts: { integration?: Integration; family?: ShellFamily } = {}): {
  session: Session;
  fake: FakeBackend;
} {
  const fake = new FakeBackend();
  const session = new Session({
    id: "fake",
    kind: "local",
    target: "fake shell",
    backend: fake,
    cols: 80,
    rows: 24,
    integration: opts.integration ?? "shell",
    family: opts.family ?? "bash",
    nonce: FAKE_NONCE,
    persistent: false,
  });
  fake.emit(mark("A") + "$ " + mark("B"));
  return { session, fake };
}
