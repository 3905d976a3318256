/**
 * Commands that would switch off the guard's look at what bash is about to run (the DEBUG trap in
 * src/terminal/shell-scripts.ts): refused like a destructive command, since the rest of the line
 * would run unjudged. Reading the hooks (`declare -f __ptyhub_precmd`, `"$__ptyhub_nonce"`) is no
 * reason to refuse: it changes nothing, and the end marks are checked by the kernel anyway.
 */
import type { Finding } from "./classify.ts";
import { VERDICT_FD } from "../terminal/shell-scripts.ts";

export const TAMPERING_FINDING: Finding = {
  rule: "guard-evasion",
  reason: "it would switch off the guard's check of the commands the shell runs",
};

/** `trap … DEBUG` other than printing it (`trap -p`): removes or replaces our trap. */
const DEBUG_TRAP = /\btrap\b(?![ \t]+-p\b)[^\n]*\bDEBUG\b/;
const TRACE_OPTIONS = /extdebug|promptvars|functrace/;
/** A `shopt` or `set` command up to the end of its simple command. */
const OPTION_COMMAND = /\b(shopt|set)\b([^\n;&|]*)/g;
/** An option cluster that unsets: shopt's `-u`, `-qu`, `-uo`; set's `+T`, `+eT`, `+o`. */
const SHOPT_UNSETS = /(^|[ \t])-[a-zA-Z]*u/;
const SET_UNSETS = /(^|[ \t])\+[a-zA-Z]*[To]/;
/** set's own letter for functrace, in any `+` cluster. */
const SET_FUNCTRACE_OFF = /(^|[ \t])\+[a-zA-Z]*T/;
/** Quotes, expansions and globs: the option name the shell ends up with is not the text's. */
const NOT_LITERAL = /[$`*?[\\]/;

/**
 * extdebug lets the trap skip a command; functrace carries it into functions and subshells;
 * promptvars lets the prompts reset the hook's state at each line. Any spelling that unsets one:
 * `shopt -qu extdebug`, `shopt -u ext'debug'`, `o=extdebug; shopt -u $o` (bash reports the
 * command unexpanded), `set +eT`; an unset whose option name is not plain text counts as one.
 */
function traceOff(text: string): boolean {
  for (const [, verb, rest = ""] of text.matchAll(OPTION_COMMAND)) {
    if (!(verb === "shopt" ? SHOPT_UNSETS : SET_UNSETS).test(rest)) continue;
    if (verb === "set" && SET_FUNCTRACE_OFF.test(rest)) return true;
    const unquoted = rest.replace(/['"]/g, "");
    if (TRACE_OPTIONS.test(unquoted) || NOT_LITERAL.test(rest)) return true;
  }
  return false;
}
/** An assignment to one of our variables (`__ptyhub_in_prompt=1` would make the trap wave all through). */
const OUR_ASSIGNMENT = /(^|[\s;&|(])__ptyhub_\w*(\[[^\]]*\])?\+?=/;
/** Builtins that set, unset or change the attributes of the names they are given. */
const NAME_WRITERS = /\b(unset|declare|typeset|local|readonly|export|read|mapfile|readarray|printf|let|getopts)\b/;
/** `declare -f`/`-F`/`-p` only print: the forms that read a hook's text. */
const PRINT_ONLY = /\b(declare|typeset)[ \t]+-[fFp]+([ \t]|$)(?![^\n]*[ \t]-[a-zA-Z]*[^fFp\s])/;
/**
 * POSIXLY_CORRECT made read-only (or a name for it): bash's hooks turn POSIX mode on by assigning
 * it, so that `unset` beats any function of the user's named like a builtin they call.
 */
const POSIX_PINNED = /\b(readonly|declare|typeset|local)\b[^\n]*\bPOSIXLY_CORRECT\b/;
/** Builtins switched off or loaded (`enable -n read` would leave the trap's read to a program). */
const ENABLE = /(^|[\s;&|(])enable\b/;
/**
 * bash's variables the check relies on: unset, they lose their meaning and become assignable
 * (BASH_COMMAND would name a harmless command, FUNCNAME one of our hooks).
 */
const SPECIALS_UNSET = /\bunset\b[^\n]*\b(BASH_COMMAND|FUNCNAME|SRANDOM|BASH_SUBSHELL)\b/;
/**
 * A redirection onto the verdict channel or its turn pipe (VERDICT_FD and the two below it), or
 * one that closes a descriptor named by a variable.
 */
const CHANNEL = new RegExp(`(^|[^0-9])(${VERDICT_FD}|${VERDICT_FD - 1}|${VERDICT_FD - 2})[<>]|\\{\\w+\\}[<>]&-`);

/** The finding for a command text that would tamper with the check, or null. */
export function hookTampering(text: string): Finding | null {
  const patterns = [DEBUG_TRAP, ENABLE, CHANNEL, SPECIALS_UNSET, OUR_ASSIGNMENT, POSIX_PINNED];
  if (patterns.some((pattern) => pattern.test(text)) || traceOff(text)) return TAMPERING_FINDING;
  if (text.includes("__ptyhub_") && NAME_WRITERS.test(text) && !PRINT_ONLY.test(text)) return TAMPERING_FINDING;
  return null;
}
