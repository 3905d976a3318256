/**
 * Caller patterns (`until` in term_send and term_read) are compiled with RE2 semantics (re2js, a
 * pure-JS port of Go's regexp): matching time is linear in the text, so no pattern can stall the
 * process that hosts every session. JavaScript's backtracking RegExp takes exponential time on
 * patterns like `(a+)+$` (measured here: 384 ms for 25 characters, doubling per character), and
 * one such wait in the daemon stalled every other session (issue #10).
 *
 * Accepted syntax is RE2's (https://github.com/google/re2/wiki/Syntax): what JavaScript regexes
 * offer except lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`) and backreferences (`\1`, `\k<n>`);
 * repeat counts up to 1000. `^`/`$` match at line starts and ends; `(?i)` makes a pattern
 * case-insensitive, `(?s)` lets `.` match a newline.
 */
import type { RE2JS } from "re2js";
import { AppError } from "../api/errors.ts";
import { quote } from "../util/quote.ts";
import { MAX_PATTERN_CHARS, PATTERN_SYNTAX } from "../api/fields.ts";

type Re2Module = typeof import("re2js");
let re2: Re2Module | null = null;

/**
 * re2js takes ~34 ms to load (measured here, from source); most servers never see an `until`, so
 * it loads on the first pattern instead of delaying every start-up. A literal specifier, so
 * `bun build --compile` still bundles it.
 */
function engine(): Re2Module {
  if (re2 === null) {
    const loaded: Re2Module = require("re2js");
    re2 = loaded;
  }
  return re2;
}

/** A compiled caller pattern: the subset of RegExp the waits use, with linear-time matching. */
export class CallerPattern {
  private constructor(
    readonly source: string,
    private readonly re: RE2JS,
  ) {}

  /** Compiles `source`, or throws INVALID_REGEX (unsupported syntax included) with a hint. */
  static compile(source: string, param = "until"): CallerPattern {
    if (source.length === 0) {
      throw new AppError(
        "INVALID_REGEX",
        `\`${param}\` is empty`,
        'Give a regular expression to wait for, e.g. "\\\\$ $" or ">>> ".',
      );
    }
    if (source.length > MAX_PATTERN_CHARS) {
      throw new AppError(
        "INVALID_REGEX",
        `\`${param}\` is ${source.length} characters long (at most ${MAX_PATTERN_CHARS})`,
        "Wait for a shorter, distinctive part of the output.",
      );
    }
    try {
      const { RE2JS } = engine();
      return new CallerPattern(source, RE2JS.compile(source, RE2JS.MULTILINE));
    } catch (err) {
      if (!(err instanceof engine().RE2JSException)) throw err;
      throw new AppError(
        "INVALID_REGEX",
        `invalid or unsupported regular expression in \`${param}\` ${quote(source)}: ` +
          quote(err.message, { plain: true }),
        `Patterns use ${PATTERN_SYNTAX} Escape literal characters like ( [ . * + ? with a backslash.`,
      );
    }
  }

  /** The first match in `text` (its matched text), or null. Time is linear in `text`. */
  exec(text: string): [string] | null {
    const m = this.re.matcher(text);
    return m.find() ? [m.group() ?? ""] : null;
  }

  test(text: string): boolean {
    return this.re.matcher(text).find();
  }
}
