/**
 * What a pipeline of simple text commands prints, when it can be known from the line alone:
 * `echo`/`printf` of words, through `cat`, `tee`, `base64 -d` (`openssl base64 -d`), `xxd -r -p`, `rev`. A shell fed
 * that text (`echo cm0gLXJmIC8= | base64 -d | sh`) runs it, so the guard parses it as a script.
 */
import { posix } from "node:path";
import type { SimpleCommand } from "./parse.ts";
import { filterOutput } from "./text-filters.ts";

/** Where a looked-up program is said to be: only its base name matters to the rules. */
const PROGRAM_DIR = "/usr/bin";
/** Pipelines longer than this are not followed (the text is then unknown). */
const MAX_STAGES = 8;

function baseName(program: string): string {
  return program.slice(program.lastIndexOf("/") + 1);
}

/** `\n`, `\t`, `\\`, `\xHH`, `\0NNN`/`\NNN` as echo -e and printf decode them. */
function decodeEscapes(text: string): string {
  return text.replace(/\\(x[0-9a-fA-F]{1,2}|0?[0-7]{1,3}|.)/g, (_m, e: string) => {
    if (e[0] === "x") return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8) & 0xff);
    return ({ n: "\n", t: "\t", r: "\r", "\\": "\\", a: "\x07", e: "\x1b" } as Record<string, string>)[e] ?? `\\${e}`;
  });
}

/** printf FORMAT ARGS: each %s/%b takes the next argument; the format is used again while arguments remain. */
function printf(args: string[]): string {
  const [format = "", ...rest] = args;
  let out = "";
  let i = 0;
  do {
    // %s puts an argument in as it is; %b decodes its escapes first.
    out += decodeEscapes(format).replace(/%[sb]/g, (spec) => {
      const arg = rest[i++] ?? "";
      return spec === "%b" ? decodeEscapes(arg) : arg;
    });
  } while (i > 0 && i < rest.length);
  return out;
}

function fromBase64(text: string): string | null {
  const clean = text.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/=_-]*$/.test(clean)) return null;
  return Buffer.from(clean, "base64").toString("latin1");
}

/** RFC 4648 base32 (`base32 -d`). */
function fromBase32(text: string): string | null {
  const clean = text.replace(/[\s=]+/g, "").toUpperCase();
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  if (!/^[A-Z2-7]*$/.test(clean)) return null;
  let bits = "";
  for (const c of clean) bits += alphabet.indexOf(c).toString(2).padStart(5, "0");
  const bytes = bits.match(/.{8}/g) ?? [];
  return String.fromCharCode(...bytes.map((b) => parseInt(b, 2)));
}

function gunzipped(text: string): string | null {
  try {
    return Buffer.from(Bun.gunzipSync(Buffer.from(text, "latin1"))).toString("latin1");
  } catch {
    return null;
  }
}

/** `sed 's/A/B/[g]'` (any delimiter, one or more `-e` scripts); null for any other sed program. */
function sedSubstitute(args: string[], text: string): string | null {
  const scripts = args.filter((a, i) => !a.startsWith("-") || args[i - 1] === "-e").filter((a) => a !== "-e");
  if (scripts.length === 0 || args.some((a) => /^-[a-zA-Z]*[inf]/.test(a) && a !== "-e")) return null;
  let out = text;
  for (const script of scripts) {
    const m = /^s(.)((?:(?!\1).)*)\1((?:(?!\1).)*)\1(g?)$/.exec(script);
    if (!m) return null;
    const pattern = new RegExp(
      m[2]!.replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === "." || c === "*" || c === "^" || c === "$" ? c : `\\${c}`)),
      m[4] === "g" ? "g" : "",
    );
    out = out
      .split("\n")
      .map((l) => l.replace(pattern, m[3]!.replace(/\$/g, "$$$$")))
      .join("\n");
  }
  return out;
}

