/**
 * Programs that run their words as a shell line somewhere on this machine, for unwrap.ts: a
 * terminal emulator told to execute a command (`xterm -e rm -rf /`, `gnome-terminal -- …`), and
 * GNU parallel, which runs its command once per argument (`parallel rm -rf ::: / /etc`, or the
 * lines piped to it), putting each in for `{}` or after the command.
 */
import { argvLine } from "./shell-quote.ts";

/** Terminal emulators and the options after which the rest of the words are the command to run. */
const TERMINALS: Record<string, string[]> = {
  xterm: ["-e"],
  uxterm: ["-e"],
  urxvt: ["-e"],
  rxvt: ["-e"],
  konsole: ["-e"],
  alacritty: ["-e", "--command"],
  tilix: ["-e", "-x", "--command"],
  terminator: ["-x", "-e", "--execute", "--command"],
  "xfce4-terminal": ["-x", "-e", "--execute", "--command"],
  "mate-terminal": ["-x", "-e", "--execute", "--command"],
  "gnome-terminal": ["--", "-x", "-e", "--execute", "--command"],
  lxterminal: ["-e", "--command"],
  st: ["-e"],
  foot: ["--"],
  kitty: ["--"],
  wezterm: ["--"],
};

/** GNU parallel's options that take a value: the command starts after them. */
const PARALLEL_VALUED = new Set([
  ...["-j", "--jobs", "-S", "--sshlogin", "-N", "-n", "--max-args", "-d", "--delimiter", "-C", "--colsep"],
  ...["--delay", "--timeout", "--joblog", "--results", "--tag-string", "-I", "--env", "--memfree", "--load"],
]);
/** Arguments past this many are not judged one by one (the first ones show what each run does). */
const MAX_RUNS = 8;

/** The command a terminal is told to execute, as a shell line; null when it runs only a shell. */
function terminalLine(program: string, args: string[]): string | null {
  const markers = TERMINALS[program] ?? [];
  const at = args.findIndex((a) => markers.includes(a));
  if (at !== -1) {
    const rest = args.slice(at + 1);
    // `-e 'rm -rf /'` (one word) is a line; `-e rm -rf /` is the words of one.
    return rest.length === 0 ? null : rest.length === 1 ? rest[0]! : argvLine(rest);
  }
  const joined = args.find((a) => markers.some((m) => m.startsWith("--") && a.startsWith(`${m}=`)));
  return joined === undefined ? null : joined.slice(joined.indexOf("=") + 1);
}

/** The lines `parallel CMD… ::: ARGS` runs, one per argument (or per line of `piped`). */
function parallelLines(args: string[], piped: string | null): string[] {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) i += PARALLEL_VALUED.has(args[i]!) ? 2 : 1;
  const separator = args.indexOf(":::");
  const command = args.slice(i, separator === -1 ? undefined : separator);
  const items =
    separator === -1
      ? (piped ?? "").split("\n").filter(Boolean)
      : args.slice(separator + 1).filter((a) => !a.startsWith(":::"));
  if (command.length === 0) return items.slice(0, MAX_RUNS);
  const text = command.length === 1 ? command[0]! : argvLine(command);
  return items
    .slice(0, MAX_RUNS)
    .map((item) => (text.includes("{}") ? text.replaceAll("{}", item) : `${text} ${item}`));
}

/** The shell lines `argv` runs, or null when it is not one of these runners. */
export function runnerLines(program: string, args: string[], piped: string | null): string[] | null {
  if (program === "parallel") return parallelLines(args, piped);
  if (!(program in TERMINALS)) return null;
  const line = terminalLine(program, args);
  return line === null ? [] : [line];
}
