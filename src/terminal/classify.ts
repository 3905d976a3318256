/**
 * What is the session waiting for? Classifies the visible state into the SPEC's `state` values:
 * prompt | password | confirm | pager | reading | running | exited (the session adds `continuation`
 * from its shell's marks, see session.ts). Sources, most reliable first: process
 * exit; shell-integration phase; the tty's own mode (echo off while in canonical mode is how
 * getpass(), sudo, ssh and `read -s` read a secret); then the text before the cursor; last, what
 * the kernel says the foreground program sleeps in (reading the terminal, with no text to say why).
 */
import type { z } from "zod";
import type { stateEnum } from "../api/fields.ts";
import { shellFamilyOf } from "./shell-integration.ts";

/**
 * A session's state, as the tools report it (src/api/fields.ts). `reconnecting`: a remote persistent
 * session whose link dropped (never from classify() itself).
 */
export type SessionState = z.output<typeof stateEnum>;

export interface ClassifyInput {
  exited: boolean;
  /** Shell integration's verdict: true at the prompt, false running a command, null unknown. */
  atShellPrompt: boolean | null;
  /** Text on the cursor's row before the cursor. */
  beforeCursor: string;
  /** The cursor is on the last row of the screen (where pagers put their status line). */
  cursorOnLastRow: boolean;
  altScreen: boolean;
  /** tty local modes, when the backend can see them (local PTYs). */
  tty?: { echo: boolean; canonical: boolean } | null;
  /** Programs in the terminal's foreground process group (asked only when text is not enough). */
  foreground?: () => string[];
  /**
   * The kernel says the foreground program is blocked reading the terminal; absent where it cannot
   * say (only local sessions on Linux can).
   */
  waitsForTty?: () => boolean;
}

/** Pager programs: when one owns the terminal and waits at its status line, the state is "pager". */
const PAGERS = new Set(["less", "more", "most", "pg"]);

const PASSWORD_RE = /(pass(word|phrase|code)|\bpin\b|one-time code|verification code|\botp\b)[^\n]{0,60}[:?]\s*$/i;
const CONFIRM_RE = new RegExp(
  String.raw`(\[(y\/n|yes\/no)\]|\((y\/n|yes\/no)\)|\[y\/n\/[^\]]*\]|\byes\/no\b[^\n]*\?|` +
    String.raw`\b(continue|proceed|overwrite|are you sure)\b[^\n]*\?)\s*:?\s*$`,
  "i",
);
const PAGER_RE = new RegExp(
  String.raw`^(:|\(END\)|--More--.*|.*\(press h for help or q to quit\)|lines \d+-\d+.*|` +
    String.raw`Manual page .*|HELP -- .*|byte \d+.*|\S*\s*\(END\))\s*$`,
);
/**
 * Prompts of REPLs and shells without integration: ">>> ", "... ", "$ ", "# ", "> ", "(gdb) ",
 * "In [3]: ", "mysql> ", "db=# ".
 */
const PROMPT_RE = /(^|\s|\S)(>>>|\.\.\.|[$#%>❯➜»λ]|In \[\d+\]:|\([A-Za-z][\w-]*\)|[\w.-]+=?[#>])\s?$/;

/**
 * A REPL's prompt at the start of a line with typed text after it: ">>> print(", "... ",
 * "127.0.0.1:6379> SET k", "postgres=# SELE", "sqlite> .ta", or blanks only (python's tab on an
 * empty line indents by four). Believed only where the kernel says a line editor (raw mode) reads
 * the terminal, since any output line could start like this.
 */
const PROMPT_THEN_TEXT_RE = /^(>>>|\.\.\.|In \[\d+\]:|[\w.:@/~-]*[=\-(*]?[#>$%])\s/;

export function isPasswordPrompt(text: string): boolean {
  return PASSWORD_RE.test(text);
}

export function isConfirmPrompt(text: string): boolean {
  return CONFIRM_RE.test(text);
}

/**
 * "More" prompts are pagers wherever the cursor is: a device on a serial line pages by its own
 * idea of the screen (often 24 rows), not ours. busybox/util-linux more, Cisco IOS " --More-- ",
 * Junos "---(more 45%)---".
 */
const MORE_RE = /^\s*(--More--|-+\(more( \d+%)?\)-+)/i;

export function isMorePrompt(text: string): boolean {
  return MORE_RE.test(text);
}

export function isPagerStatus(text: string): boolean {
  return PAGER_RE.test(text);
}

/** Progress output such as "50%" or "[====>   ] 80%" is not a zsh-style "%" prompt. */
const PERCENT_PROGRESS_RE = /\d%\s?$/;

export function looksLikePrompt(text: string): boolean {
  return text.trim().length > 0 && PROMPT_RE.test(text) && !PERCENT_PROGRESS_RE.test(text);
}

/** The foreground programs are all shells (dash at its prompt; not `cat` under a shell prompt's text). */
function onlyShells(names: readonly string[]): boolean {
  return names.length > 0 && names.every((n) => shellFamilyOf(n) !== null);
}

export function classify(i: ClassifyInput): SessionState {
  if (i.exited) return "exited";
  if (i.atShellPrompt === true) return "prompt";
  const before = i.beforeCursor;
  // The kernel's answer costs a /proc scan: asked at most once.
  const ask = i.waitsForTty;
  let waits: boolean | undefined;
  const waitsForTty = ask && (() => (waits ??= ask()));
  // Echo off in canonical mode, but only once the program reads: `stty -echo; make` works with
  // echo off, and ssh turns echo off before it prints its question (issue 21: an `input` with an
  // empty output under load). Where the kernel cannot say, the mode alone.
  if (i.tty && !i.tty.echo && i.tty.canonical && (waitsForTty?.() ?? true)) return "password";
  if (isPasswordPrompt(before)) return "password";
  if (isConfirmPrompt(before)) return "confirm";
  if ((i.cursorOnLastRow && isPagerStatus(before)) || isMorePrompt(before)) return "pager";
  // A pager's status line above the last row: less on a short text (python's help()), "(END)"
  // on the row after it. Only with a pager in the foreground: "(END)" also looks like "(gdb)".
  const pagerRunning = () => i.foreground?.().some((name) => PAGERS.has(name)) ?? false;
  if (i.altScreen && isPagerStatus(before) && pagerRunning()) return "pager";
  if (looksLikePrompt(before)) return "prompt";
  if ((i.cursorOnLastRow || i.altScreen) && pagerRunning()) return "pager";
  if (waitsForTty?.()) {
    // A line editor with text typed after its prompt (after a tab completion, say).
    if (i.tty && !i.tty.canonical && PROMPT_THEN_TEXT_RE.test(before)) return "prompt";
    // A shell without a line editor (dash) reads its command line in the tty's canonical mode.
    if (PROMPT_THEN_TEXT_RE.test(before) && onlyShells(i.foreground?.() ?? [])) return "prompt";
    // No text says why, but the program waits for keys (cat, `read x`, a full-screen program).
    return "reading";
  }
  return "running";
}
