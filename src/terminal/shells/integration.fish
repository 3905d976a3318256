# ptyhub shell integration for fish: sourced by --init-command, after config.fish.
# fish's builtins do not read inherited descriptors, and it cannot close one: head reads the line.
set -g __ptyhub_nonce (command head -n 1 <&3 2>/dev/null)
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
