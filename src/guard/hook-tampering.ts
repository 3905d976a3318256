/**
 * Commands that would switch off the guard's look at what the shell is about to run (bash's and
 * zsh's DEBUG trap, fish's Enter binding and fish_preexec handler: src/terminal/shells/): refused
 * like a destructive command, since the rest of the line would run unjudged. Reading the hooks
 * (`declare -f __ptyhub_precmd`, `"$__ptyhub_nonce"`) is no reason to refuse: it changes nothing,
 * and the end marks are checked by the kernel anyway.
 */
import type { Finding } from "./classify.ts";
import { VERDICT_FD } from "../terminal/shell-scripts.ts";
import { parseShellLine, type ParsedLine } from "./parse.ts";

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
/** zsh: TRAPDEBUG, whose definition replaces the trap. */
const ZSH_TRAP_REPLACED = /\bTRAPDEBUG\b/;
/**
 * zsh: the option that runs the trap before a command (after it, the trap could skip nothing).
 * Option names ignore case and underscores: `NO_DEBUG_BEFORE_CMD`, `nodebugbeforecmd`.
 */
const ZSH_TRACE_OPTION = "debugbeforecmd";
/**
 * fish: a binding or a function that executes the line itself, not through our Enter binding
 * (`bind \cg execute`, `commandline -f execute`), and `block`, which holds back the event handler
 * that asks about such a line.
 */
const FISH_EXECUTE = /\b(bind|commandline)\b[^\n]*\bexecute\b|(^|[\s;&|(])block\b/;
/** A definition of one of our hooks (zsh `__ptyhub_judge() {…}`, fish `function __ptyhub_enter`). */
const OUR_DEFINITION = /\b__ptyhub_\w*[ \t]*\([ \t]*\)|\bfunction[ \t]+__ptyhub_|\bfunctions\[[^\]]*__ptyhub_/;
/** An assignment to one of our variables (`__ptyhub_in_prompt=1` would make the trap wave all through). */
const OUR_ASSIGNMENT = /(^|[\s;&|(])__ptyhub_\w*(\[[^\]]*\])?\+?=/;
/** Builtins that set, unset or change the attributes of the names they are given. */
const NAME_WRITERS = new Set(
  ["unset", "declare", "typeset", "local", "readonly", "export", "read", "mapfile", "readarray", "printf"].concat([
    "let",
    "getopts",
    "unfunction",
    "unhash",
    "set",
  ]),
);
/** `declare -f`/`-F`/`-p` only print: the forms that read a hook's text. */
const PRINT_ONLY_BUILTINS = new Set(["declare", "typeset"]);
const PRINT_ONLY_OPTION = /^-[fFp]+$/;
/** Words before a builtin that still run it (`builtin unset …`). */
const RUNS_BUILTIN = new Set(["builtin", "command"]);
/** A read of one of our variables (`$__ptyhub_nonce`, `${__ptyhub_nonce}`): reading changes nothing. */
const OUR_EXPANSION = /\$\{?__ptyhub_\w*/g;

/**
 * A simple command of the line, in it or nested, that writes one of our names: a name writer
 * given `__ptyhub_…` as written (not `$__ptyhub_…`, a read), other than the print-only forms. Per
 * command: zsh and fish judge a whole line, where a read may sit beside a `set` of another name.
 */
function writesOurName(parsed: ParsedLine): boolean {
  return parsed.pipelines.some((pipeline) =>
    pipeline.some((command) => {
      const argv = RUNS_BUILTIN.has(command.argv[0] ?? "") ? command.argv.slice(1) : command.argv;
      const [name = "", ...args] = argv;
      if (NAME_WRITERS.has(name) && args.some((a) => a.replace(OUR_EXPANSION, "").includes("__ptyhub_"))) {
        const options = args.filter((a) => a.startsWith("-"));
        const printOnly =
          PRINT_ONLY_BUILTINS.has(name) && options.length > 0 && options.every((o) => PRINT_ONLY_OPTION.test(o));
        if (!printOnly) return true;
      }
      return command.nested.some(writesOurName);
    }),
  );
}

/** fish's and zsh's `functions` erasing or copying over one of ours (printing it is reading). */
const FUNCTIONS_CHANGED = /\bfunctions\b[^\n]*[ \t](-e|--erase|-c|--copy)\b[^\n]*__ptyhub_/;
/**
 * POSIXLY_CORRECT made read-only (or a name for it): bash's hooks turn POSIX mode on by assigning
 * it, so that `unset` beats any function of the user's named like a builtin they call.
 */
const POSIX_PINNED = /\b(readonly|declare|typeset|local)\b[^\n]*\bPOSIXLY_CORRECT\b/;
/** Builtins switched off or loaded (`enable -n read` would leave the trap's read to a program). */
const ENABLE = /(^|[\s;&|(])(enable|disable)\b/;
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
  const patterns = [
    DEBUG_TRAP,
    ENABLE,
    CHANNEL,
    SPECIALS_UNSET,
    OUR_ASSIGNMENT,
    ZSH_TRAP_REPLACED,
    FISH_EXECUTE,
    OUR_DEFINITION,
    FUNCTIONS_CHANGED,
    POSIX_PINNED,
  ];
  if (patterns.some((pattern) => pattern.test(text)) || traceOff(text)) return TAMPERING_FINDING;
  if (text.replace(/_/g, "").toLowerCase().includes(ZSH_TRACE_OPTION)) return TAMPERING_FINDING;
  if (text.includes("__ptyhub_") && writesOurName(parseShellLine(text))) return TAMPERING_FINDING;
  return null;
}
