# ptyhub shell integration for fish: sourced by --init-command, after config.fish.
# fish's builtins do not read inherited descriptors, and it cannot close one: head reads the
# lines, the nonce and (when ptyhub keeps the descriptor as the verdicts' channel) VERDICT_CHANNEL_LINE,
# which come in one write.
set -l __ptyhub_lines (command head -n 2 <&3 2>/dev/null)
set -g __ptyhub_nonce $__ptyhub_lines[1]
set -g __ptyhub_chan $__ptyhub_lines[2]
function __ptyhub_preexec --on-event fish_preexec
    printf '\e]6973;%s;C\a' $__ptyhub_nonce
end
# The end mark right after the command: fish marks a last line left without a newline (its \u23CE)
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
    # builtin: a function named commandline or printf must not stand in for them.
    builtin commandline --is-valid
    switch $status
        case 1
            set -l line (builtin commandline)
            builtin commandline -r ''
            builtin printf '\n\e]6973;%s;C\a' $__ptyhub_nonce
            builtin printf '%s\n' $line | fish --no-execute 2>&1
            set -l s $pipestatus[2]
            set -l p (string replace -a '%' '%25' -- $PWD | string replace -a ';' '%3B')
            builtin printf '\e]6973;%s;D;%s;%s\a\e]6973;%s;A\a' $__ptyhub_nonce $s "$p" $__ptyhub_nonce
            builtin commandline -f repaint
            return
        case 2
            builtin printf '\e]6973;%s;P\a' $__ptyhub_nonce
            builtin commandline -f execute
            return
    end
    set -l line (builtin commandline | string collect)
    if set -q __ptyhub_judging; and string length -q -- (string trim -- $line)
        if not __ptyhub_judge $line
            # Refused: reported like a command that failed with 126 (start, the refusal, end), and
            # cleared; the line never reaches fish's execution.
            builtin commandline -r ''
            builtin printf '\n\e]6973;%s;C\a' $__ptyhub_nonce
            builtin printf 'ptyhub guard: %s, not run: %s\n' $__ptyhub_why (string replace -a \n ' ' -- $line)
            set -l p (string replace -a '%' '%25' -- $PWD | string replace -a ';' '%3B')
            builtin printf '\e]6973;%s;D;126;%s\a\e]6973;%s;A\a' $__ptyhub_nonce "$p" $__ptyhub_nonce
            builtin commandline -f repaint
            return
        end
        set -g __ptyhub_let_through $line
    end
    builtin commandline -f execute
end

# The guard's look at the line fish accepted (src/guard/accepted-line.ts; see the bash script for
# the conversation): whatever the editing keys did (yank, transpose, undo, history), the Enter
# binding above asks about the line as `commandline` holds it, before fish runs it. The answer
# comes on descriptor 3, the socket the nonce came on (fish can neither move nor close it), read
# by sh, whose `read` takes one byte at a time and so leaves the next answer where it is. Only
# the shell's own process asks (one question at a time): the turn pipe is not needed. A line run
# by another way (a binding of the user's that calls `commandline -f execute`) is asked about in
# fish_preexec; fish cannot skip a command from there, so a refused one ends the shell instead.
function __ptyhub_judge
    # The words only tell this question's answer from a late one to an earlier question: nothing
    # but ptyhub writes on the channel's far end, so fish's own generator is enough (no process).
    set -l yes (random 100000000 999999999)(random 100000000 999999999)
    set -l no (random 100000000 999999999)(random 100000000 999999999)
    set -g __ptyhub_why 'no answer from ptyhub in time'
    test "$yes" = "$no"; and return 1
    set -l t (string replace -a '%' '%25' -- $argv[1] | string replace -a ';' '%3B' | string join '%0A')
    set t (string replace -a \r '%0D' -- $t | string replace -a \a '%07' | string replace -a \e '%1B')
    builtin printf '\e]6973;%s;J;%s;%s;%s\a' $__ptyhub_nonce $yes $no "$t" >/dev/tty
    set -l said (command timeout 20 sh -c '
        while IFS= read -r v; do
            case $v in *"$1"*) echo yes; exit ;; *"$2"*) echo no; exit ;; esac
        done' sh $yes $no <&3 2>/dev/null)
    test "$said" = yes; and return 0
    test "$said" = no; and set -g __ptyhub_why refused
    return 1
end
function __ptyhub_check_run --on-event fish_preexec
    set -q __ptyhub_judging; or return
    set -l line (string join \n -- $argv)
    if set -q __ptyhub_let_through; and test "$__ptyhub_let_through" = "$line"
        set -e __ptyhub_let_through
        return
    end
    set -e __ptyhub_let_through
    string length -q -- (string trim -- $line); or return
    __ptyhub_judge $line; and return
    builtin printf 'ptyhub guard: %s; fish cannot skip it, so the shell ends: %s\n' $__ptyhub_why $line >/dev/tty
    command kill -KILL $fish_pid
end
# Every key that executes the line goes through the Enter binding; bound again at each prompt, in
# case a line switched the key bindings (fish_vi_key_bindings resets them all).
function __ptyhub_bind_enter --on-event fish_prompt
    for mode in default insert
        # Enter, ctrl+j, and ctrl+Enter and shift+Enter in the two encodings fish knows.
        for key in \r \n \e\[27\;5\;13\~ \e\[13\;5u \e\[27\;2\;13\~ \e\[13\;2u
            builtin bind -M $mode $key __ptyhub_enter
        end
    end
end
__ptyhub_bind_enter
if test "$__ptyhub_chan" = verdicts
    set -g __ptyhub_judging 1
end
set -e __ptyhub_chan
# The nonce goes into the hooks' own text and out of the variable (see the bash script): the
# function bodies still hold it.
for __ptyhub_f in __ptyhub_preexec __ptyhub_postexec __ptyhub_prompt fish_prompt __ptyhub_enter __ptyhub_judge
    functions $__ptyhub_f | string replace -a '$__ptyhub_nonce' $__ptyhub_nonce | source
end
set -e __ptyhub_f __ptyhub_nonce
