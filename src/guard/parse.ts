/**
 * A shell-line parser for the guard: enough of POSIX sh / bash grammar to see which programs a
 * typed line runs and with which arguments, the way the shell will see them. Quotes and escapes
 * are removed, `;`, `&&`, `||`, `&`, newlines and pipes split commands, and what runs inside
 * subshells, `{ …; }` groups, `$(…)`, backticks, `<(…)` and here-documents is parsed too. It does
 * not expand variables or globs (the guard's rules judge the words as typed).
 *
 * It never throws: an unterminated quote or substitution ends the word where the text ends and
 * marks the parse `incomplete`, because the guard must still judge what is there.
 */

export interface Redirect {
  /** The operator without its file descriptor: ">", ">>", "<", "&>", ">&", "<<<", … */
  op: string;
  target: string;
}

export interface SimpleCommand {
  /** The words, quotes removed, leading assignments and reserved words (`if`, `{`, `!`) dropped. */
  argv: string[];
  redirects: Redirect[];
  /** Lines run inside this command's words: `$(…)`, backticks, `<(…)`, a `( … )` subshell. */
  nested: ParsedLine[];
  /** Text given on standard input by a here-document or here-string. */
  stdin: string | null;
  /** The assignments before the command (`RAILS_ENV=test rails …`): its environment. */
  env?: string[];
}

export interface ParsedLine {
  /** Every pipeline of the line in order; a command alone is a pipeline of one. */
  pipelines: SimpleCommand[][];
  /** Names of the functions the line defines (`f() { …; }`, `function f { …; }`). */
  functions: string[];
  /**
   * Per function the line defines, how many times its own body calls it (`:(){ :|:& }` twice): a
   * function that starts two copies of itself per call multiplies; one called twice does not.
   */
  selfCalls: Record<string, number>;
  /** Variables the line sets for what follows (`d=/;`, `export c=rm`), quotes removed, in order. */
  assignments: { name: string; value: string }[];
  /** A quote, substitution or here-document was not closed. */
  incomplete: boolean;
}

