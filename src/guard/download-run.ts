/**
 * The pipe-to-shell rule's line-level half: a script downloaded to a file and run in the same
 * line (`curl -o i.sh URL && sh i.sh`, `wget URL && bash install.sh`, `curl URL > x; . ./x`) is
 * run unseen as surely as `curl URL | sh`.
 */
import { posix } from "node:path";
import { resolveWord } from "./judged-paths.ts";
import type { RuleContext, RuleInput } from "./rules.ts";
import { SHELL_INTERPRETERS } from "./rules.ts";

/** The option naming the file each downloader writes (curl -o F, wget -O F), short and long. */
const OUTPUT_OPTION: Record<string, { short: string; long: string }> = {
  curl: { short: "-o", long: "--output" },
  wget: { short: "-O", long: "--output-document" },
};

/** The file a curl/wget invocation writes (resolved), or null when it prints to stdout or is unknown. */
function downloadTarget(input: RuleInput, ctx: RuleContext): string | null {
  const [program = "", ...args] = input.inv.argv;
  const redirect = input.inv.source.redirects.find((r) => r.op === ">" || r.op === ">|" || r.op === ">>");
  if (redirect) return resolveWord(redirect.target, ctx);
  const { short, long } = OUTPUT_OPTION[program]!;
  for (const [i, a] of args.entries()) {
    let file: string | undefined;
    if (a === short || a === long) file = args[i + 1];
    else if (a.startsWith(`${long}=`)) file = a.slice(long.length + 1);
    else if (!a.startsWith("--")) {
      // Short options bundle: `-sSLo FILE`, `-qOFILE`, `-qO-`.
      const bundled = new RegExp(`^-[a-zA-Z]*${short[1]}(.*)$`).exec(a);
      if (bundled) file = bundled[1] || args[i + 1];
    }
    if (file !== undefined) return file === "-" ? null : resolveWord(file, ctx);
  }
  // wget, and curl -O, name the file after the URL.
  const url = args.find((a) => /^[a-z]+:\/\//i.test(a));
  const remoteName = program === "wget" || args.some((a) => /^-[a-zA-Z]*O[a-zA-Z]*$/.test(a) || a === "--remote-name");
  if (!remoteName || !url) return null;
  const name = posix.basename(new URL(url).pathname);
  return name ? resolveWord(name, ctx) : null;
}

/** Why the line runs a file it downloaded, or null. */
export function downloadedThenRun(all: RuleInput[], ctx: RuleContext): string | null {
  const downloaded = new Set<string>();
  for (const input of all) {
    const program = input.inv.argv[0] ?? "";
    if (program === "curl" || program === "wget") {
      const file = safeTarget(input, ctx);
      if (file) downloaded.add(file);
      continue;
    }
    if (downloaded.size === 0) continue;
    const runner = SHELL_INTERPRETERS.has(program.replace(/[\d.]+$/, "")) || program === "source" || program === ".";
    // The script as the interpreter's first operand, or run directly (`./install.sh`).
    const script = runner ? input.inv.argv.slice(1).find((a) => !a.startsWith("-")) : input.inv.source.argv[0];
    const path = script === undefined ? null : resolveWord(script, ctx);
    if (path !== null && downloaded.has(path)) return `${script} was just downloaded and is run unseen`;
  }
  return null;
}

function safeTarget(input: RuleInput, ctx: RuleContext): string | null {
  try {
    return downloadTarget(input, ctx);
  } catch {
    return null; // an unparsable URL: nothing known about the file it names
  }
}
