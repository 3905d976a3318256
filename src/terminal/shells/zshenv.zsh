# ptyhub shell integration for zsh (.zshenv): chain to the user's .zshenv.
# The nonce first: programs the user's files start must not inherit its descriptor.
__ptyhub_nonce=
{ IFS= read -r __ptyhub_nonce <&3; } 2>/dev/null
# A second line says ptyhub keeps the descriptor open as the private channel for its verdicts
# (VERDICT_CHANNEL_LINE; see the bash script), and descriptors 4 and 5 are the turn pipe. zsh
# names descriptors above 9 only through variables: it picks them (10 and up) and the hooks keep
# the numbers in their text. Any of them missing (a wrapper closed it): no channel.
__ptyhub_chan=
{ IFS= read -r -t 1 __ptyhub_chan <&3; } 2>/dev/null
if [[ "$__ptyhub_chan" == verdicts ]] &&
  ! { exec {__ptyhub_vfd}<&3 {__ptyhub_tfd}<&4 {__ptyhub_gfd}>&5; } 2>/dev/null; then
  __ptyhub_chan=
fi
exec 3<&- 4<&- 5<&-
__ptyhub_zdotdir="$ZDOTDIR"
if [[ -n "${PTYHUB_USER_ZDOTDIR-}" ]]; then ZDOTDIR="$PTYHUB_USER_ZDOTDIR"; else ZDOTDIR="$HOME"; fi
[[ -r "$ZDOTDIR/.zshenv" ]] && source "$ZDOTDIR/.zshenv"
__ptyhub_user_zdotdir="$ZDOTDIR"
ZDOTDIR="$__ptyhub_zdotdir"
