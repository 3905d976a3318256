/**
 * A reducer rewrites one kind of command output into fewer tokens while keeping every fact a
 * model acts on (counts, failing names, file:line, the error text), and says what it dropped.
 */
export interface Reducer {
  name: string;
  /** Whether this reducer is for this command line and output. */
  applies(command: string, output: string): boolean;
  /** The reduced output and a note on what was left out, or null when there is nothing to drop. */
  reduce(output: string): { text: string; dropped: string } | null;
}

/** Splits into lines, drops the ones `drop` picks, and counts them. */
export function dropLines(output: string, drop: (line: string) => boolean): { kept: string[]; dropped: number } {
  const kept: string[] = [];
  let dropped = 0;
  for (const line of output.split("\n")) {
    if (drop(line)) dropped++;
    else kept.push(line);
  }
  return { kept, dropped };
}

/** Runs of blank lines collapsed to one (what dropping lines tends to leave behind). */
export function squeezeBlank(lines: string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    const afterText = out.length > 0 && out[out.length - 1]!.trim() !== "";
    if (line.trim() !== "" || afterText) out.push(line);
  }
  while (out.length > 0 && out[out.length - 1]!.trim() === "") out.pop();
  return out;
}
