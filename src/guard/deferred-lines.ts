/**
 * Lines a command sets up to run later, in this shell or by git: `trap 'rm -rf /' EXIT` (at exit or
 * on a signal), `bind -x '"\C-m": …'` (on a key), a git alias that runs a shell command
 * (`git config alias.x '!rm -rf /'`, `git -c alias.x='!…' x`), and the prompt variables the shell
 * runs or expands before each prompt (`PROMPT_COMMAND=…`, `PS1='$(…)'`). The guard judges them now.
 */

/** Shell variables whose value runs (PROMPT_COMMAND) or is expanded, substitutions and all (PS0–PS4). */
const PROMPT_VARIABLES = /^(PROMPT_COMMAND(\[@\])?|PS[0-4]|precmd_functions|PROMPT)$/;

/** The lines `argv` sets up to run later; empty when none. */
export function deferredLines(argv: string[]): string[] {
  const [program = "", ...args] = argv;
  // `trap [--] ACTION SIGNAL…`: ACTION runs on the signal (or EXIT); `trap -p`/`-l` only list.
  if (program === "trap") {
    const rest = args[0] === "--" ? args.slice(1) : args;
    return rest.length >= 2 && !rest[0]!.startsWith("-") ? [rest[0]!] : [];
  }
  // `bind -x '"KEYS": COMMAND'`: COMMAND runs when the keys are pressed.
  if (program === "bind") {
    const at = args.indexOf("-x");
    const binding = at === -1 ? undefined : args[at + 1];
    const command = binding === undefined ? null : /^\s*"(?:[^"\\]|\\.)*"\s*:\s*(.*)$/s.exec(binding)?.[1];
    return command ? [command.replace(/^(["'])(.*)\1$/s, "$2")] : [];
  }
  if (program === "git") {
    // `git config [--global] alias.NAME '!cmd'` and `git -c alias.NAME='!cmd' …`: cmd runs as a shell line.
    const out: string[] = [];
    for (const [i, a] of args.entries()) {
      const given = args[i - 1] === "-c" ? /^alias\.[^=]+=!(.*)$/s.exec(a)?.[1] : undefined;
      const configured =
        /^alias\./.test(a) && args.includes("config") ? /^!(.*)$/s.exec(args[i + 1] ?? "")?.[1] : undefined;
      for (const line of [given, configured]) if (line) out.push(line);
    }
    return out;
  }
  return [];
}

/** The lines the prompt variables set on a line would run: PROMPT_COMMAND's value, PS1's substitutions. */
export function promptLines(assignments: { name: string; value: string }[]): string[] {
  return assignments.filter((a) => PROMPT_VARIABLES.test(a.name)).map((a) => a.value);
}
