# ptyhub shell integration for zsh (.zshrc): load the user's .zshrc, then add hooks.
ZDOTDIR="$__ptyhub_user_zdotdir"
if [[ -n "${PTYHUB_USER_ZDOTDIR-}" ]]; then export ZDOTDIR; else unset ZDOTDIR; fi
unset PTYHUB_USER_ZDOTDIR __ptyhub_zdotdir
[[ -r "${ZDOTDIR:-$HOME}/.zshrc" ]] && source "${ZDOTDIR:-$HOME}/.zshrc"

# zsh marks a last line left without a newline (PROMPT_SP: PROMPT_EOL_MARK, then padding) before
# its precmd hooks run, so the mark would land before our end mark, in the command's output: with
# the option off, we draw the same mark ourselves, after the end mark.
__ptyhub_prompt_sp=
__ptyhub_take_prompt_sp() {
  if [[ -o prompt_sp && -o prompt_cr ]]; then __ptyhub_prompt_sp=1; unsetopt prompt_sp; fi
}
__ptyhub_take_prompt_sp
zmodload zsh/terminfo 2>/dev/null
__ptyhub_eol_mark() {
  emulate -L zsh -o extendedglob
  local mark="${(%)${PROMPT_EOL_MARK-%B%S%#%s%b}}"
  local plain="${mark//$'\e'\[[0-9;?]#[@-~]/}"
  local w=${(m)#plain} xn=0
  [[ "${terminfo[xenl]-}" == yes ]] && xn=1
  local pad=$(( COLUMNS - w - !xn ))
  (( pad < 0 )) && pad=0
  printf '%s%*s\r%*s\r' "$mark" $pad '' $w ''
}
__ptyhub_precmd() {
  local __ptyhub_status=$?
  # The prompt's own commands (the user's precmd hooks) are not the accepted line's.
  __ptyhub_in_prompt=1
  if [[ "$__ptyhub_refused" == 1 ]]; then __ptyhub_status=126; __ptyhub_refused=0; fi
  __ptyhub_judged=()
  # The turn made one byte again, by the shell at its prompt (see the bash script).
  if [[ -n "$__ptyhub_judging" ]]; then
    local __ptyhub_x
    while IFS= builtin read -r -k 1 -t 0 -u $__ptyhub_tfd __ptyhub_x 2>/dev/null; do :; done
    builtin print -rn -u $__ptyhub_gfd -- t
  fi
  local p="${PWD//\%/%25}"
  p="${p//;/%3B}"; p="${p//$'\n'/%0A}"; p="${p//$'\a'/%07}"; p="${p//$'\e'/%1B}"
  printf '\033]6973;%s;D;%s;%s\007' "$__ptyhub_nonce" "$__ptyhub_status" "$p"
  [[ -n "$__ptyhub_prompt_sp" ]] && __ptyhub_eol_mark
  # A framework turning PROMPT_SP on again later: ours from the next prompt on.
  __ptyhub_take_prompt_sp
  printf '\033]6973;%s;A\007' "$__ptyhub_nonce"
}
__ptyhub_preexec() {
  # A line was accepted: a refusal skips the rest of its line only.
  __ptyhub_refused=0
  __ptyhub_in_prompt=0
  printf '\033]6973;%s;C\007' "$__ptyhub_nonce"
}
# Runs last at each prompt: a prompt framework may have rebuilt PS1 (or PS2) in the meantime.
__ptyhub_ps1() {
  local b="%{"$'\033]6973;'"$__ptyhub_nonce"$';B\007'"%}" p="%{"$'\033]6973;'"$__ptyhub_nonce"$';P\007'"%}"
  [[ "$PS1" == *"$b"* ]] || PS1="$PS1$b"
  [[ "$PS2" == *"$p"* ]] || PS2="$PS2$p"
  # From here on, what runs is the line editor's (widgets) or the accepted line's.
  __ptyhub_in_prompt=0
}

# The guard's look at each command before it runs (src/guard/accepted-line.ts; see the bash
# script for the conversation): a DEBUG trap, run before each command (DEBUG_BEFORE_CMD) of the
# accepted line, of the functions it calls, of its subshells, and of the widgets the line editor
# runs (a key bound with zle -N), whatever the editing keys did to the line. $ZSH_DEBUG_CMD is the
# command's text, a function definition with its body. Setting ERR_EXIT in the trap skips the
# command; the flag skips the rest of its line. The answer comes on the verdict descriptor (in
# the text below as $__ptyhub_vfd), the turn on the pipe ($__ptyhub_tfd, $__ptyhub_gfd). Builtins
# are called as such: a function named read or print would see the words (zsh scopes dynamically).
typeset -ga __ptyhub_judged
__ptyhub_refused=0
__ptyhub_in_prompt=0
__ptyhub_word() {
  # Random digits in $REPLY (at least 8, as ptyhub expects) from the kernel; $RANDOM where not readable.
  builtin emulate -L zsh
  builtin setopt no_multibyte
  builtin local b c
  REPLY=
  { builtin zmodload zsh/system && builtin sysread -s 8 b </dev/urandom; } 2>/dev/null
  for c in ${(s::)b}; do REPLY+=$(( #c )); done
  (( ${#REPLY} >= 8 )) || REPLY=${(l:5::0:)RANDOM}${(l:5::0:)RANDOM}${(l:5::0:)RANDOM}
}
__ptyhub_judge() {
  builtin emulate -L zsh
  [[ "$__ptyhub_in_prompt" == 1 ]] && return 0
  [[ "$__ptyhub_refused" == 1 ]] && return 1
  builtin local c="$1" t v said='' turn yes no REPLY
  # Each command text is asked once per line (a loop's body is not asked again at every turn).
  (( ${__ptyhub_judged[(Ie)$c]} )) && return 0
  __ptyhub_word; yes=$REPLY
  __ptyhub_word; no=$REPLY
  [[ "$yes" == "$no" ]] && no=
  t="${c//\%/%25}"; t="${t//;/%3B}"; t="${t//$'\n'/%0A}"; t="${t//$'\r'/%0D}"
  t="${t//$'\a'/%07}"; t="${t//$'\e'/%1B}"
  if [[ -n "$no" ]] && IFS= builtin read -r -k 1 -t 20 -u $__ptyhub_tfd turn 2>/dev/null; then
    builtin printf '\033]6973;%s;J;%s;%s;%s\007' "$__ptyhub_nonce" "$yes" "$no" "$t" >/dev/tty
    while IFS= builtin read -r -t 20 -u $__ptyhub_vfd v; do
      case "$v" in
        *"$yes"*) said=yes; break ;;
        *"$no"*) said=no; break ;;
      esac
    done 2>/dev/null
    builtin print -rn -u $__ptyhub_gfd -- "$turn"
  fi
  if [[ "$said" == yes ]]; then
    __ptyhub_judged+=("$c")
    return 0
  fi
  __ptyhub_refused=1
  if [[ -n "$said" ]]; then
    builtin printf 'ptyhub guard: refused, not run: %s\n' "$c" >/dev/tty
  else
    builtin printf 'ptyhub guard: no answer from ptyhub in time, not run: %s\n' "$c" >/dev/tty
  fi
  return 1
}
__ptyhub_trap() {
  # Our own hooks are nobody's commands.
  [[ "${funcstack[2]-}" == __ptyhub_* ]] && return 0
  __ptyhub_judge "$1"
}

if [[ -n "$__ptyhub_nonce" ]]; then
  # First in line, so the status it reads is the command's, not another hook's.
  precmd_functions=(__ptyhub_precmd $precmd_functions __ptyhub_ps1)
  preexec_functions+=(__ptyhub_preexec)
  [[ "$__ptyhub_chan" == verdicts ]] && __ptyhub_judging=1
fi
# Without the guard's channel, nothing uses its descriptors: let them go.
if [[ -z "$__ptyhub_judging" ]]; then
  [[ -n "${__ptyhub_vfd-}" ]] && exec {__ptyhub_vfd}<&-
  [[ -n "${__ptyhub_tfd-}" ]] && exec {__ptyhub_tfd}<&-
  [[ -n "${__ptyhub_gfd-}" ]] && exec {__ptyhub_gfd}>&-
fi
# The nonce and the descriptors go into the hooks' own text and out of the variables (see the
# bash script): the function bodies and the prompt strings still hold them.
zmodload zsh/parameter 2>/dev/null
for __ptyhub_f in __ptyhub_precmd __ptyhub_preexec __ptyhub_ps1 __ptyhub_judge; do
  functions[$__ptyhub_f]="${functions[$__ptyhub_f]//\$__ptyhub_nonce/$__ptyhub_nonce}"
  functions[$__ptyhub_f]="${functions[$__ptyhub_f]//\$__ptyhub_vfd/$__ptyhub_vfd}"
  functions[$__ptyhub_f]="${functions[$__ptyhub_f]//\$__ptyhub_tfd/$__ptyhub_tfd}"
  functions[$__ptyhub_f]="${functions[$__ptyhub_f]//\$__ptyhub_gfd/$__ptyhub_gfd}"
done
unset __ptyhub_f __ptyhub_nonce __ptyhub_chan __ptyhub_vfd __ptyhub_tfd __ptyhub_gfd
# The trap last: the lines above are ours, not a line the user's shell accepted.
if [[ -n "$__ptyhub_judging" ]]; then
  setopt debug_before_cmd
  # builtin: a function of the same name (setopt() { :; }) must not take the skip's place.
  trap '__ptyhub_trap "$ZSH_DEBUG_CMD" || builtin setopt err_exit' DEBUG
fi
