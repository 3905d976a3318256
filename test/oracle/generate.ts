/**
 * The completion oracle's command generator (issue 21, "Make truth hold by method"). From a seed it
 * builds shell command lines whose output a plain pipe can reproduce exactly: builtin echo/printf
 * (written at once, so stdout and stderr keep their order in a pipe as on a terminal), stderr,
 * output with and without a final newline, long lines (wider than the terminal) and wide (CJK,
 * emoji) characters, sleeps between outputs, pipes, subshells or groups, background jobs waited
 * for, and exit codes 0–255. Lines carry no escape sequences, CRs or tabs, and no trailing blanks,
 * so ptyhub's rendering (ANSI removed, CRLF→LF, trailing blanks trimmed) changes nothing in them.
 * Every printed line holds a unique word, so no run of identical lines is collapsed.
 */
import { Prng } from "../chaos/prng.ts";

export type Dialect = "posix" | "fish";

/** A kind of fragment; the test turns whole kinds off when they hit a known bug. */
export type FragmentKind =
  | "echo"
  | "stderr"
  | "no-newline"
  | "blank"
  | "long"
  | "wide"
  | "emoji"
  | "sleep"
  | "pipe"
  | "group"
  | "and-or"
  | "background"
  | "exit-code";

export const ALL_KINDS: readonly FragmentKind[] = [
  "echo",
  "stderr",
  "no-newline",
  "blank",
  "long",
  "wide",
  "emoji",
  "sleep",
  "pipe",
  "group",
  "and-or",
  "background",
  "exit-code",
];

export interface OracleCase {
  /** The command line, as typed at the prompt and as given to `shell -c`. */
  line: string;
  /** Time the line surely takes (its sleeps): a `done` sooner than this is early. */
  minMs: number;
  /** The kinds of fragment it holds (a failure names them). */
  kinds: FragmentKind[];
}

/** Sleeps between outputs: short, so a session runs many cases; a few cases get a longer one. */
const SLEEP_MS = { min: 10, max: 120 };
/** A few sleeps are long enough for a timeout shorter than them (the test's honesty check). */
const LONG_SLEEP_MS = { min: 250, max: 500 };
const LONG_SLEEP_SHARE = 0.06;
/** The terminal is 120 columns wide: long lines go past it, up to a few rows. */
const LONG_LINE = { min: 121, max: 420 };
/** Fragments per line: most lines are short one-liners, cheap to run. */
const FRAGMENTS = { min: 1, max: 5 };
/** Depth of nested groups (subshells / begin…end). */
const MAX_DEPTH = 2;

const LATIN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
/** Punctuation safe inside single quotes in every dialect (fish treats `\` in quotes specially). */
const PUNCT = ".,:;=+-_/@#%^()[]{}<>?!~";
/** Single-width non-ASCII: accented Latin, Greek, Cyrillic, a precomposed ligature. */
const NARROW_UNICODE = ["é", "ü", "ñ", "ø", "ß", "λ", "Ω", "ж", "Я", "ﬁ", "€", "→"];
/** Double-width characters: CJK, Hangul, fullwidth forms. */
const WIDE = ["日", "本", "語", "中", "文", "한", "글", "ｗ", "漢", "字"];
/** Single-codepoint emoji: two cells for the shells (glibc's wcwidth), one for a Unicode 6 emulator. */
const EMOJI = ["🎉", "👍", "🙂", "🚀"];

export class CaseGenerator {
  private readonly rng: Prng;
  private word = 0;
  private kinds = new Set<FragmentKind>();
  private minMs = 0;

  constructor(
    seed: number,
    private readonly dialect: Dialect,
    private readonly enabled: ReadonlySet<FragmentKind>,
    /** Prefix of the unique words, so the lines of different shells differ. */
    private readonly tag: string,
  ) {
    this.rng = new Prng(seed);
  }

  next(): OracleCase {
    this.kinds = new Set();
    this.minMs = 0;
    const count = this.rng.int(FRAGMENTS.min, FRAGMENTS.max);
    const parts: string[] = [];
    for (let i = 0; i < count; i++) parts.push(this.fragment(0));
    let line = parts.join("; ");
    // The line's status: set last, so it is the line's exit code in the oracle too.
    if (this.on("exit-code") && this.rng.chance(0.5)) line += `; ${this.exitWith(this.exitCode())}`;
    return { line, minMs: this.minMs, kinds: [...this.kinds] };
  }

  private on(kind: FragmentKind): boolean {
    return this.enabled.has(kind);
  }

  private use(kind: FragmentKind): void {
    this.kinds.add(kind);
  }

  private unique(): string {
    return `${this.tag}${++this.word}`;
  }

  /** One statement; `depth` bounds nesting. */
  private fragment(depth: number): string {
    const choices: FragmentKind[] = ALL_KINDS.filter(
      (k) => this.on(k) && k !== "exit-code" && (depth < MAX_DEPTH || (k !== "group" && k !== "background")),
    );
    const kind = choices.length > 0 ? this.rng.pick(choices) : "echo";
    this.use(kind);
    switch (kind) {
      case "echo":
        return this.rng.chance(0.5) ? `echo ${quote(this.text(0, 30))}` : this.printLine(this.text(0, 60));
      case "stderr":
        return `echo ${quote(this.text(0, 30))} >&2`;
      case "no-newline":
        return `printf '%s' ${quote(this.text(0, 20))}`;
      case "blank":
        return this.rng.chance(0.5) ? "echo" : "printf '\\n'";
      case "long":
        return this.longLine();
      case "wide":
        return this.printLine(this.wideText(WIDE));
      case "emoji":
        return this.printLine(this.wideText([...WIDE, ...EMOJI]));
      case "sleep":
        return this.sleep();
      case "pipe":
        return this.pipe();
      case "group":
        return this.group(depth);
      case "and-or":
        return this.andOr();
      case "background":
        return this.background();
      default:
        return `echo ${quote(this.text(0, 10))}`;
    }
  }

