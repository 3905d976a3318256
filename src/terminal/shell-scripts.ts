/**
 * Shell-integration scripts, kept as strings so the compiled binary carries them. Each script
 * first loads the user's own startup files (their rc still runs, untouched), then installs hooks
 * that print marks: OSC 6973 ; <nonce> ; <kind> [; args] BEL.
 *   A        the prompt is about to be drawn
 *   B        the prompt is drawn (end of PS1): the line editor reads input now, so typed text
 *            is echoed once (text typed before this is echoed by the tty, then again by the editor)
 *   C        a command line was accepted and starts running: its output begins here
 *   D;n;cwd  the command finished with exit status n, in cwd (%, ;, LF, BEL, ESC %-escaped)
 *   P        a continuation prompt (PS2) is drawn: the shell waits for the rest of an
 *            unfinished command line (open quote, `if … then`, a here-document)
 * The nonce comes on file descriptor 3 (NONCE_FD), which ptyhub hands the shell at its start and
 * the script reads and closes before anything else runs: it is in no environment (not even the
 * shell's initial one, which /proc/PID/environ shows), no argv and no file, so programs started in
 * the session cannot read it to forge a mark. (A program that may read the shell's memory —
 * ptrace, /proc/PID/mem as the same user without Yama — can; session.ts checks marks further.)
 * "__ptyhub_" prefixes keep our names out of the user's way.
 */

export const OSC_MARK_ID = 6973;
/** One of our marks in output (BEL- or ST-terminated): not what the program sent, and it carries the nonce. */
export const OSC_MARK_PATTERN = new RegExp(`\x1b\\]${OSC_MARK_ID};[^\x07\x1b]*(?:\x07|\x1b\\\\)`, "g");

/** The descriptor the nonce arrives on (one line); hard-coded as 3 in the scripts below. */
export const NONCE_FD = 3;

/**
 * The second line on NONCE_FD when ptyhub keeps that socket open as the channel for the guard's
 * verdicts on commands the shell is about to run (bash: the script moves it to descriptor 63).
 */
export const VERDICT_CHANNEL_LINE = "verdicts";

/** bash keeps the verdict channel on this descriptor: high, out of the way of the user's own. */
export const VERDICT_FD = 63;

/**
 * How long the shell waits for a verdict before it refuses the command (fail closed) and says no
 * answer came: ptyhub answers in milliseconds, but a loaded machine may stall it for seconds.
 */
export const VERDICT_WAIT_S = 20;

/**
 * Template tag for script text: raw (backslashes stay as the shell needs them), with `\${`
 * written in the source to keep TypeScript from interpolating, and emitted as `${`.
 */
function script(strings: TemplateStringsArray): string {
  return String.raw({ raw: strings.raw }).replaceAll("\\${", "${");
}