/** Words that open or continue a compound command: what follows them is the command. */
const LEADING_RESERVED = new Set(["{", "!", "if", "then", "else", "elif", "do", "while", "until"]);
/** Words that only close a compound command. */
const CLOSING_RESERVED = new Set(["}", "fi", "done", "esac"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
const REDIRECT_OPS = ["&>>", "<<<", "<<-", "<<", ">>", ">&", "<&", "<>", ">|", "&>", ">", "<"];

class Parser {
  private i = 0;
  private incomplete = false;
  /** Inside `…` a backtick ends the substitution, not starts another. */
  private backticks = 0;
  private readonly functions: string[] = [];
  private readonly selfCalls: Record<string, number> = {};
  /** Function bodies being parsed, innermost last, with their `{` depth; a defined name waiting for its body. */
  private readonly bodies: { name: string; depth: number }[] = [];
  private pendingBody: string | null = null;
  private readonly assignments: { name: string; value: string }[] = [];
  /** Here-document delimiters waiting for the next newline, and where to put their bodies. */
  private pendingHeredocs: { delimiter: string; stripTabs: boolean; into: SimpleCommand }[] = [];

  constructor(private readonly s: string) {}

  parse(): ParsedLine {
    const pipelines = this.parseList(null);
    return {
      pipelines,
      functions: this.functions,
      selfCalls: this.selfCalls,
      assignments: this.assignments,
      incomplete: this.incomplete,
    };
  }

  /** Parses until `stop` (")" or "`") or the end of the text; consumes the stop character. */
  private parseList(stop: ")" | "`" | null): SimpleCommand[][] {
    const pipelines: SimpleCommand[][] = [];
    let pipeline: SimpleCommand[] = [];
    let cmd = newCommand();
    let words: string[] = [];
    const endCommand = (): void => {
      recordAssignments(words, this.assignments);
      recordReads(words, cmd.stdin, this.assignments);
      this.trackBodies(words);
      finishCommand(cmd, words, this.functions);
      const inside = this.bodies.find((b) => b.name === cmd.argv[0]);
      if (inside) this.selfCalls[inside.name] = (this.selfCalls[inside.name] ?? 0) + 1;
      const empty = cmd.argv.length + cmd.redirects.length + cmd.nested.length === 0 && cmd.stdin === null;
      if (!empty) pipeline.push(cmd);
      cmd = newCommand();
      words = [];
    };
    const endPipeline = (): void => {
      endCommand();
      if (pipeline.length > 0) pipelines.push(pipeline);
      pipeline = [];
    };
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (stop !== null && c === stop) {
        this.i++;
        endPipeline();
        return pipelines;
      }
      if (c === " " || c === "\t") {
        this.i++;
        continue;
      }
      if (c === "\n") {
        this.i++;
        endPipeline();
        this.readHeredocBodies();
        continue;
      }
      if (c === "#") {
        while (this.i < s.length && s[this.i] !== "\n") this.i++;
        continue;
      }
      if (c === ";" || c === "&") {
        const two = s.slice(this.i, this.i + 2);
        if (two === "&>") {
          this.readRedirect(cmd, "");
          continue;
        }
        this.i += two === "&&" || two === ";;" || two === ";&" ? 2 : 1;
        endPipeline();
        continue;
      }
      if (c === "|") {
        const two = s.slice(this.i, this.i + 2);
        if (two === "||") {
          this.i += 2;
          endPipeline();
        } else {
          this.i += two === "|&" ? 2 : 1;
          endCommand();
        }
        continue;
      }
      if (c === "(") {
        // `name()` defines a function; otherwise a subshell (or `((…))` arithmetic) runs a list.
        if (s[this.i + 1] === ")" && words.length > 0) {
          this.i += 2;
          const name = words[words.length - 1]!;
          this.functions.push(name);
          this.pendingBody = name;
          words = [];
          continue;
        }
        if (s[this.i + 1] === "(") {
          this.skipBalanced("((", "))");
          continue;
        }
        this.i++;
        // `f() ( f | f & )`: a subshell can be a function's body too.
        const body = this.pendingBody;
        if (body !== null) this.bodies.push({ name: body, depth: 1 });
        this.pendingBody = null;
        cmd.nested.push(this.subList(")"));
        if (body !== null) this.bodies.pop();
        continue;
      }
      if (c === ")") {
        // An unmatched `)` ends a `case` pattern (`case x in x) rm …`): the words before it are the
        // `case … in` header and the pattern, not a command; what follows is the command.
        this.i++;
        words = [];
        continue;
      }
      if (c === "<" || c === ">") {
        if (s[this.i + 1] === "(") {
          this.i += 2;
          cmd.nested.push(this.subList(")"));
          continue;
        }
        this.readRedirect(cmd, "");
        continue;
      }
      const before = this.i;
      const word = this.readWord(cmd);
      if (this.i === before) {
        // Nothing consumed the character (a backtick that would close an outer `…` met inside a
        // `$(…)` in it): skip it and call the line incomplete, so every parse ends.
        this.i++;
        this.incomplete = true;
        continue;
      }
      // A word of digits directly before a redirection is its file descriptor (`2>file`).
      if (/^\d+$/.test(word) && (s[this.i] === ">" || s[this.i] === "<")) {
        this.readRedirect(cmd, word);
        continue;
      }
      words.push(word);
    }
    if (stop !== null) this.incomplete = true;
    endPipeline();
    return pipelines;
  }

  private subList(stop: ")" | "`"): ParsedLine {
    return { pipelines: this.parseList(stop), functions: [], selfCalls: {}, assignments: [], incomplete: false };
  }

  /** Opens and closes function bodies by the `{`/`}` words leading a command (and `function NAME`). */
  private trackBodies(words: string[]): void {
    for (let k = 0; k < words.length; k++) {
      const w = words[k]!;
      if (w === "function" && k + 1 < words.length) {
        this.pendingBody = words[++k]!.replace(/\(\)$/, "");
      } else if (w === "{") {
        if (this.pendingBody !== null) this.bodies.push({ name: this.pendingBody, depth: 1 });
        else if (this.bodies.length > 0) this.bodies[this.bodies.length - 1]!.depth++;
        this.pendingBody = null;
      } else if (w === "}") {
        const top = this.bodies[this.bodies.length - 1];
        if (top && --top.depth === 0) this.bodies.pop();
      } else if (!LEADING_RESERVED.has(w)) return;
    }
  }

  private readRedirect(cmd: SimpleCommand, _fd: string): void {
    const s = this.s;
    const op = REDIRECT_OPS.find((o) => s.startsWith(o, this.i)) ?? s[this.i]!;
    this.i += op.length;
    while (s[this.i] === " " || s[this.i] === "\t") this.i++;
    const target = this.readWord(cmd);
    if (op === "<<" || op === "<<-") {
      this.pendingHeredocs.push({ delimiter: target, stripTabs: op === "<<-", into: cmd });
      cmd.stdin = cmd.stdin ?? "";
      return;
    }
    if (op === "<<<") {
      cmd.stdin = (cmd.stdin ?? "") + target + "\n";
      return;
    }
    cmd.redirects.push({ op, target });
  }

  /** After a newline: the bodies of the here-documents opened on the line before it. */
  private readHeredocBodies(): void {
    const s = this.s;
    for (const h of this.pendingHeredocs) {
      const body: string[] = [];
      let closed = false;
      while (this.i < s.length) {
        const nl = s.indexOf("\n", this.i);
        const raw = s.slice(this.i, nl === -1 ? s.length : nl);
        this.i = nl === -1 ? s.length : nl + 1;
        const line = h.stripTabs ? raw.replace(/^\t+/, "") : raw;
        if (line === h.delimiter) {
          closed = true;
          break;
        }
        body.push(line);
      }
      if (!closed) this.incomplete = true;
      h.into.stdin = (h.into.stdin ?? "") + body.join("\n") + "\n";
    }
    this.pendingHeredocs = [];
  }

  /** One word with its quotes and escapes removed; substitutions in it are parsed into `cmd.nested`. */
  private readWord(cmd: SimpleCommand): string {
    const s = this.s;
    let out = "";
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (" \t\n;&|()<>".includes(c)) {
        // `<(` / `>(` inside a word would be odd; a plain `(` after `=` starts an array: keep it literal.
        if (c === "(" && out.endsWith("=")) {
          const start = this.i;
          this.skipBalanced("(", ")");
          out += s.slice(start, this.i);
          continue;
        }
        break;
      }
      if (c === "\\") {
        if (s[this.i + 1] === "\n") this.i += 2;
        else {
          out += s[this.i + 1] ?? "";
          this.i += 2;
        }
        continue;
      }
      if (c === "'") {
        const end = s.indexOf("'", this.i + 1);
        if (end === -1) {
          this.incomplete = true;
          out += s.slice(this.i + 1);
          this.i = s.length;
        } else {
          out += s.slice(this.i + 1, end);
          this.i = end + 1;
        }
        continue;
      }
      if (c === "$" && s[this.i + 1] === "'") {
        this.i += 2;
        out += this.readAnsiC();
        continue;
      }
      if (c === '"') {
        this.i++;
        out += this.readDoubleQuoted(cmd);
        continue;
      }
      if (c === "`" && this.backticks > 0) break;
      if (c === "$" || c === "`") {
        out += this.readDollar(cmd);
        continue;
      }
      out += c;
      this.i++;
    }
    return out;
  }

  /** `$'…'` after the opening quote: bash's ANSI-C escapes decoded (`$'\x72\x6d'` is `rm`). */
  private readAnsiC(): string {
    const s = this.s;
    let out = "";
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === "'") {
        this.i++;
        return out;
      }
      if (c !== "\\") {
        out += c;
        this.i++;
        continue;
      }
      const esc = ANSI_C_ESCAPE.exec(s.slice(this.i + 1, this.i + 11));
      if (!esc) {
        this.i++;
        continue;
      }
      out += decodeAnsiC(esc[0]);
      this.i += 1 + esc[0].length;
    }
    this.incomplete = true;
    return out;
  }

  private readDoubleQuoted(cmd: SimpleCommand): string {
    const s = this.s;
    let out = "";
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === '"') {
        this.i++;
        return out;
      }
      if (c === "\\" && '$`"\\\n'.includes(s[this.i + 1] ?? "")) {
        if (s[this.i + 1] !== "\n") out += s[this.i + 1];
        this.i += 2;
        continue;
      }
      if (c === "$" || c === "`") {
        out += this.readDollar(cmd);
        continue;
      }
      out += c;
      this.i++;
    }
    this.incomplete = true;
    return out;
  }

  /** `$(…)`, `` `…` ``, `$((…))`, `${…}` or `$NAME`: returns the text as written (it is not expanded). */
  private readDollar(cmd: SimpleCommand): string {
    const s = this.s;
    const start = this.i;
    if (s[this.i] === "`") {
      this.i++;
      this.backticks++;
      cmd.nested.push(this.subList("`"));
      this.backticks--;
      return s.slice(start, this.i);
    }
    if (s.startsWith("$((", this.i)) {
      this.i++;
      this.skipBalanced("((", "))");
      return s.slice(start, this.i);
    }
    if (s.startsWith("$(", this.i)) {
      this.i += 2;
      cmd.nested.push(this.subList(")"));
      return s.slice(start, this.i);
    }
    if (s.startsWith("${", this.i)) {
      this.i++;
      this.skipBalanced("{", "}");
      return s.slice(start, this.i);
    }
    this.i++;
    const name = /^([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(s.slice(this.i));
    if (name) this.i += name[0].length;
    return s.slice(start, this.i);
  }

  /** Skips from an `open` at the cursor to its matching `close`, counting nested opens. */
  private skipBalanced(open: string, close: string): void {
    const s = this.s;
    let depth = 0;
    while (this.i < s.length) {
      if (s.startsWith(open, this.i)) {
        depth++;
        this.i += open.length;
      } else if (s.startsWith(close, this.i)) {
        depth--;
        this.i += close.length;
        if (depth === 0) return;
      } else this.i++;
    }
    this.incomplete = true;
  }
}

/** One escape after the backslash in `$'…'`: hex, octal, unicode, control, or a single character. */
const ANSI_C_ESCAPE = /^(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|[\s\S])/;
const ANSI_C_SIMPLE: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  v: "\v",
};

