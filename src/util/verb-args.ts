/**
 * How every CLI verb reads its arguments, so they all behave alike: Node's `parseArgs` (strict),
 * `--help`/`-h` printing the verb's usage on stdout (exit 0), and a usage error (unknown option,
 * missing value, wrong number of arguments) as a UsageError, which the command line prints on
 * stderr with the reason and the usage, exiting 2.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** The exit status of a command line that cannot be understood (as opposed to a command that failed). */
export const EXIT_USAGE = 2;

type Options = NonNullable<ParseArgsConfig["options"]>;

export interface VerbSpec<O extends Options> {
  /** As typed after `ptyhub`, e.g. "kill" or "guard check": prefixes every message. */
  verb: string;
  /** The whole help text; its first line is the usage line. */
  usage: string;
  options: O;
  /** How many positional arguments the verb takes (default: none). */
  positionals?: { min: number; max: number; name: string };
}

/** A command line the verb cannot run, with the reason a person can act on. */
export class UsageError extends Error {
  constructor(
    readonly verb: string,
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = "UsageError";
  }

  /** What goes to stderr: the reason first, then the usage to correct it with. */
  render(): string {
    return `ptyhub ${this.verb}: ${this.message}\n\n${this.usage.endsWith("\n") ? this.usage : `${this.usage}\n`}`;
  }
}

const HELP_OPTION = { help: { type: "boolean", short: "h" } } as const;

/** The first quoted token of one of parseArgs' messages (the option it is about). */
function quoted(message: string): string {
  return /'([^']+)'/.exec(message)?.[1] ?? message;
}

function optionList(options: Options): string {
  return Object.entries(options)
    .map(([name, o]) => (o.type === "string" ? `--${name} VALUE` : `--${name}`))
    .join(", ");
}

/** parseArgs' error as one short sentence (its raw text tells about `--` and positional arguments). */
function reason(err: unknown, options: Options): string {
  const code = (err as { code?: string }).code;
  const message = err instanceof Error ? err.message : String(err);
  switch (code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option '${quoted(message)}' (it takes ${optionList(options)})`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument '${quoted(message)}'`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      // "Option '-s, --signal <value>' argument missing": the long name is the one to show.
      const name = /--[\w-]+/.exec(message)?.[0] ?? quoted(message);
      return /does not take/.test(message) ? `option '${name}' takes no value` : `option '${name}' needs a value`;
    }
    default:
      return message;
  }
}

type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ options: O & typeof HELP_OPTION; allowPositionals: true }>
>;

/**
 * Parses a verb's arguments. Returns null when `--help` was asked for (the usage is then printed
 * on stdout and the verb returns 0); throws UsageError for anything it cannot understand.
 */
export function parseVerbArgs<O extends Options>(
  spec: VerbSpec<O>,
  args: string[],
  stdout: (text: string) => void = (text) => process.stdout.write(text),
): Pick<Parsed<O>, "values" | "positionals"> | null {
  const options = { ...spec.options, ...HELP_OPTION };
  let parsed: Parsed<O>;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true }) as Parsed<O>;
  } catch (err) {
    throw new UsageError(spec.verb, reason(err, options), spec.usage);
  }
  // `help` is always among the options (HELP_OPTION), whatever the verb declares.
  if ("help" in parsed.values && parsed.values.help === true) {
    stdout(spec.usage.endsWith("\n") ? spec.usage : `${spec.usage}\n`);
    return null;
  }
  const { min, max, name } = spec.positionals ?? { min: 0, max: 0, name: "" };
  const got = parsed.positionals;
  if (got.length < min) throw new UsageError(spec.verb, `missing ${name}`, spec.usage);
  if (got.length > max) {
    const extra = got.slice(max).join(" ");
    throw new UsageError(
      spec.verb,
      max === 0 ? `unexpected argument '${extra}'` : `too many arguments: ${extra}`,
      spec.usage,
    );
  }
  return { values: parsed.values, positionals: got };
}
