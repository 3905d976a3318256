/**
 * The lines a --dry-run shows: the changed region of a file as `-`/`+` lines with a little
 * context. Our edits touch one contiguous region, so trimming the common head and tail is enough.
 */

/** Unchanged lines shown around the change. */
const CONTEXT_LINES = 2;

export function previewChange(before: string, after: string): string[] {
  const a = before === "" ? [] : before.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
  const b = after.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const contextStart = Math.max(0, head - CONTEXT_LINES);
  const contextEnd = Math.min(a.length, a.length - tail + CONTEXT_LINES);
  return [
    ...a.slice(contextStart, head).map((line) => `  ${line}`),
    ...a.slice(head, a.length - tail).map((line) => `- ${line}`),
    ...b.slice(head, b.length - tail).map((line) => `+ ${line}`),
    ...a.slice(a.length - tail, contextEnd).map((line) => `  ${line}`),
  ];
}
