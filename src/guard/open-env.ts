/**
 * term_open's `env` can run code before any command: bash runs `PROMPT_COMMAND` and expands
 * `$(…)` in `PS0`–`PS4` at every prompt, imports `BASH_FUNC_name%%` as functions, and sources
 * the files `BASH_ENV`, `ENV` and `$ZDOTDIR/.zshenv` name. The first kinds are shell text, judged
 * as lines; the files and loader hooks (`LD_PRELOAD`, `NODE_OPTIONS`, …) cannot be read here, so
 * the human is asked (rule `startup-env`).
 */
import type { GuardRuleId } from "../config/guard-rule-ids.ts";

export const STARTUP_ENV_RULE: GuardRuleId = "startup-env";

/** Variables whose value is shell text the shell runs. */
const SHELL_TEXT = /^(PROMPT_COMMAND|PS[0-4]|PROMPT|RPROMPT|RPS1|PROMPT2|PROMPT3|PROMPT4)$/;
/** bash's exported functions: `BASH_FUNC_name%%=() { …; }`. */
const EXPORTED_FUNCTION = /^BASH_FUNC_(.+?)(%%|\(\))$/;
/** Variables that make a shell or an interpreter load code from elsewhere first. */
const LOADS_CODE = new Set([
  ...["BASH_ENV", "ENV", "ZDOTDIR", "LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "PERL5OPT", "RUBYOPT"],
  ...["NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONINSPECT", "SHELLOPTS", "BASHOPTS", "PROMPT_SUBST"],
]);

export interface EnvReading {
  /** Shell lines the environment makes the shell run. */
  lines: string[];
  /** Why the rest cannot be judged (names a file or hook the guard cannot read). */
  unreadable: string[];
  /** The variables read, as `env NAME=value`, for the human's question. */
  shown: string[];
}

export function readOpenEnv(env: Record<string, string> | undefined): EnvReading {
  const lines: string[] = [];
  const unreadable: string[] = [];
  const shown: string[] = [];
  for (const [name, value] of Object.entries(env ?? {})) {
    const fn = EXPORTED_FUNCTION.exec(name);
    if (fn || SHELL_TEXT.test(name) || LOADS_CODE.has(name)) shown.push(`env ${name}=${value}`);
    if (fn) lines.push(`${fn[1]}${value}`);
    // A prompt is not run, but its `$(…)` and backticks are: the value is parsed as a line's words.
    else if (SHELL_TEXT.test(name)) lines.push(name === "PROMPT_COMMAND" ? value : `: ${value}`);
    // Set empty, it names nothing to load (PYTHONSTARTUP="" keeps a user's startup file out).
    else if (LOADS_CODE.has(name) && value !== "") {
      unreadable.push(`env ${name}=${value.slice(0, MAX_SHOWN)} makes the program load code the guard cannot read`);
    }
  }
  return { lines, unreadable, shown };
}

/** How much of a value a reason shows. */
const MAX_SHOWN = 80;
