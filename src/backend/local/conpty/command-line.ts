/**
 * What CreateProcessW takes instead of an argv and an environment object: one command line that
 * the program's C runtime splits back into the same argv (the rules of CommandLineToArgvW and the
 * MSVC runtime), and a sorted, double-NUL-terminated UTF-16 environment block.
 */

/** Quotes one argument so CommandLineToArgvW gives it back unchanged. */
export function quoteWindowsArg(arg: string): string {
  if (arg.length > 0 && !/[\s"]/.test(arg)) return arg;
  let out = '"';
  let backslashes = 0;
  for (const ch of arg) {
    if (ch === "\\") {
      backslashes++;
      continue;
    }
    // Backslashes are literal unless they precede a quote: then each one, and the quote, is escaped.
    out += "\\".repeat(ch === '"' ? backslashes * 2 + 1 : backslashes) + ch;
    backslashes = 0;
  }
  // Before the closing quote, backslashes double so they do not escape it.
  return `${out}${"\\".repeat(backslashes * 2)}"`;
}

export function windowsCommandLine(argv: readonly string[]): string {
  return argv.map(quoteWindowsArg).join(" ");
}

/**
 * `NAME=value\0…\0\0` in UTF-16, sorted case-insensitively as Windows expects. Names Windows keeps
 * case-insensitively (Path and PATH) are one variable: the last one given wins.
 */
export function environmentBlock(env: Record<string, string>): Uint16Array {
  const byName = new Map<string, [string, string]>();
  for (const [name, value] of Object.entries(env)) {
    if (name.length === 0 || name.includes("=") || name.includes("\0") || value.includes("\0")) continue;
    byName.set(name.toUpperCase(), [name, value]);
  }
  const entries = [...byName.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const text = `${entries.map(([, [name, value]]) => `${name}=${value}\0`).join("")}\0`;
  const block = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) block[i] = text.charCodeAt(i);
  return block;
}
