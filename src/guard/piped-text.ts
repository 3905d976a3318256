/**
 * What a pipeline of simple text commands prints, when it can be known from the line alone:
 * `echo`/`printf` of words, through `cat`, `tee`, `base64 -d` (`openssl base64 -d`), `xxd -r -p`, `rev`. A shell fed
 * that text (`echo cm0gLXJmIC8= | base64 -d | sh`) runs it, so the guard parses it as a script.
 */
import type { SimpleCommand } from "./parse.ts";

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
    out += decodeEscapes(format).replace(/%[sb]/g, () => rest[i++] ?? "");
  } while (i > 0 && i < rest.length);
  return out;
}

function fromBase64(text: string): string | null {
  const clean = text.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/=_-]*$/.test(clean)) return null;
  return Buffer.from(clean, "base64").toString("latin1");
}

/** What one command prints given `input` on stdin (null: unknown). */
function outputOf(cmd: SimpleCommand, input: string | null): string | null {
  const [program = "", ...args] = cmd.argv;
  const stdin = cmd.stdin ?? input;
  switch (baseName(program)) {
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
    case "basenc":
      return args.some((a) => /^(-d|-D|--decode)$/.test(a)) && stdin !== null ? fromBase64(stdin) : null;
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
