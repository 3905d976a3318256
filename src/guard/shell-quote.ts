/** Words as the shell line that would give them back: quoted only where the shell would split or expand them. */
export function argvLine(argv: string[]): string {
  return argv.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(" ");
}
