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
  // `vim -c '!rm -rf /'`, `vi -c ':!…'`, `less +'!…'`: the editor or pager runs the line at start.
  if (/^(n?vim?|view|ex)$/.test(program)) {
    const commands = args.filter((_a, i) => args[i - 1] === "-c" || args[i - 1] === "--cmd");
    const plus = args.filter((a) => a.startsWith("+")).map((a) => a.slice(1));
    return [...commands, ...plus].map((c) => /^:?!(.*)$/s.exec(c)?.[1]).filter((l): l is string => Boolean(l));
  }
  // GNU sed's `e` flag runs the pattern space after the substitution: `sed 's/x/rm -rf \//e'`.
  if (program === "sed") {
    return args
      .map((a) => /^s(.)((?:(?!\1)[^\\]|\\.)*)\1((?:(?!\1)[^\\]|\\.)*)\1[gpiImM0-9]*e[gpiImM0-9]*$/s.exec(a))
      .map((m) => (m ? m[3]!.replace(/\\(.)/g, "$1") : ""))
      .filter((l) => l !== "");
  }
  if (program === "less") {
    return args.map((a) => /^\+!(.*)$/s.exec(a)?.[1]).filter((l): l is string => Boolean(l));
  }
  if (program === "git") {
    // `git config [--global] alias.NAME '!cmd'` and `git -c alias.NAME='!cmd' …`: cmd runs as a shell line.
    const out: string[] = [];
    for (const [i, a] of args.entries()) {
      // `git -c core.sshCommand='…' fetch`, `-c core.pager=…`: the command git runs for ssh, paging, editing.
      const hook = args[i - 1] === "-c" ? GIT_COMMAND_KEY.exec(a)?.[1] : undefined;
      if (hook) out.push(hook);
      const given = args[i - 1] === "-c" ? /^alias\.[^=]+=!(.*)$/s.exec(a)?.[1] : undefined;
      const configured =
        /^alias\./.test(a) && args.includes("config") ? /^!(.*)$/s.exec(args[i + 1] ?? "")?.[1] : undefined;
      for (const line of [given, configured]) if (line) out.push(line);
    }
    return out;
  }
  return [];
}

/** git settings whose value is a command git runs: ssh, the pager, the editor, a diff or merge tool. */
const GIT_COMMAND_KEY = new RegExp(
  String.raw`^(?:core\.(?:sshCommand|pager|editor|fsmonitor)|sequence\.editor|diff\.external|` +
    String.raw`pager\.\w+|credential\.helper)=!?(.+)$`,
  "is",
);

/** Environment variables whose value a program runs as a command: `PAGER`, `EDITOR`, `GIT_SSH_COMMAND` … */
const COMMAND_VARIABLES = new RegExp(
  "^(PAGER|EDITOR|VISUAL|GIT_SSH_COMMAND|GIT_SSH|GIT_EDITOR|GIT_PAGER|GIT_SEQUENCE_EDITOR|SSH_ASKPASS|" +
    "GIT_ASKPASS|SUDO_ASKPASS|BROWSER|MANPAGER|SYSTEMD_PAGER|LESSOPEN)=(.+)$",
  "s",
);

/** The commands the environment before a command makes it run (`PAGER='…' git log`). */
export function environmentCommands(env: string[]): string[] {
  return env.map((a) => COMMAND_VARIABLES.exec(a)?.[2]?.replace(/^\|/, "")).filter((l): l is string => Boolean(l));
}

/** The lines the prompt variables set on a line would run: PROMPT_COMMAND's value, PS1's substitutions. */
export function promptLines(assignments: { name: string; value: string }[]): string[] {
  return assignments.filter((a) => PROMPT_VARIABLES.test(a.name)).map((a) => a.value);
}