const MAX_CODE_POINT = 0x10ffff;

function decodeAnsiC(esc: string): string {
  const head = esc[0]!;
  if (/^[xuU]./.test(esc)) return String.fromCodePoint(Math.min(parseInt(esc.slice(1), 16), MAX_CODE_POINT));
  if (/^[0-7]/.test(esc)) return String.fromCharCode(parseInt(esc, 8) & 0xff);
  if (head === "c") return String.fromCharCode(esc.charCodeAt(1) & 0x1f);
  return ANSI_C_SIMPLE[head] ?? head;
}

function newCommand(): SimpleCommand {
  return { argv: [], redirects: [], nested: [], stdin: null };
}

/** Builtins whose NAME=value arguments set shell variables. */
const DECLARING = new Set(["export", "declare", "local", "readonly", "typeset"]);

/**
 * Builtins that set variables from text the line gives: `read c <<< rm` (words of its input, the
 * last variable taking the rest) and `printf -v c FORMAT` (the formatted text, %s filled in).
 */
function recordReads(given: string[], stdin: string | null, into: { name: string; value: string }[]): void {
  // `IFS=' ' read -ra a`: the assignments before the builtin set its environment, not its words.
  const start = given.findIndex((w) => !ASSIGNMENT.test(w));
  const words = start === -1 ? [] : given.slice(start);
  if (words[0] === "printf" && words[1] === "-v" && words[2] !== undefined && words[3] !== undefined) {
    let k = 0;
    const args = words.slice(4);
    into.push({ name: words[2], value: words[3].replace(/%[sb]/g, () => args[k++] ?? "") });
    return;
  }
  // `mapfile -t a <<< $'rm\n-rf\n/'`, `readarray a`: an array of the input's lines.
  if ((words[0] === "mapfile" || words[0] === "readarray") && stdin !== null) {
    const name = words.slice(1).find((w, i, all) => /^[A-Za-z_]\w*$/.test(w) && !/^-[dnOsuC]$/.test(all[i - 1] ?? ""));
    const lines = stdin.replace(/\n$/, "").split("\n");
    into.push(
      { name: `${name ?? "MAPFILE"}[@]`, value: lines.join(" ") },
      { name: name ?? "MAPFILE", value: lines[0] ?? "" },
    );
    return;
  }
  if (words[0] !== "read" || stdin === null) return;
  // `read -a a <<< 'rm -rf /'` (also bundled, `-ra`): an array of the input's words.
  const arrayAt = words.findIndex((w) => /^-[a-zA-Z]*a$/.test(w));
  if (arrayAt !== -1 && words[arrayAt + 1] !== undefined) {
    const items = stdin.trim().split(/\s+/);
    into.push(
      { name: `${words[arrayAt + 1]}[@]`, value: items.join(" ") },
      { name: words[arrayAt + 1]!, value: items[0] ?? "" },
    );
    return;
  }
  const names = words.slice(1).filter((w) => /^[A-Za-z_]\w*$/.test(w));
  const values = stdin.trim().split(/\s+/);
  for (const [n, name] of names.entries()) {
    const last = n === names.length - 1;
    into.push({ name, value: last ? values.slice(n).join(" ") : (values[n] ?? "") });
  }
}

