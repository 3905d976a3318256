/**
 * What every config editor returns and throws, shared by the JSON and TOML editors.
 */

export type EditAction = "add" | "remove";

/** The server entry a client should launch. */
export interface LaunchCommand {
  command: string;
  args: string[];
}

export interface EditResult {
  /** The file's new text; equal to the input when `changed` is false. */
  text: string;
  changed: boolean;
  /** For "add": whether an entry existed before (so this is an update, not a new registration). */
  existed: boolean;
}

/**
 * The file cannot be edited safely: it does not parse, has an unexpected shape, or the edit would
 * lose something (a comment). The file is left alone and the message says why.
 */
export class ConfigEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigEditError";
  }
}

/** Structural equality for parsed config values (plain objects, arrays, scalars, dates). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  if (aKeys.length === 0) return String(a) === String(b); // dates and other keyless objects
  const bRecord = b as Record<string, unknown>;
  return aKeys.every(
    (key) => Object.hasOwn(bRecord, key) && deepEqual((a as Record<string, unknown>)[key], bRecord[key]),
  );
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
