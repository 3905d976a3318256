/**
 * The commands bash, zsh and fish report before they run them that would switch the guard's look off
 * (src/guard/hook-tampering.ts), and the near misses that only read the hooks or look alike.
 */
import { describe, expect, test } from "bun:test";
import { hookTampering } from "../../src/guard/hook-tampering.ts";

describe("hook tampering", () => {
  const refused = [
    "trap - DEBUG",
    "trap '' DEBUG",
    "builtin trap 'echo hi' DEBUG",
    "shopt -u extdebug",
    "shopt -qu extdebug",
    "shopt -u ext'debug'",
    'shopt -u "extdebug"',
    "o=extdebug; shopt -u $o",
    "shopt -u ext*",
    "shopt -uo functrace",
    "set +eT",
    "set +o $f",
    "declare -r POSIXLY_CORRECT",
    "readonly POSIXLY_CORRECT",
    "declare -n p=POSIXLY_CORRECT",
    "shopt -u promptvars",
    "set +T",
    "set +o functrace",
    "__ptyhub_in_prompt=1",
    "__ptyhub_judged[x]=1",
    "__ptyhub_user_debug+='rm -rf /'",
    "unset -f __ptyhub_judge",
    "declare -g __ptyhub_refused=",
    "read __ptyhub_in_prompt",
    "enable -n read",
    "exec 63< /tmp/answers",
    "exec {v}>&-",
    "unset BASH_COMMAND",
    "unset -v FUNCNAME",
    "unset SRANDOM",
    // zsh
    "unsetopt debug_before_cmd",
    "setopt no_debugbeforecmd",
    "TRAPDEBUG() { :; }",
    "__ptyhub_judge() { return 0; }",
    "functions[__ptyhub_trap]='return 0'",
    "unfunction __ptyhub_trap",
    "disable -f __ptyhub_trap",
    "disable setopt",
    // fish
    "function __ptyhub_enter; commandline -f execute; end",
    "functions -e __ptyhub_check_run",
    "functions --erase __ptyhub_judge",
    "set -e __ptyhub_judging",
    "set -g __ptyhub_judging; echo $__ptyhub_nonce",
    "bind \\cg execute",
    "bind \\cg 'commandline -f execute'",
    "block -g",
  ];
  for (const line of refused) {
    test(`refused: ${line}`, () => expect(hookTampering(line)?.rule).toBe("guard-evasion"));
  }
  const allowed = [
    'n="$__ptyhub_nonce"',
    "declare -f __ptyhub_precmd",
    "declare -F __ptyhub_ps1",
    "trap -p DEBUG",
    "trap 'rm -f /tmp/lock' EXIT",
    "shopt -s extdebug",
    "set +x",
    "set +o pipefail",
    "POSIXLY_CORRECT=1 make",
    "shopt -u histappend",
    "shopt -qs extdebug",
    "git branch --set-upstream-to origin/main",
    "echo 163> out",
    "exec {fd}< input",
    "unset FOO",
    "echo DEBUG",
    "functions __ptyhub_enter",
    "set n $__ptyhub_nonce; printf '%s' $n",
    'printf %s "${__ptyhub_nonce}"',
    "bind \\cg 'git status'",
    "echo blocked",
  ];
  for (const line of allowed) {
    test(`allowed: ${line}`, () => expect(hookTampering(line)).toBeNull());
  }
});