/** A command of assignments only (`d=/`), `export NAME=value`, or a `for` loop's list: the variables it sets. */
function recordAssignments(words: string[], into: { name: string; value: string }[]): void {
  // `for NAME in WORDS`: NAME takes each word in turn.
  if ((words[0] === "for" || words[0] === "select") && words[2] === "in" && /^[A-Za-z_]\w*$/.test(words[1] ?? "")) {
    for (const word of words.slice(3)) {
      // `for d in "${t[@]}"`: each item of an array the line set before.
      const list = /^\$\{(\w+)\[[@*]\]\}$/.exec(word);
      const items = list ? into.findLast((a) => a.name === `${list[1]}[@]`)?.value.split(" ") : undefined;
      for (const value of items ?? [word]) into.push({ name: words[1]!, value });
    }
    return;
  }
  // `set -- a b c` (or `set a b c`) sets the positional parameters `$1`… and `$@`.
  if (words[0] === "set" && words.length > 1 && (words[1] === "--" || !/^[-+]/.test(words[1]!))) {
    const params = words.slice(words[1] === "--" ? 2 : 1);
    for (const [n, value] of params.entries()) into.push({ name: String(n + 1), value });
    into.push({ name: "@", value: params.join(" ") });
    return;
  }
  // `env D=/ sh -c …`, `sudo -E D=/ sh -c …`: the assignments after the wrapper set the command's environment.
  const unwrapped = /^(env|sudo|doas)$/.test(words[0] ?? "") ? words.slice(1).filter((w) => !w.startsWith("-")) : words;
  const declared = DECLARING.has(unwrapped[0] ?? "") ? unwrapped.slice(1).filter((w) => !w.startsWith("-")) : unwrapped;
  // `TARGET=/ sh -c 'rm -rf "$TARGET"'`: assignments before a command set its environment.
  const leading = declared.findIndex((w) => !ASSIGNMENT.test(w));
  const args = leading === -1 ? declared : declared.slice(0, leading);
  if (args.length === 0) return;
  // The value a name had last (`a+=(…)` appends to it).
  const previous = (name: string) => into.findLast((a) => a.name === name)?.value;
  for (const w of args) {
    const eq = w.indexOf("=");
    const appends = w[eq - 1] === "+";
    const name = w.slice(0, eq).replace(/\[.*$|\+$/, "");
    const value = w.slice(eq + 1);
    // `arr[2]=/`: one element of an array; `${arr[@]}` is all of them, in order.
    const index = /^[A-Za-z_]\w*\[(\d+)\]/.exec(w.slice(0, eq))?.[1];
    if (index !== undefined) {
      const items = (previous(`${name}[@]`) ?? "").split(" ").filter(Boolean);
      items[Number(index)] = value;
      into.push({ name: `${name}[${index}]`, value }, { name: `${name}[@]`, value: items.filter(Boolean).join(" ") });
      if (index === "0") into.push({ name, value });
      continue;
    }
    // `a=(rm -rf /)`: an array; `${a[@]}` is its words, `$a` the first of them. `a+=(x)` adds words.
    const array = /^\(([\s\S]*)\)$/.exec(value);
    if (array) {
      const added = parseShellLine(array[1]!).pipelines[0]?.[0]?.argv ?? [];
      const before = appends ? (previous(`${name}[@]`) ?? "").split(" ").filter(Boolean) : [];
      const items = [...before, ...added];
      into.push({ name: `${name}[@]`, value: items.join(" ") }, { name, value: items[0] ?? "" });
      // `${a[1]}`: each element by its index (`[key]=value` items of an associative array by key).
      for (const [n, item] of items.entries()) {
        const keyed = /^\[([^\]]+)\]=(.*)$/s.exec(item);
        into.push(keyed ? { name: `${name}[${keyed[1]}]`, value: keyed[2]! } : { name: `${name}[${n}]`, value: item });
      }
    } else into.push({ name, value: appends ? `${previous(name) ?? ""}${value}` : value });
  }
}

