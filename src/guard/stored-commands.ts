/**
 * Commands a line stores for the shell to run later, outside any accepted line: fish runs a key
 * binding's command (`bind \cg 'rm -rf /'`) and a completion's argument command
 * (`complete -c x -a '(…)'`) straight from its line editor, where neither its Enter binding nor
 * fish_preexec sees them. So the accepted line that stores them is judged with them
 * (accepted-line.ts). bash's `bind -x` and zsh's widgets need no such look: their DEBUG traps see
 * the commands when they run.
 */
import { parseShellLine, type ParsedLine } from "./parse.ts";

/** Builtins whose arguments are commands the shell runs later. */
const STORES_COMMANDS = new Set(["bind", "complete"]);
/** Words before a builtin that still run it (`builtin bind …`). */
const RUNS_BUILTIN = new Set(["builtin", "command"]);

/** The arguments of the line's `bind` and `complete` commands, options left out: each a line to judge. */
export function storedCommands(line: string): string[] {
  const found: string[] = [];
  const visit = (parsed: ParsedLine): void => {
    for (const pipeline of parsed.pipelines)
      for (const command of pipeline) {
        const argv = RUNS_BUILTIN.has(command.argv[0] ?? "") ? command.argv.slice(1) : command.argv;
        if (STORES_COMMANDS.has(argv[0] ?? "")) found.push(...argv.slice(1).filter((a) => !a.startsWith("-")));
        for (const nested of command.nested) visit(nested);
      }
  };
  visit(parseShellLine(line));
  return found;
}
