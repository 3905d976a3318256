/**
 * A command's options as getopt reads them, for the rules: short letters (bundled `-rf` is r and
 * f), long names (abbreviations allowed), and the operands, up to `--`.
 */

/** Shorter prefixes than this are not read as an option's abbreviation. */
const MIN_ABBREVIATION = 2;

/**
 * Long options as given. `has(name)` also answers for an abbreviation: GNU getopt_long and git
 * accept any unambiguous prefix (`--rec` is `--recursive`, `--no-pres` is `--no-preserve-root`).
 */
class LongOptions extends Set<string> {
  override has(name: string): boolean {
    for (const given of this)
      if (given === name || (given.length >= MIN_ABBREVIATION && name.startsWith(given))) return true;
    return false;
  }
}

export interface Options {
  short: Set<string>;
  long: Set<string>;
  operands: string[];
}

/** Short options of `args` (`-rf` → r, f) and long options, up to `--`. */
export function options(args: string[]): Options {
  const short = new Set<string>();
  const long = new LongOptions();
  const operands: string[] = [];
  let ended = false;
  for (const a of args) {
    if (ended || a === "-" || !a.startsWith("-")) {
      operands.push(a);
      continue;
    }
    if (a === "--") ended = true;
    else if (a.startsWith("--")) long.add(a.slice(2).split("=")[0]!);
    else for (const ch of a.slice(1)) short.add(ch);
  }
  return { short, long, operands };
}
