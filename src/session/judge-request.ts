/**
 * The shell's question before it runs a command of a line it accepted (a J mark; the guard's
 * answer is src/guard/accepted-line.ts): the command's text and the two words the shell waits for
 * on its private channel, one meaning it may run, the other that it may not.
 */
export interface JudgeRequest {
  text: string;
  yes: string;
  no: string;
}

/** The line that carries the verdict to the shell (bash reads it from VERDICT_FD). */
export function verdictLine(request: JudgeRequest, allowed: boolean): string {
  return `${allowed ? request.yes : request.no}\n`;
}
