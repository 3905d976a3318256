/** The shell's marks as a session records them, and the commands they delimit (session.ts keeps them). */
import type { Pos } from "../terminal/emulator.ts";
import type { HeadCapture } from "../terminal/history.ts";

/**
 * Where a shell is, per its marks: starting (no prompt yet), at its prompt, running a command, or
 * at a continuation prompt (PS2: waiting for the rest of an unfinished command line).
 */
export type Phase = "starting" | "prompt" | "running" | "continuation";

export interface MarkRecord {
  seq: number;
  kind: "prompt" | "ready" | "start" | "end" | "continuation";
  pos: Pos;
  exitCode: number | null;
  cwd: string | null;
  /** When the mark was parsed (Date.now()). */
  at: number;
}

/** A command seen through shell integration: from its start mark to its end mark. */
export interface CommandRecord {
  startSeq: number;
  start: Pos;
  end: Pos | null;
  /** The end mark's sequence number: a reader who read after it was told the exit code. */
  endSeq: number | null;
  /**
   * The kernel agreed that the shell was back at its prompt after the end mark (end-agreement.ts),
   * or the session has no kernel to ask. Until then a later end mark replaces it: the first may
   * have been forged by the command.
   */
  endConfirmed: boolean;
  exitCode: number | null;
  capture: HeadCapture;
}

/** What resource subscribers are told about: a command finished, or the session ended. */
