/**
 * Programs given on the command line to an interpreter: `python3 -c '…'`, `perl -e '…'`,
 * `node -e '…'`, `ruby -e '…'`, `php -r '…'`, `awk '…'`. What they delete (`shutil.rmtree("/")`,
 * `FileUtils.rm_rf(Dir.home)`, `fs.rmSync("/", {recursive: true})`) and the shell lines they run
 * (`os.system("rm -rf /")`, `system("…")`, backticks, `subprocess.run([…])`) are read from the
 * code's string literals; code that computes its paths or commands is not followed.
 */
import { argvLine } from "./shell-quote.ts";

/** Per interpreter (version suffix dropped): the options whose value is the program text. */
const CODE_OPTIONS: Record<string, string[]> = {
  python: ["-c"],
  perl: ["-e", "-E"],
  ruby: ["-e"],
  node: ["-e", "--eval", "-p", "--print"],
  nodejs: ["-e", "--eval", "-p", "--print"],
  bun: ["-e", "--eval", "-p", "--print"],
  php: ["-r"],
  lua: ["-e"],
  luajit: ["-e"],
  osascript: ["-e"],
  Rscript: ["-e"],
  julia: ["-e", "-E", "--eval"],
};
const AWKS = new Set(["awk", "gawk", "mawk", "nawk"]);
/** awk's options that take a value (`-F :`, `-v x=1`): its program is the first other word. */
const AWK_VALUED = new Set(["-F", "-v", "-f", "--field-separator", "--assign", "--file"]);

/** The program text given to an interpreter on its command line, or null. */
export function programText(argv: string[]): string | null {
  const program = (argv[0] ?? "").replace(/[\d.]+$/, "");
  if (AWKS.has(program)) {
    for (let i = 1; i < argv.length; i++) {
      const a = argv[i]!;
      if (a === "-f" || a === "--file") return null; // the program is in a file
      if (AWK_VALUED.has(a)) i++;
      else if (!a.startsWith("-")) return a;
    }
    return null;
  }
  if (program === "deno" && argv[1] === "eval") return argv[2] ?? null;
  const opts = CODE_OPTIONS[program];
  if (!opts) return null;
  const texts: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (opts.includes(a)) texts.push(argv[++i] ?? "");
    else {
      // Attached or bundled: `-e'…'`, `-le '…'` (perl), `--eval=…`.
      const eq = opts.find((o) => o.startsWith("--") && a.startsWith(`${o}=`));
      if (eq) texts.push(a.slice(eq.length + 1));
      else if (/^-[a-zA-Z]+$/.test(a) && opts.some((o) => o.length === 2 && a.endsWith(o[1]!)))
        texts.push(argv[++i] ?? "");
    }
  }
  return texts.length > 0 ? texts.join("\n") : null;
}

/** A quoted string literal: '…', "…" or `…` (escapes kept as written; interpolation is not run). */
const STRING = String.raw`'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"`;
/** Expressions that mean the home directory in these languages. */
const HOME_EXPR = new RegExp(
  [
    String.raw`os\.path\.expanduser\(\s*['"]~['"]\s*\)`,
    String.raw`os\.environ\s*\[\s*['"]HOME['"]\s*\]`,
    String.raw`os\.getenv\(\s*['"]HOME['"]\s*\)`,
    String.raw`(?:pathlib\.)?Path\.home\(\)`,
    String.raw`process\.env\.HOME`,
    String.raw`(?:os|require\(['"](?:node:)?os['"]\))\.homedir\(\)`,
    String.raw`ENV\s*\[\s*['"]HOME['"]\s*\]`,
    String.raw`\$ENV\s*\{\s*['"]?HOME['"]?\s*\}`,
    String.raw`Dir\.home`,
    String.raw`Deno\.env\.get\(\s*['"]HOME['"]\s*\)`,
  ].join("|"),
);
/** Calls that delete a tree: Python, Perl, Ruby, Node/Bun/Deno, PHP. */
const TREE_DELETERS = new RegExp(
  String.raw`\b(?:shutil\.rmtree|rmtree|remove_tree|rm_rf|rm_r|remove_dir|remove_entry(?:_secure)?|` +
    String.raw`rmSync|rmdirSync|promises\.rm|fs\.rm|rimraf(?:\.sync)?|Deno\.remove(?:Sync)?)(?:\s*\(\s*|\s+(?=['"]))`,
  "g",
);
/** Node's and Deno's removals delete a tree only when told so. */
const NEEDS_RECURSIVE = /^(rmSync|rmdirSync|promises\.rm|fs\.rm|Deno\.remove)/;

