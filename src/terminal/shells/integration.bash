# ptyhub shell integration for bash: loaded with --rcfile, so the usual rc files load here.
__ptyhub_nonce=
{ IFS= read -r __ptyhub_nonce <&3; } 2>/dev/null
# A second line says ptyhub keeps the descriptor open as the private channel for its verdicts
# (VERDICT_CHANNEL_LINE): moved out of the way of the user's own descriptor 3.
__ptyhub_chan=
{ IFS= read -r -t 1 __ptyhub_chan <&3; } 2>/dev/null
# With it, descriptors 4 and 5 are a pipe holding one byte, the turn to ask (verdict-channel.ts).
# Any of them missing (a wrapper closed it): no channel, and the shell never asks.
if [ "$__ptyhub_chan" = verdicts ] && ! { exec 63<&3 62<&4 61>&5; } 2>/dev/null; then __ptyhub_chan=; fi
exec 3<&- 4<&- 5<&-
if [ -r /etc/bash.bashrc ]; then . /etc/bash.bashrc; fi
if [ -r "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi

__ptyhub_precmd() {
  local __ptyhub_status=$?
  # The prompt's own commands (the user's PROMPT_COMMAND) are not the accepted line's, as long as
  # PROMPT_COMMAND is the one the shell started with: a line that set it anew (with our hooks
  # around `rm -rf /`) would otherwise have its commands run unjudged at every prompt.
  [ "$PROMPT_COMMAND" = "$__ptyhub_prompt_command" ] && __ptyhub_in_prompt=1
  if [ "$__ptyhub_refused" = 1 ]; then __ptyhub_status=126; __ptyhub_refused=0; fi
  __ptyhub_judged=()
  # The turn made one byte again (lost with an asker killed mid-question): by the shell, at its
  # prompt, where none of its own commands asks. ptyhub cannot: the D mark it would do it at may
  # reach it after the next line's first question took the turn, and two turns let two ask at once.
  if [ -n "$__ptyhub_judging" ]; then
    local __ptyhub_x
    while IFS= read -r -t 0 -u 62 2>/dev/null; do IFS= read -r -N 1 -t 1 -u 62 __ptyhub_x 2>/dev/null || break; done
    printf t >&61
  fi
  local p="${PWD//%/%25}"
  p="${p//;/%3B}"; p="${p//$'\n'/%0A}"; p="${p//$'\a'/%07}"; p="${p//$'\e'/%1B}"
  printf '\033]6973;%s;D;%s;%s\007\033]6973;%s;A\007' "$__ptyhub_nonce" "$__ptyhub_status" "$p" "$__ptyhub_nonce"
  return $__ptyhub_status
}

# The guard's look at each command of an accepted line before it runs (src/guard/accepted-line.ts):
# whatever the line editor did to the line (keys, undo, yank, insert-comment, edit-and-execute,
# bind -x, macros), this is what bash is about to run. The question goes out on a J mark to the
# terminal, which only ptyhub reads; the answer comes back on descriptor 63, a socket ptyhub holds
# the other end of, never through the terminal's input, so keys typed ahead stay where they are.
# The question carries two fresh random words, one meaning yes and one no: the answer is one of
# them. Programs the shell starts inherit descriptor 63 and may read from it (that only loses an
# answer: the command is refused when none comes), but they never see the question, so they cannot
# write a yes. A DEBUG trap returning non-zero under extdebug skips the command; the rest of its line
# is skipped too, and the line ends with status 126. Under extdebug the trap is inherited by
# functions, ( ) subshells and command substitutions, so their commands are asked about too. Each
# command text is asked once per line (a loop's body is not asked again at every turn).
declare -A __ptyhub_judged=()
__ptyhub_refused=0
__ptyhub_in_prompt=0
__ptyhub_judge() {
  # The prompt's commands (the user's PROMPT_COMMAND) are not the accepted line's.
  [ "$__ptyhub_in_prompt" = 1 ] && return 0
  [ "$__ptyhub_refused" = 1 ] && return 1
  [ -n "${__ptyhub_judged["$BASH_COMMAND"]+x}" ] && return 0
  local c="$BASH_COMMAND" t v said='' turn
  local yes="$SRANDOM$SRANDOM$SRANDOM" no="$SRANDOM$SRANDOM$SRANDOM"
  # Equal words mean SRANDOM is no longer random (unset, then assigned): nothing could tell them apart.
  [ "$yes" = "$no" ] && no=
  t="${c//%/%25}"; t="${t//;/%3B}"; t="${t//$'\n'/%0A}"; t="${t//$'\r'/%0D}"
  t="${t//$'\a'/%07}"; t="${t//$'\e'/%1B}"
  # One process asks at a time (a pipeline's parts may all ask): take the turn, give it back after.
  if [ -n "$no" ] && IFS= read -r -N 1 -t 20 -u 62 turn 2>/dev/null; then
    printf '\033]6973;%s;J;%s;%s;%s\007' "$__ptyhub_nonce" "$yes" "$no" "$t" >/dev/tty
    # Lines that are neither word are answers to questions that gave up waiting: skipped. Any line
    # holding the word counts: a reader that took some bytes of an earlier line cannot fake it.
    while IFS= read -r -t 20 -u 63 v; do
      case "$v" in
        *"$yes"*) said=yes; break ;;
        *"$no"*) said=no; break ;;
      esac
    done 2>/dev/null
    printf %s "$turn" >&61
  fi
  if [ "$said" = yes ]; then
    __ptyhub_judged["$c"]=1
    return 0
  fi
  __ptyhub_refused=1
  if [ -n "$said" ]; then
    printf 'ptyhub guard: refused, not run: %s\n' "$c" >/dev/tty
  else
    printf 'ptyhub guard: no answer from ptyhub in time, not run: %s\n' "$c" >/dev/tty
  fi
  return 1
}
# Ours, then the user's own DEBUG trap (bash-preexec and the like), with $_ as the user's saw it.
# Our own prompt hooks are nobody's commands: neither asked about nor shown to the user's trap.
__ptyhub_user_debug=
__ptyhub_trap() {
  # Functions come before builtins: a `read` or `printf` of the user's would be called by our hooks
  # and, seeing the judge's locals, could answer yes itself (or swallow the marks). In POSIX mode
  # `unset` (a special builtin) is found before any function of that name; an assignment turns it
  # on and off, and no function can stand in for either.
  if [[ -o posix ]]; then
    unset -f read printf local shopt trap test '['
  else
    POSIXLY_CORRECT=y
    unset -f read printf local shopt trap test '['
    unset POSIXLY_CORRECT
  fi
  local u=$1
  case "$BASH_COMMAND" in __ptyhub_precmd | __ptyhub_ps1 | '__ptyhub_cur=$(trap -p DEBUG)') return 0 ;; esac
  case "${FUNCNAME[1]-}" in __ptyhub_*) return 0 ;; esac
  if [ "$__ptyhub_in_prompt" = 1 ] && [ "$BASH_COMMAND" = 'trap -p DEBUG' ]; then return 0; fi
  # A line that set PROMPT_COMMAND anew (`PROMPT_COMMAND='history -a'`, a sourced rc file) dropped
  # our prompt hooks, and with them every later exit code: put them back around the new value.
  case "$PROMPT_COMMAND" in
    *__ptyhub_ps1*) ;;
    *) PROMPT_COMMAND=$'__ptyhub_precmd\n'"$PROMPT_COMMAND"$'\n__ptyhub_cur=$(trap -p DEBUG)\n__ptyhub_ps1' ;;
  esac
  __ptyhub_judge || return 1
  [ -z "$__ptyhub_user_debug" ] && return 0
  : "$u"
  eval "$__ptyhub_user_debug"
}
# Puts our trap back in front if the user's code set its own (a prompt framework may install it
# from PROMPT_COMMAND): theirs is kept and runs after ours. $__ptyhub_cur is what "trap -p DEBUG"
# printed, taken by PROMPT_COMMAND itself: inside a function bash hides the DEBUG trap.
__ptyhub_take_debug() {
  # shellcheck disable=SC2154 # __ptyhub_cur is set by PROMPT_COMMAND (below), not here.
  local cur=${__ptyhub_cur#"trap -- "}
  cur=${cur%" DEBUG"}
  eval "cur=${cur:-''}"
  if [ "$cur" != '__ptyhub_trap "$_"' ]; then
    __ptyhub_user_debug=$cur
    trap '__ptyhub_trap "$_"' DEBUG
  fi
  # Without extdebug a refusal no longer skips the command: a line that switched it off under a
  # spelling the check missed must not leave every later line unguarded.
  shopt -s extdebug
}

# Runs last at each prompt: a prompt framework may have rebuilt PS1 (or PS2) in the meantime.
__ptyhub_ps1() {
  local __ptyhub_status=$?
  local b=$'\001\033]6973;'"$__ptyhub_nonce"$';B\007\002' p=$'\001\033]6973;'"$__ptyhub_nonce"$';P\007\002'
  # Drawing the prompt ends the prompt's commands even when a ctrl+c cut PROMPT_COMMAND short.
  [ -n "$__ptyhub_judging" ] && b="$b"'${__ptyhub_in_prompt:$((__ptyhub_in_prompt=0)):0}'
  case "$PS1" in *"$b"*) ;; *) PS1="$PS1$b" ;; esac
  case "$PS2" in *"$p"*) ;; *) PS2="$PS2$p" ;; esac
  __ptyhub_at_prompt=1
  # Set here, not at startup: extdebug set in a startup file would load the debugger's profile.
  [ -n "$__ptyhub_judging" ] && __ptyhub_take_debug
  __ptyhub_in_prompt=0
  return $__ptyhub_status
}

