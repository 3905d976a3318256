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
  local p="${PWD//\%/%25}"
  p="${p//;/%3B}"; p="${p//$'\n'/%0A}"; p="${p//$'\a'/%07}"; p="${p//$'\e'/%1B}"
  printf '\033]6973;%s;D;%s;%s\007' "$__ptyhub_nonce" "$__ptyhub_status" "$p"
  [[ -n "$__ptyhub_prompt_sp" ]] && __ptyhub_eol_mark
  # A framework turning PROMPT_SP on again later: ours from the next prompt on.
  __ptyhub_take_prompt_sp
  printf '\033]6973;%s;A\007' "$__ptyhub_nonce"
}
__ptyhub_preexec() {
  printf '\033]6973;%s;C\007' "$__ptyhub_nonce"
}
# Runs last at each prompt: a prompt framework may have rebuilt PS1 (or PS2) in the meantime.
__ptyhub_ps1() {
  local b="%{"$'\033]6973;'"$__ptyhub_nonce"$';B\007'"%}" p="%{"$'\033]6973;'"$__ptyhub_nonce"$';P\007'"%}"
  [[ "$PS1" == *"$b"* ]] || PS1="$PS1$b"
  [[ "$PS2" == *"$p"* ]] || PS2="$PS2$p"
}
if [[ -n "$__ptyhub_nonce" ]]; then
  # First in line, so the status it reads is the command's, not another hook's.
  precmd_functions=(__ptyhub_precmd $precmd_functions __ptyhub_ps1)
  preexec_functions+=(__ptyhub_preexec)
fi
# The nonce goes into the hooks' own text and out of the variable (see the bash script): the
# function bodies and the prompt strings still hold it.
zmodload zsh/parameter 2>/dev/null
for __ptyhub_f in __ptyhub_precmd __ptyhub_preexec __ptyhub_ps1; do
  functions[$__ptyhub_f]="${functions[$__ptyhub_f]//\$__ptyhub_nonce/$__ptyhub_nonce}"
done
unset __ptyhub_f __ptyhub_nonce