/** The first argument of the call whose `(` ends at `at`, as a path word: a literal, a home expression. */
function firstArgument(code: string, at: number): string | null {
  const rest = code.slice(at);
  const literal = new RegExp(`^(?:(?:pathlib\\.)?Path\\(\\s*)?(?:${STRING})`).exec(rest);
  if (literal) return literal[1] ?? literal[2] ?? "";
  const home = HOME_EXPR.exec(rest);
  if (home?.index === 0) {
    // `os.path.join(os.environ["HOME"])`, `Dir.home + "/x"` are left alone: only the home itself.
    return "~";
  }
  const expanded = /^os\.path\.expanduser\(\s*(?:'([^']*)'|"([^"]*)")\s*\)/.exec(rest);
  return expanded ? (expanded[1] ?? expanded[2] ?? null) : null;
}

/** The paths the code deletes as trees, as words (`~` for the home directory). */
export function codeTreeDeletions(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(TREE_DELETERS)) {
    const name = m[0].replace(/^\W*/, "");
    if (NEEDS_RECURSIVE.test(name) && !/recursive\s*[:=]\s*(true|True)/.test(code)) continue;
    const word = firstArgument(code, m.index + m[0].length);
    if (word !== null) out.push(word);
  }
  return out;
}

/** Calls that run a shell line given as one string. */
const SHELL_CALLS =
  String.raw`\b(?:os\.system|os\.popen|os\.execute|io\.popen|system2?|popen|exec|execSync|shell_exec|passthru|` +
  String.raw`spawn|spawnSync|os\.exec[lv]p?e?|` +
  String.raw`subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|do shell script)`;