if [ -n "$__ptyhub_nonce" ]; then
  # Newlines, not ';', join the parts: the user's own value may end in ';' or be empty.
  PROMPT_COMMAND=$'__ptyhub_precmd\n'"${PROMPT_COMMAND:-}"$'\n__ptyhub_ps1'
  if (( BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4) )); then
    # PS0 is printed after a command line is read, before it runs (bash \u2265 4.4).
    PS0="${PS0-}"$'\033]6973;'"$__ptyhub_nonce"$';C\007'
    # The DEBUG trap is free for the guard's look; its questions need $SRANDOM (bash \u2265 5.1).
    if [ "$__ptyhub_chan" = verdicts ] && [ -n "${SRANDOM-}" ]; then
      __ptyhub_judging=1
      # A refusal skips the rest of its line only: each accepted line starts afresh. Not only at
      # the prompt: a command run from the line editor (bind -x, ctrl+x ctrl+e) gets no new
      # prompt. PS0 is expanded once per accepted line; the offset's arithmetic resets the flag,
      # the length 0 prints nothing. The same for "in the prompt's commands", which __ptyhub_ps1
      # clears at the end of PROMPT_COMMAND: a ctrl+c can cut PROMPT_COMMAND short, and the next
      # line must not pass as the prompt's (PS1 clears it too, see __ptyhub_ps1).
      PS0="${PS0}"'${__ptyhub_refused:$((__ptyhub_refused=0)):0}${__ptyhub_in_prompt:$((__ptyhub_in_prompt=0)):0}'
      PROMPT_COMMAND="${PROMPT_COMMAND%$'\n'__ptyhub_ps1}"$'\n__ptyhub_cur=$(trap -p DEBUG)\n__ptyhub_ps1'
    fi
  else
    # Older bash (macOS /bin/bash 3.2): the first DEBUG trap after a prompt marks the start.
    __ptyhub_debug() {
      if [ -n "$__ptyhub_at_prompt" ] && [ "${BASH_COMMAND#__ptyhub_precmd}" = "$BASH_COMMAND" ]; then
        __ptyhub_at_prompt=
        printf '\033]6973;%s;C\007' "$__ptyhub_nonce"
      fi
    }
    trap '__ptyhub_debug' DEBUG
  fi