/** An unquoted `$IFS` splits a word as a space would (`rm${IFS}-rf${IFS}/`). */
const IFS_SPLIT = /\$\{IFS\}|\$IFS(?![A-Za-z0-9_])/;

/** Drops leading reserved words and assignments; records `function NAME` definitions. */
function finishCommand(cmd: SimpleCommand, words: string[], functions: string[]): void {
  let w = words.flatMap((word) => (IFS_SPLIT.test(word) ? word.split(IFS_SPLIT).filter(Boolean) : [word]));
  for (;;) {
    if (w[0] === "time") {
      // bash's `time` keyword takes -p (POSIX output format) before the command it times.
      w = w.slice(1);
      while (w[0] === "-p" || w[0] === "--") w = w.slice(1);
    } else if (w[0] === "coproc") {
      // `coproc NAME { …; }` names the coprocess; `coproc cmd …` runs cmd.
      w = w.slice(w.length >= 2 && w[2] === "{" ? 2 : 1);
    } else if (w.length > 0 && LEADING_RESERVED.has(w[0]!)) w = w.slice(1);
    else if (w.length > 0 && ASSIGNMENT.test(w[0]!)) {
      cmd.env = [...(cmd.env ?? []), w[0]!];
      w = w.slice(1);
    } else if (w[0] === "function" && w.length >= 2) {
      functions.push(w[1]!);
      w = w.slice(2);
    } else break;
  }
  if (w.length > 0 && CLOSING_RESERVED.has(w[0]!)) w = [];
  cmd.argv = w;
}

export function parseShellLine(line: string): ParsedLine {
  return new Parser(line).parse();
}