export const BASH_SCRIPT =
  script`# ptyhub shell integration for bash: loaded with --rcfile, so the usual rc files load here.
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
  # The prompt's own commands (the user's PROMPT_COMMAND) are not the accepted line's.
  __ptyhub_in_prompt=1
  if [ "$__ptyhub_refused" = 1 ]; then __ptyhub_status=126; __ptyhub_refused=0; fi
  __ptyhub_judged=()
  local p="\${PWD//%/%25}"
  p="\${p//;/%3B}"; p="\${p//$'\n'/%0A}"; p="\${p//$'\a'/%07}"; p="\${p//$'\e'/%1B}"
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
  [ -n "\${__ptyhub_judged["$BASH_COMMAND"]+x}" ] && return 0
  local c="$BASH_COMMAND" t v said= turn
  local yes="$SRANDOM$SRANDOM$SRANDOM" no="$SRANDOM$SRANDOM$SRANDOM"
  # Equal words mean SRANDOM is no longer random (unset, then assigned): nothing could tell them apart.
  [ "$yes" = "$no" ] && no=
  t="\${c//%/%25}"; t="\${t//;/%3B}"; t="\${t//$'\n'/%0A}"; t="\${t//$'\r'/%0D}"
  t="\${t//$'\a'/%07}"; t="\${t//$'\e'/%1B}"
  # One process asks at a time (a pipeline's parts may all ask): take the turn, give it back after.
  if [ -n "$no" ] && IFS= read -r -N 1 -t __PTYHUB_VERDICT_WAIT_S__ -u 62 turn 2>/dev/null; then
    printf '\033]6973;%s;J;%s;%s;%s\007' "$__ptyhub_nonce" "$yes" "$no" "$t" >/dev/tty
    # Lines that are neither word are answers to questions that gave up waiting: skipped. Any line
    # holding the word counts: a reader that took some bytes of an earlier line cannot fake it.
    while IFS= read -r -t __PTYHUB_VERDICT_WAIT_S__ -u 63 v; do
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
  local u=$1
  case "$BASH_COMMAND" in __ptyhub_precmd | __ptyhub_ps1 | '__ptyhub_cur=$(trap -p DEBUG)') return 0 ;; esac
  case "\${FUNCNAME[1]-}" in __ptyhub_*) return 0 ;; esac
  if [ "$__ptyhub_in_prompt" = 1 ] && [ "$BASH_COMMAND" = 'trap -p DEBUG' ]; then return 0; fi
  __ptyhub_judge || return 1
  [ -z "$__ptyhub_user_debug" ] && return 0
  : "$u"
  eval "$__ptyhub_user_debug"
}
# Puts our trap back in front if the user's code set its own (a prompt framework may install it
# from PROMPT_COMMAND): theirs is kept and runs after ours. $__ptyhub_cur is what "trap -p DEBUG"
# printed, taken by PROMPT_COMMAND itself: inside a function bash hides the DEBUG trap.
__ptyhub_take_debug() {
  local cur=\${__ptyhub_cur#"trap -- "}
  cur=\${cur%" DEBUG"}
  eval "cur=\${cur:-''}"
  if [ "$cur" != '__ptyhub_trap "$_"' ]; then
    __ptyhub_user_debug=$cur
    shopt -s extdebug
    trap '__ptyhub_trap "$_"' DEBUG
  fi
}

# Runs last at each prompt: a prompt framework may have rebuilt PS1 (or PS2) in the meantime.
__ptyhub_ps1() {
  local __ptyhub_status=$?
  local b=$'\001\033]6973;'"$__ptyhub_nonce"$';B\007\002' p=$'\001\033]6973;'"$__ptyhub_nonce"$';P\007\002'
  # Drawing the prompt ends the prompt's commands even when a ctrl+c cut PROMPT_COMMAND short.
  [ -n "$__ptyhub_judging" ] && b="$b"'\${__ptyhub_in_prompt:$((__ptyhub_in_prompt=0)):0}'
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
  PROMPT_COMMAND=$'__ptyhub_precmd\n'"\${PROMPT_COMMAND:-}"$'\n__ptyhub_ps1'
  if (( BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4) )); then
    # PS0 is printed after a command line is read, before it runs (bash ≥ 4.4).
    PS0="\${PS0-}"$'\033]6973;'"$__ptyhub_nonce"$';C\007'
    # The DEBUG trap is free for the guard's look; its questions need $SRANDOM (bash ≥ 5.1).
    if [ "$__ptyhub_chan" = verdicts ] && [ -n "\${SRANDOM-}" ]; then
      __ptyhub_judging=1
      # A refusal skips the rest of its line only: each accepted line starts afresh. Not only at
      # the prompt: a command run from the line editor (bind -x, ctrl+x ctrl+e) gets no new
      # prompt. PS0 is expanded once per accepted line; the offset's arithmetic resets the flag,
      # the length 0 prints nothing. The same for "in the prompt's commands", which __ptyhub_ps1
      # clears at the end of PROMPT_COMMAND: a ctrl+c can cut PROMPT_COMMAND short, and the next
      # line must not pass as the prompt's (PS1 clears it too, see __ptyhub_ps1).
      PS0="\${PS0}"'\${__ptyhub_refused:$((__ptyhub_refused=0)):0}\${__ptyhub_in_prompt:$((__ptyhub_in_prompt=0)):0}'
      PROMPT_COMMAND="\${PROMPT_COMMAND%$'\n'__ptyhub_ps1}"$'\n__ptyhub_cur=$(trap -p DEBUG)\n__ptyhub_ps1'
    fi
  else
    # Older bash (macOS /bin/bash 3.2): the first DEBUG trap after a prompt marks the start.
    __ptyhub_debug() {
      if [ -n "$__ptyhub_at_prompt" ] && [ "\${BASH_COMMAND#__ptyhub_precmd}" = "$BASH_COMMAND" ]; then
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
  if __ptyhub_def=$(declare -f "$__ptyhub_f"); then eval "\${__ptyhub_def//\$__ptyhub_nonce/$__ptyhub_nonce}"; fi
done
unset __ptyhub_f __ptyhub_def __ptyhub_nonce __ptyhub_chan
# The DEBUG trap does not see a function being defined: a line could redefine the check away.
# Read-only, our hooks cannot be redefined or unset.
if [ -n "$__ptyhub_judging" ]; then
  readonly -f __ptyhub_precmd __ptyhub_ps1 __ptyhub_judge __ptyhub_trap __ptyhub_take_debug
fi
`.replaceAll("__PTYHUB_VERDICT_WAIT_S__", String(VERDICT_WAIT_S));