fi
# Without the guard's channel, nothing uses descriptors 61-63: let them go.
[ -z "$__ptyhub_judging" ] && exec 61>&- 62<&- 63<&-
# The nonce goes into the hooks' own text and out of the variable: a command typed into this
# shell no longer finds it in $__ptyhub_nonce (children never did: it is not exported). The
# function bodies (declare -f) and the prompt strings still hold it; the kernel check on each end
# mark (session/end-agreement.ts) is what stops a mark printed by a command.
for __ptyhub_f in __ptyhub_precmd __ptyhub_ps1 __ptyhub_debug __ptyhub_judge; do
  if __ptyhub_def=$(declare -f "$__ptyhub_f"); then eval "${__ptyhub_def//\$__ptyhub_nonce/$__ptyhub_nonce}"; fi
done
unset __ptyhub_f __ptyhub_def __ptyhub_nonce __ptyhub_chan
# The DEBUG trap does not see a function being defined: a line could redefine the check away.
# Read-only, our hooks cannot be redefined or unset.
if [ -n "$__ptyhub_judging" ]; then
  readonly __ptyhub_prompt_command="$PROMPT_COMMAND"
  readonly -f __ptyhub_precmd __ptyhub_ps1 __ptyhub_judge __ptyhub_trap __ptyhub_take_debug
fi