/** A call given one string (a shell line) or several (`system "rm", "-rf", "/"`: an argv). */
const SHELL_STRING = new RegExp(`${SHELL_CALLS}\\s*\\(?\\s*((?:${STRING})(?:\\s*,\\s*(?:${STRING}))*)`, "g");
/** The same calls given an argv list: `subprocess.run(["rm", "-rf", "/"])`, `spawnSync("rm", ["-rf", "/"])`. */
const ARGV_LIST = new RegExp(`${SHELL_CALLS}\\s*\\(\\s*(?:(${STRING})\\s*,\\s*)?\\[([^\\]]*)\\]`, "g");
/** Backticks and `qx`/`%x` run a shell line in Perl and Ruby; awk's `print … | "sh"` pipes one into sh. */
const BACKTICKS = /`([^`]*)`|\bqx\s*[({]([^)}]*)[)}]|%x\(([^)]*)\)/g;
const AWK_TO_SHELL = new RegExp(`print\\s+(?:${STRING})\\s*\\|\\s*"(?:/bin/)?(?:ba)?sh"`, "g");

function literals(list: string): string[] {
  return [...list.matchAll(new RegExp(STRING, "g"))].map((m) => m[1] ?? m[2] ?? "");
}

/** Languages in which backticks run a shell line (in JavaScript they are only a string; julia's run a command). */
const BACKTICK_SHELLS = /^(perl|ruby|php|julia)/;
/** zx's and Bun's shell: `$\`rm -rf /\``, `Bun.$\`…\``. */
const TAGGED_SHELL = /(?:^|[^\w$])\$`([^`]*)`/g;

/**
 * Decoding calls given a base64 literal — `b64decode('…')`, `decode_base64("…")`, `Buffer.from('…',
 * 'base64')`, `atob('…')`, `Base64.decode64('…')` — as the literal of what they decode to.
 */
const BASE64_DECODERS = String.raw`(?:\b(?:base64\.)?b64decode|\bdecode_base64|\batob|\bBase64\.(?:strict_)?decode64)`;
const BASE64_CALL = new RegExp(
  // Python's bytes literal (`b64decode(b'…')`) is decoded the same.
  String.raw`${BASE64_DECODERS}\(\s*b?(?:${STRING})\s*\)(?:\.decode\([^)]*\))?|` +
    String.raw`\bBuffer\.from\(\s*(?:${STRING})\s*,\s*['"]base64['"]\s*\)(?:\.toString\([^)]*\))?`,
  "g",
);

/** Hex literals decoded (`bytes.fromhex('…')`, Perl's `pack("H*", "…")`): their text is code to read too. */
const HEX_CALL = new RegExp(
  String.raw`\bbytes\.fromhex\(\s*(?:${STRING})\s*\)|\bpack\(\s*['"]H\*['"]\s*,\s*(?:${STRING})\s*\)`,
  "g",
);
/** `chr(114)`, `String.fromCharCode(114)`: one character, as a literal. */
const CHAR_CALL = /\b(?:chr|String\.fromCharCode)\(\s*(\d{1,3})\s*\)/g;
/** Two literals joined (`'r' + 'm -rf /'`, `"a" . "b"`): one literal. */
const JOINED = /(['"])((?:(?!\1)[^\\]|\\.)*)\1\s*[+.]\s*(['"])((?:(?!\3)[^\\]|\\.)*)\3/;
/** `c = 'rm -rf /'`: a name given a literal, which a later call may be handed by name. */
const NAMED_LITERAL = new RegExp(
  String.raw`(?:^|[;\s(])(?:my\s+|const\s+|let\s+|var\s+|local\s+)?\$?([A-Za-z_]\w*)\s*=\s*(?:${STRING})`,
  "g",
);

/**
 * The code with computed literals written out: characters, joined literals, names given a literal
 * and handed to a call (`os.system(c)`), and decoded hex appended as code of its own.
 */
function withComputedLiterals(code: string): string {
  let out = code.replace(CHAR_CALL, (_m, n: string) => JSON.stringify(String.fromCharCode(Number(n))));
  for (let i = 0; i < MAX_JOINS && JOINED.test(out); i++) {
    out = out.replace(JOINED, (_m, _q1, a: string, _q2, b: string) => JSON.stringify(a + b));
  }
  for (const m of [...out.matchAll(NAMED_LITERAL)]) {
    const value = JSON.stringify(m[2] ?? m[3] ?? "");
    const call = new RegExp(String.raw`(${SHELL_CALLS}\s*\(\s*)\$?${m[1]}(?=\s*[,)])`, "g");
    out = out.replace(call, (_whole, head: string) => `${head}${value}`);
  }
  const decoded = [...out.matchAll(HEX_CALL)].map((m) => {
    const hex = m[1] ?? m[2] ?? m[3] ?? m[4] ?? "";
    return /^([0-9a-fA-F]{2})*$/.test(hex) ? Buffer.from(hex, "hex").toString("latin1") : "";
  });
  return [out, ...decoded.filter(Boolean)].join("\n");
}
/** Joined literals are folded this many times at most. */
const MAX_JOINS = 16;

function withDecodedLiterals(given: string): string {
  const code = withComputedLiterals(given);
  return code.replace(BASE64_CALL, (whole, ...groups: (string | undefined)[]) => {
    const encoded = groups.slice(0, 4).find((g) => typeof g === "string");
    if (encoded === undefined || !/^[A-Za-z0-9+/=\s]*$/.test(encoded)) return whole;
    const text = Buffer.from(encoded, "base64").toString("latin1");
    return JSON.stringify(text);
  });
}

/** The shell lines `program`'s code runs, as far as its string literals say. */
export function codeShellLines(given: string, program: string): string[] {
  const code = withDecodedLiterals(given);
  const out: string[] = [];
  for (const m of code.matchAll(SHELL_STRING)) {
    const words = literals(m[1] ?? "");
    out.push(words.length === 1 ? words[0]! : argvLine(words));
  }
  for (const m of code.matchAll(ARGV_LIST)) {
    // `os.execvp("rm", ["rm", "-rf", "/"])`: the list is the whole argv, its first word the program again.
    const head = m[1] && !/exec[lv]p?e?\s*\($/.test(m[0].slice(0, m[0].indexOf("(") + 1)) ? literals(m[1]) : [];
    out.push(argvLine([...head, ...literals(m[4] ?? "")]));
  }
  if (BACKTICK_SHELLS.test(program)) for (const m of code.matchAll(BACKTICKS)) out.push(m[1] ?? m[2] ?? m[3] ?? "");
  for (const m of code.matchAll(AWK_TO_SHELL)) out.push(m[1] ?? m[2] ?? "");
  if (/^(node|nodejs|bun|deno)/.test(program)) for (const m of code.matchAll(TAGGED_SHELL)) out.push(m[1] ?? "");
  return out.filter((l) => l.trim() !== "");
}
