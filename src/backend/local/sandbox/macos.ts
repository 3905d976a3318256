/**
 * macOS: the system sandbox through sandbox-exec and an SBPL profile that allows everything but
 * file writes, and writes only beneath the given paths. (Typechecked; not tested on this Linux
 * machine.)
 */
export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** An SBPL string literal. */
function sbplString(s: string): string {
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

export function macosProfile(writable: string[]): string {
  const rules = writable.map((p) => `(subpath ${sbplString(p)})`).join(" ");
  const terminals = '(regex #"^/dev/ttys[0-9]+$")';
  const allowed = `(allow file-write* ${rules} ${terminals})`;
  return ["(version 1)", "(allow default)", "(deny file-write*)", allowed].join("\n");
}
