# ptyhub shell integration for zsh (.zshenv): chain to the user's .zshenv.
# The nonce first: programs the user's files start must not inherit its descriptor.
__ptyhub_nonce=
{ IFS= read -r __ptyhub_nonce <&3; } 2>/dev/null
exec 3<&-
__ptyhub_zdotdir="$ZDOTDIR"
if [[ -n "${PTYHUB_USER_ZDOTDIR-}" ]]; then ZDOTDIR="$PTYHUB_USER_ZDOTDIR"; else ZDOTDIR="$HOME"; fi
[[ -r "$ZDOTDIR/.zshenv" ]] && source "$ZDOTDIR/.zshenv"
__ptyhub_user_zdotdir="$ZDOTDIR"
ZDOTDIR="$__ptyhub_zdotdir"