  private printLine(text: string): string {
    return `printf '%s\\n' ${quote(text)}`;
  }

  /** A unique word, then `extra` more characters at most: Latin, punctuation, narrow unicode. */
  private text(minExtra: number, maxExtra: number): string {
    const extra = this.rng.int(minExtra, maxExtra);
    let out = this.unique();
    for (let i = 0; i < extra; i++) {
      const r = this.rng.next();
      if (r < 0.12) out += " ";
      else if (r < 0.22) out += this.rng.pick([...PUNCT]);
      else if (r < 0.32) out += this.rng.pick(NARROW_UNICODE);
      else out += this.rng.pick([...LATIN]);
    }
    // A word ending in a blank would be trimmed by the rendering; echo's words must not be empty.
    return out.replace(/ +$/, "").replace(/ {2,}/g, " ");
  }

  private wideText(chars: readonly string[]): string {
    // Sometimes wider than the terminal (over 60 wide characters), so a wide character wraps.
    const count = this.rng.chance(0.4) ? this.rng.int(55, 140) : this.rng.int(1, 20);
    let out = `${this.unique()} `;
    for (let i = 0; i < count; i++) {
      out += this.rng.chance(0.15) ? this.rng.pick([...LATIN]) : this.rng.pick(chars);
    }
    return out;
  }

  private longLine(): string {
    const width = this.rng.int(LONG_LINE.min, LONG_LINE.max);
    if (this.rng.chance(0.5)) {
      // Long on the terminal, short on the command line: the echo of the line does not wrap.
      const word = this.unique();
      return `printf '%s%0${width}d\\n' ${word} 0`;
    }
    let text = this.unique();
    while (text.length < width) text += this.rng.pick([...LATIN, " ", "-"]);
    return this.printLine(text.replace(/ +$/, ""));
  }

  private sleep(): string {
    const ms = this.rng.chance(LONG_SLEEP_SHARE)
      ? this.rng.int(LONG_SLEEP_MS.min, LONG_SLEEP_MS.max)
      : this.rng.int(SLEEP_MS.min, SLEEP_MS.max);
    this.minMs += ms;
    return `sleep ${(ms / 1000).toFixed(3)}`;
  }

  private pipe(): string {
    const a = this.unique();
    const b = this.unique();
    const c = this.unique();
    switch (this.rng.int(0, 3)) {
      case 0:
        return `printf '%s\\n' ${a} ${b} ${c} | sort -r`;
      case 1:
        return `echo ${a}-abc | tr a-z A-Z`;
      case 2:
        return `printf '%s\\n' ${a} ${b} ${c} | head -n 2`;
      default:
        return `printf '%s\\n' ${a} ${b} | cat | cat`;
    }
  }

  private group(depth: number): string {
    const inner: string[] = [];
    const count = this.rng.int(1, 3);
    for (let i = 0; i < count; i++) inner.push(this.fragment(depth + 1));
    if (this.on("exit-code") && this.rng.chance(0.3)) inner.push(this.exitWith(this.exitCode()));
    // fish has no subshell syntax: begin…end groups, and a child fish stands in for a subshell.
    if (this.dialect === "fish") return `begin; ${inner.join("; ")}; end`;
    return this.rng.chance(0.5) ? `( ${inner.join("; ")} )` : `{ ${inner.join("; ")}; }`;
  }

  private andOr(): string {
    const yes = this.unique();
    const no = this.unique();
    return this.rng.pick([
      `true && echo ${yes}`,
      `false || echo ${yes}`,
      `false && echo ${no}`,
      `true || echo ${no}`,
      `false && echo ${no} || echo ${yes}`,
    ]);
  }

  /** A background job that ends, waited for: its output is the command's. */
  private background(): string {
    const ms = this.rng.int(SLEEP_MS.min, SLEEP_MS.max);
    this.minMs += ms;
    const word = this.unique();
    const secs = (ms / 1000).toFixed(3);
    if (this.dialect === "fish") return `sh -c 'sleep ${secs}; echo ${word}' & wait`;
    return `(sleep ${secs}; echo ${word}) & wait`;
  }

  private exitCode(): number {
    return this.rng.pick([0, 1, 2, 0, 1, this.rng.int(0, 255), this.rng.int(0, 255), 255, 127, 126, 130]);
  }

  private exitWith(code: number): string {
    this.use("exit-code");
    if (code === 0) return "true";
    if (code === 1) return "false";
    return this.dialect === "fish" ? `sh -c 'exit ${code}'` : `(exit ${code})`;
  }
}

/** Single-quoted for every dialect: the generated text never holds a quote or a backslash. */
function quote(text: string): string {
  return `'${text}'`;
}

/**
 * What ptyhub's rendering makes of the oracle's bytes: CRLF→LF, trailing blanks of each line and
 * trailing blank lines trimmed (a terminal cannot tell a trailing blank from an empty cell).
 */
export function renderOracle(raw: string): string {
  const lines = raw
    .replace(/\r\n/g, "\n")
    .split("\n")
    .map((l) => l.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.join("\n");
}

/** Parses `PTYHUB_ORACLE_ENABLE=kind,kind` (or `all`) into extra kinds to turn on. */
export function parseKinds(value: string | undefined): FragmentKind[] {
  if (!value) return [];
  if (value.trim() === "all") return [...ALL_KINDS];
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s): s is FragmentKind => (ALL_KINDS as readonly string[]).includes(s));
}
