# ptyhub shell integration for bash: loaded with --rcfile, so the usual rc files load here.
__ptyhub_nonce=
{ IFS= read -r __ptyhub_nonce <&3; } 2>/dev/null
exec 3<&-
if [ -r /etc/bash.bashrc ]; then . /etc/bash.bashrc; fi
if [ -r "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi

__ptyhub_precmd() {
  local __ptyhub_status=$?
  local p="${PWD//%/%25}"
  p="${p//;/%3B}"; p="${p//$'\n'/%0A}"; p="${p//$'\a'/%07}"; p="${p//$'\e'/%1B}"
  printf '\033]6973;%s;D;%s;%s\007\033]6973;%s;A\007' "$__ptyhub_nonce" "$__ptyhub_status" "$p" "$__ptyhub_nonce"
  return $__ptyhub_status
}

# Runs last at each prompt: a prompt framework may have rebuilt PS1 (or PS2) in the meantime.
__ptyhub_ps1() {
  local __ptyhub_status=$?
  local b=$'\001\033]6973;'"$__ptyhub_nonce"$';B\007\002' p=$'\001\033]6973;'"$__ptyhub_nonce"$';P\007\002'
  case "$PS1" in *"$b"*) ;; *) PS1="$PS1$b" ;; esac
  case "$PS2" in *"$p"*) ;; *) PS2="$PS2$p" ;; esac
  __ptyhub_at_prompt=1
  return $__ptyhub_status
}

if [ -n "$__ptyhub_nonce" ]; then
  # Newlines, not ';', join the parts: the user's own value may end in ';' or be empty.
  PROMPT_COMMAND=$'__ptyhub_precmd\n'"${PROMPT_COMMAND:-}"$'\n__ptyhub_ps1'
  if (( BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4) )); then
    # PS0 is printed after a command line is read, before it runs (bash \u2265 4.4).
    PS0="${PS0-}"$'\033]6973;'"$__ptyhub_nonce"$';C\007'
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
# The nonce goes into the hooks' own text and out of the variable: a command typed into this
# shell no longer finds it in $__ptyhub_nonce (children never did: it is not exported). The
# function bodies (declare -f) and the prompt strings still hold it; the kernel check on each end
# mark (session/end-agreement.ts) is what stops a mark printed by a command.
for __ptyhub_f in __ptyhub_precmd __ptyhub_ps1 __ptyhub_debug; do
  if __ptyhub_def=$(declare -f "$__ptyhub_f"); then eval "${__ptyhub_def//\$__ptyhub_nonce/$__ptyhub_nonce}"; fi
done
unset __ptyhub_f __ptyhub_def __ptyhub_nonce
