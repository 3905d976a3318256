/**
 * What more text commands print, for piped-text.ts: `tr SET1 SET2` (a rot13 or a case change),
 * `tac`, `head`, `cut -d D -f LIST`, `yes TEXT`, and one-line programs that print one literal
 * (`python3 -c 'print("…")'`, `awk 'BEGIN{print "…"}'`, `node -e 'console.log("…")'`, perl's and
 * ruby's `print`/`puts`). A shell fed what they print runs it.
 */
import { programText } from "./one-liners.ts";

/** `yes` prints forever; this many lines stand for it (a `head` after it takes what it needs). */
const YES_LINES = 4;

/** A tr set with its ranges (`a-z`) and classes (`[:upper:]`) spelled out. */
function trSet(spec: string): string {
  const classes: Record<string, string> = {
    "[:upper:]": "A-Z",
    "[:lower:]": "a-z",
    "[:digit:]": "0-9",
    "[:alpha:]": "A-Za-z",
  };
  const text = spec.replace(/\[:[a-z]+:\]/g, (c) => classes[c] ?? c);
  let out = "";
  for (let i = 0; i < text.length; i++) {
    if (text[i + 1] === "-" && i + 2 < text.length) {
      for (let c = text.charCodeAt(i); c <= text.charCodeAt(i + 2); c++) out += String.fromCharCode(c);
      i += 2;
    } else out += text[i];
  }
  return out;
}

function tr(args: string[], text: string): string | null {
  if (args.length !== 2 || args.some((a) => a.startsWith("-"))) return null;
  const from = trSet(args[0]!);
  const to = trSet(args[1]!);
  if (to.length === 0) return null;
  // SET2 shorter than SET1 is padded with its last character, as GNU tr does.
  return [...text].map((c) => (from.includes(c) ? (to[from.indexOf(c)] ?? to[to.length - 1]!) : c)).join("");
}

function head(args: string[], text: string): string | null {
  const bytes =
    args.find((_a, i) => args[i - 1] === "-c") ?? /^-c(\d+)$/.exec(args.find((a) => /^-c\d+$/.test(a)) ?? "")?.[1];
  if (bytes !== undefined) return /^\d+$/.test(bytes) ? text.slice(0, Number(bytes)) : null;
  const lines =
    args.find((_a, i) => args[i - 1] === "-n") ??
    /^-n?(\d+)$/.exec(args.find((a) => /^-n?\d+$/.test(a)) ?? "")?.[1] ??
    "10";
  return /^\d+$/.test(lines) ? `${text.split("\n").slice(0, Number(lines)).join("\n")}\n` : null;
}

/** `cut -d' ' -f1-3`: the fields of each line (single fields, ranges, open ranges). */
function cut(args: string[], text: string): string | null {
  const delimiter = args.find((_a, i) => args[i - 1] === "-d") ?? args.find((a) => a.startsWith("-d"))?.slice(2);
  const list = args.find((_a, i) => args[i - 1] === "-f") ?? args.find((a) => a.startsWith("-f"))?.slice(2);
  if (delimiter === undefined || delimiter.length !== 1 || list === undefined) return null;
  const wanted = (n: number) =>
    list.split(",").some((r) => {
      const [lo, hi] = r.includes("-") ? r.split("-") : [r, r];
      return n >= Number(lo || 1) && n <= Number(hi || Number.MAX_SAFE_INTEGER);
    });
  const lines = text.replace(/\n$/, "").split("\n");
  return `${lines
    .map((l) =>
      l
        .split(delimiter)
        .filter((_f, k) => wanted(k + 1))
        .join(delimiter),
    )
    .join("\n")}\n`;
}

/** A string literal in one of these languages, escapes decoded (`\n`, `\t`, quotes). */
const LITERAL = String.raw`"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'`;
/** Programs that print one literal and nothing else, per interpreter family. */
const PRINTS_LITERAL: [RegExp, RegExp][] = [
  [/^python/, new RegExp(String.raw`^\s*print\(\s*(?:${LITERAL})\s*\)\s*;?\s*$`)],
  [/^(node|nodejs|bun|deno)/, new RegExp(String.raw`^\s*console\.log\(\s*(?:${LITERAL})\s*\)\s*;?\s*$`)],
  [/^(perl|ruby)/, new RegExp(String.raw`^\s*(?:print|puts|say)\s*\(?\s*(?:${LITERAL})\s*\)?\s*;?\s*$`)],
  [/^(awk|gawk|mawk|nawk)$/, new RegExp(String.raw`^\s*BEGIN\s*\{\s*print\s*\(?\s*(?:${LITERAL})\s*\)?\s*;?\s*\}\s*$`)],
];

function decodeLiteral(text: string): string {
  return text.replace(/\\(.)/g, (_m, c: string) => ({ n: "\n", t: "\t" })[c] ?? c);
}

/** What a one-line program that only prints a literal prints (with its newline). */
function printedLiteral(argv: string[]): string | null {
  const code = programText(argv);
  const program = argv[0] ?? "";
  if (code === null) return null;
  for (const [family, pattern] of PRINTS_LITERAL) {
    if (!family.test(program)) continue;
    const m = pattern.exec(code);
    if (m) return `${decodeLiteral(m[1] ?? m[2] ?? "")}\n`;
  }
  return null;
}

/** What `program` prints given `stdin`, for the filters this file knows; undefined for other programs. */
export function filterOutput(program: string, args: string[], stdin: string | null): string | null | undefined {
  switch (program) {
    case "tr":
      return stdin === null ? null : tr(args, stdin);
    case "tac":
      return stdin === null || args.length > 0
        ? null
        : `${stdin.replace(/\n$/, "").split("\n").reverse().join("\n")}\n`;
    case "head":
      return stdin === null || args.some((a) => !a.startsWith("-") && !/^\d+$/.test(a)) ? null : head(args, stdin);
    case "cut":
      return stdin === null ? null : cut(args, stdin);
    case "yes":
      return `${args.join(" ") || "y"}\n`.repeat(YES_LINES);
    default: {
      const printed = printedLiteral([program, ...args]);
      return printed ?? undefined;
    }
  }
}
