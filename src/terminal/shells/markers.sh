# ptyhub markers for POSIX sh: loaded through $ENV; loads the user's $ENV first.
__ptyhub_nonce=
{ IFS= read -r __ptyhub_nonce <&3; } 2>/dev/null
exec 3<&-
if [ -n "${PTYHUB_USER_ENV:-}" ]; then
  ENV="$PTYHUB_USER_ENV"
  unset PTYHUB_USER_ENV
  # The user's own $ENV: not ours for shellcheck to follow.
  # shellcheck source=/dev/null
  if [ -r "$ENV" ]; then . "$ENV"; fi
else
  unset ENV
fi
# The nonce is written into the functions' text (it is hex: safe inside quotes) and then unset:
# a command typed into this shell does not find it in $__ptyhub_nonce (see the bash script).
eval "__ptyhub_c() { printf '\\033]6973;%s;C\\007' '$__ptyhub_nonce'; }"
eval "__ptyhub_d() { printf '\\033]6973;%s;D;%s;%s\\007' '$__ptyhub_nonce' \"\$1\" \"\$PWD\"; }"
PS1="${PS1-\$ }$(printf '\033]6973;%s;B\007' "$__ptyhub_nonce")"
PS2="${PS2-> }$(printf '\033]6973;%s;P\007' "$__ptyhub_nonce")"
printf '\033]6973;%s;A\007' "$__ptyhub_nonce"
unset __ptyhub_nonce