/** What one command prints given `input` on stdin (null: unknown). */
function outputOf(cmd: SimpleCommand, input: string | null): string | null {
  const [program = "", ...args] = cmd.argv;
  const stdin = cmd.stdin ?? input;
  // `(echo rm -rf /) | sh`: a subshell prints what its one pipeline prints.
  if (cmd.argv.length === 0) {
    const inner = cmd.nested.length === 1 ? cmd.nested[0]!.pipelines : [];
    return inner.length === 1 ? pipelineText(inner[0]!) : null;
  }
  const filtered = filterOutput(baseName(program).replace(/(?<=^(python|perl|ruby|node))[\d.]+$/, ""), args, stdin);
  if (filtered !== undefined) return filtered;
  switch (baseName(program)) {
    // `$(realpath ~)`, `$(readlink -f /)`: the path itself, which the rules resolve.
    case "realpath":
    case "readlink": {
      const paths = args.filter((a) => !a.startsWith("-"));
      const canonical = program === "realpath" || args.some((a) => /^-[a-zA-Z]*[fem]/.test(a));
      return canonical && paths.length === 1 ? `${paths[0]}\n` : null;
    }
    // `$(dirname "$PWD")`: a variable's parent is `$VAR/..`, which the rules resolve; a path's, its dirname.
    case "dirname": {
      const paths = args.filter((a) => !a.startsWith("-"));
      if (paths.length !== 1) return null;
      const path = paths[0]!.replace(/\/+$/, "");
      return /^(\$\{?\w+\}?|\$\(pwd\)|~)$/.test(path) ? `${path}/..\n` : `${posix.dirname(path)}\n`;
    }
    case "echo": {
      const flags = args.filter((a) => /^-[neE]+$/.test(a));
      const words = args.slice(flags.length).join(" ");
      return flags.some((f) => f.includes("e")) ? decodeEscapes(words) : `${words}\n`;
    }
    case "printf":
      return printf(args);
    case "cat":
    case "tee":
      return args.some((a) => !a.startsWith("-")) && baseName(program) === "cat" ? null : stdin;
    case "base64":
    case "basenc": {
      // `-d`, `-D` (macOS), bundled `-di`, `--decode`; basenc `--base32 -d`.
      const decodes = args.some((a) => /^-[a-zA-Z]*[dD][a-zA-Z]*$|^--decode$/.test(a));
      if (!decodes || stdin === null) return null;
      return args.includes("--base32") ? fromBase32(stdin) : fromBase64(stdin);
    }
    case "base32":
      return args.some((a) => /^-[a-zA-Z]*d[a-zA-Z]*$|^--decode$/.test(a)) && stdin !== null ? fromBase32(stdin) : null;
    // `… | base64 -d | gunzip | sh`: compressed text, decompressed.
    case "gunzip":
    case "zcat":
    case "gzip":
      return (program !== "gzip" || args.some((a) => /^-[a-zA-Z]*d/.test(a))) && stdin !== null
        ? gunzipped(stdin)
        : null;
    // `sed 's/x/r/'`: the substitutions of a plain s command, over what it reads.
    case "sed":
      return stdin === null ? null : sedSubstitute(args, stdin);
    // `openssl base64 -d` / `openssl enc -base64 -d`: the same decoding by another tool.
    case "openssl":
      return /^(base64|enc)$/.test(args[0] ?? "") && args.includes("-d") && stdin !== null ? fromBase64(stdin) : null;
    case "xxd":
      return args.includes("-r") && args.includes("-p") && stdin !== null
        ? Buffer.from(stdin.replace(/\s+/g, ""), "hex").toString("latin1")
        : null;
    case "rev":
      return stdin === null
        ? null
        : stdin
            .split("\n")
            .map((l) => [...l].reverse().join(""))
            .join("\n");
    // A program's path as the shell finds it: `$(which rm)`, `$(command -v rm)`, `$(type -P rm)`.
    case "which":
      return args.length === 1 ? `${PROGRAM_DIR}/${args[0]}\n` : null;
    case "command":
    case "type":
      return args.length === 2 && /^-[vP]$/.test(args[0]!) ? `${PROGRAM_DIR}/${args[1]}\n` : null;
    default:
      return null;
  }
}

/** What the commands of `stages` print at the end of the pipe, or null when that is not known. */
export function pipelineText(stages: SimpleCommand[]): string | null {
  if (stages.length === 0 || stages.length > MAX_STAGES) return null;
  let text: string | null = null;
  for (const [i, cmd] of stages.entries()) {
    text = outputOf(cmd, i === 0 ? null : text);
    if (text === null) return null;
  }
  return text;
}