/** zsh reads $ZDOTDIR/.zshenv and .zshrc; ours chain to the user's and restore ZDOTDIR. */
export const ZSH_ZSHENV = script`# ptyhub shell integration for zsh (.zshenv): chain to the user's .zshenv.
# The nonce first: programs the user's files start must not inherit its descriptor.
__ptyhub_nonce=
{ IFS= read -r __ptyhub_nonce <&3; } 2>/dev/null
exec 3<&-
__ptyhub_zdotdir="$ZDOTDIR"
if [[ -n "\${PTYHUB_USER_ZDOTDIR-}" ]]; then ZDOTDIR="$PTYHUB_USER_ZDOTDIR"; else ZDOTDIR="$HOME"; fi
[[ -r "$ZDOTDIR/.zshenv" ]] && source "$ZDOTDIR/.zshenv"
__ptyhub_user_zdotdir="$ZDOTDIR"
ZDOTDIR="$__ptyhub_zdotdir"
`;

export const ZSH_ZSHRC = script`# ptyhub shell integration for zsh (.zshrc): load the user's .zshrc, then add hooks.
ZDOTDIR="$__ptyhub_user_zdotdir"
if [[ -n "\${PTYHUB_USER_ZDOTDIR-}" ]]; then export ZDOTDIR; else unset ZDOTDIR; fi
unset PTYHUB_USER_ZDOTDIR __ptyhub_zdotdir
[[ -r "\${ZDOTDIR:-$HOME}/.zshrc" ]] && source "\${ZDOTDIR:-$HOME}/.zshrc"

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
  local mark="\${(%)\${PROMPT_EOL_MARK-%B%S%#%s%b}}"
  local plain="\${mark//$'\e'\[[0-9;?]#[@-~]/}"
  local w=\${(m)#plain} xn=0
  [[ "\${terminfo[xenl]-}" == yes ]] && xn=1
  local pad=$(( COLUMNS - w - !xn ))
  (( pad < 0 )) && pad=0
  printf '%s%*s\r%*s\r' "$mark" $pad '' $w ''
}
__ptyhub_precmd() {
  local __ptyhub_status=$?
  local p="\${PWD//\%/%25}"
  p="\${p//;/%3B}"; p="\${p//$'\n'/%0A}"; p="\${p//$'\a'/%07}"; p="\${p//$'\e'/%1B}"
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
  functions[$__ptyhub_f]="\${functions[$__ptyhub_f]//\$__ptyhub_nonce/$__ptyhub_nonce}"
done
unset __ptyhub_f __ptyhub_nonce
`;

