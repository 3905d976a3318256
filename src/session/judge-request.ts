/**
 * The shell's question before it runs a command of a line it accepted (a J mark; the guard's
 * answer is src/guard/accepted-line.ts): the command's text and the two words the shell waits for
 * on its private channel, one meaning it may run, the other that it may not.
 */
import { parseMark } from "../terminal/shell-integration.ts";
import { Emitter } from "../util/emitter.ts";
import { QuestionCutter } from "./question-marks.ts";

export interface JudgeRequest {
  text: string;
  yes: string;
  no: string;
}

/**
 * The line that carries the verdict to the shell, on the verdict channel (bash reads it on
 * VERDICT_FD, zsh on a descriptor of its own, fish on NONCE_FD).
 */
export function verdictLine(request: JudgeRequest, allowed: boolean): string {
  return `${allowed ? request.yes : request.no}\n`;
}

/**
 * A session's side of the conversation: the questions cut out of the output (question-marks.ts)
 * or parsed as marks, told to whoever judges them (src/guard/accepted-line.ts).
 */
export class ShellQuestions {
  private readonly listeners = new Emitter<JudgeRequest>();
  private readonly cutter: QuestionCutter;

  constructor(
    private readonly nonce: string,
    /** Sends a verdict line to the shell on its private channel. */
    private readonly send: (line: string) => void,
  ) {
    this.cutter = new QuestionCutter(nonce);
  }

  /** The guard's verdict on `request`, to the shell that waits for it. */
  answer(request: JudgeRequest, allowed: boolean): void {
    this.send(verdictLine(request, allowed));
  }

  on(listener: (request: JudgeRequest) => void): () => void {
    return this.listeners.on(listener);
  }

  /**
   * A J mark's fields, as parseMark gave them. With no judge attached (a host without the guard:
   * ptyhub doctor's probes, a session manager used on its own) nothing decides against the
   * command, so it may run at once; else the shell would wait out its bound and refuse it.
   */
  asked(mark: { text: string; yes: string; no: string }): void {
    const request = { text: mark.text, yes: mark.yes, no: mark.no };
    if (this.listeners.listened) this.listeners.emit(request);
    else this.answer(request, true);
  }

  /** The output without the whole questions in it, each of them asked. */
  takeFrom(output: Uint8Array): Uint8Array {
    const cut = this.cutter.cut(output);
    if (!cut) return output;
    for (const payload of cut.payloads) {
      const mark = parseMark(payload, this.nonce);
      if (mark?.kind === "judge") this.asked(mark);
    }
    return cut.rest;
  }

  clear(): void {
    this.listeners.clear();
  }
}