export const FISH_SCRIPT = script`# ptyhub shell integration for fish: sourced by --init-command, after config.fish.
# fish's builtins do not read inherited descriptors, and it cannot close one: head reads the line.
set -g __ptyhub_nonce (command head -n 1 <&3 2>/dev/null)
function __ptyhub_preexec --on-event fish_preexec
    printf '\e]6973;%s;C\a' $__ptyhub_nonce
end
# The end mark right after the command: fish marks a last line left without a newline (its ⏎)
# after the postexec handlers, before the prompt event, where it would land in the output. A line
# that runs exit as a command keeps it for the prompt: fish exits after this event, and a command
# that ends the shell ends by its exit, with no end mark. (An exit inside a function the line
# calls is not seen here: that command comes back done, with the shell's status, then it exits.)
function __ptyhub_postexec --on-event fish_postexec
    set -g __ptyhub_status $status
    string match -qr '(^|[;&|\n(]|\b(and|or|not|begin|else|builtin|command)\s)\s*exit(\s|;|\)|$)' -- $argv
    and return
    set -l p (string replace -a '%' '%25' -- $PWD | string replace -a ';' '%3B')
    printf '\e]6973;%s;D;%s;%s\a' $__ptyhub_nonce $__ptyhub_status "$p"
    set -e __ptyhub_status
    set -g __ptyhub_ended 1
end
function __ptyhub_prompt --on-event fish_prompt
    # No end mark yet (the first prompt, an empty line, a line with exit): it comes with the prompt's.
    if not set -q __ptyhub_ended
        set -l s 0
        set -q __ptyhub_status; and set s $__ptyhub_status
        set -l p (string replace -a '%' '%25' -- $PWD | string replace -a ';' '%3B')
        printf '\e]6973;%s;D;%s;%s\a' $__ptyhub_nonce $s "$p"
    end
    set -e __ptyhub_ended __ptyhub_status
    printf '\e]6973;%s;A\a' $__ptyhub_nonce
end
# The B mark after the user's prompt: wrap fish_prompt (defined by now: config.fish has run).
if functions -q fish_prompt
    functions -c fish_prompt __ptyhub_user_prompt
else
    function __ptyhub_user_prompt
        printf '%s> ' (prompt_pwd)
    end
end
function fish_prompt
    __ptyhub_user_prompt
    printf '\e]6973;%s;B\a' $__ptyhub_nonce
end
# fish has no PS2: Enter on an unfinished line inserts a line break, and on a syntax error fish
# prints it and keeps the line (where the next input would land), both silently for the hooks
# above. Enter tells: an unfinished line gets a P mark; a refused one is reported like a command
# that failed (start, fish's own error, end with its parser's status) and cleared.
function __ptyhub_enter
    commandline --is-valid
    switch $status
        case 1
            set -l line (commandline)
            commandline -r ''
            printf '\n\e]6973;%s;C\a' $__ptyhub_nonce
            printf '%s\n' $line | fish --no-execute 2>&1
            set -l s $pipestatus[2]
            set -l p (string replace -a '%' '%25' -- $PWD | string replace -a ';' '%3B')
            printf '\e]6973;%s;D;%s;%s\a\e]6973;%s;A\a' $__ptyhub_nonce $s "$p" $__ptyhub_nonce
            commandline -f repaint
            return
        case 2
            printf '\e]6973;%s;P\a' $__ptyhub_nonce
    end
    commandline -f execute
end
for __ptyhub_mode in default insert
    bind -M $__ptyhub_mode \r __ptyhub_enter
end
set -e __ptyhub_mode
# The nonce goes into the hooks' own text and out of the variable (see the bash script): the
# function bodies still hold it.
for __ptyhub_f in __ptyhub_preexec __ptyhub_postexec __ptyhub_prompt fish_prompt __ptyhub_enter
    functions $__ptyhub_f | string replace -a '$__ptyhub_nonce' $__ptyhub_nonce | source
end
set -e __ptyhub_f __ptyhub_nonce
`;

/**
 * POSIX sh (dash, ash, ksh) has no pre-exec hook, so commands are wrapped per call instead
 * ("marker" completion): __ptyhub_c; command eval '...'; __ptyhub_d "$?". Loaded through $ENV.
 * `command` keeps a syntax error inside the eval from aborting the whole line (POSIX: special
 * built-in errors do not abort when run through `command`), so the end marker still prints.
 */
export const SH_SCRIPT = script`# ptyhub markers for POSIX sh: loaded through $ENV; loads the user's $ENV first.
__ptyhub_nonce=
{ IFS= read -r __ptyhub_nonce <&3; } 2>/dev/null
exec 3<&-
if [ -n "\${PTYHUB_USER_ENV:-}" ]; then
  ENV="$PTYHUB_USER_ENV"
  unset PTYHUB_USER_ENV
  if [ -r "$ENV" ]; then . "$ENV"; fi
else
  unset ENV
fi
# The nonce is written into the functions' text (it is hex: safe inside quotes) and then unset:
# a command typed into this shell does not find it in $__ptyhub_nonce (see the bash script).
eval "__ptyhub_c() { printf '\\033]6973;%s;C\\007' '$__ptyhub_nonce'; }"
eval "__ptyhub_d() { printf '\\033]6973;%s;D;%s;%s\\007' '$__ptyhub_nonce' \"\$1\" \"\$PWD\"; }"
PS1="\${PS1-\$ }$(printf '\033]6973;%s;B\007' "$__ptyhub_nonce")"
PS2="\${PS2-> }$(printf '\033]6973;%s;P\007' "$__ptyhub_nonce")"
printf '\033]6973;%s;A\007' "$__ptyhub_nonce"
unset __ptyhub_nonce
`;
