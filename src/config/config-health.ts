/**
 * How the configuration file stands, for the verbs that report on it (`ptyhub doctor`, `ptyhub
 * ls`): absent (every default), empty (also every default, but most likely not what was meant),
 * valid, or invalid with the reason and the fix. The server itself reads it with loadConfig.
 */
import { existsSync, readFileSync } from "node:fs";
import { ConfigError, configFilePath, loadConfig } from "./config.ts";
import { parseJsonc } from "../util/jsonc.ts";

export type ConfigHealth =
  | { state: "absent" | "empty" | "valid"; path: string }
  | { state: "invalid"; path: string; message: string; hint: string };

/** A file of nothing but white space and comments: parsed, it holds no value at all. */
function holdsNothing(path: string): boolean {
  try {
    return parseJsonc(readFileSync(path, "utf8")).root === null;
  } catch {
    return false; // a syntax error: loadConfig says what it is
  }
}

export function configHealth(env: NodeJS.ProcessEnv = process.env): ConfigHealth {
  const path = configFilePath();
  try {
    loadConfig({}, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return { state: "invalid", path, message: err.message, hint: err.hint };
  }
  if (!existsSync(path)) return { state: "absent", path };
  return { state: holdsNothing(path) ? "empty" : "valid", path };
}

/**
 * One line for a verb that does not itself need the configuration (`ptyhub ls`) to say that it is
 * broken or empty, since the sessions it lists are opened with it; null when it is fine.
 */
export function configNote(env: NodeJS.ProcessEnv = process.env): string | null {
  const health = configHealth(env);
  if (health.state === "invalid") return `note: ${health.message}\nhint: ${health.hint}`;
  if (health.state === "empty") return `note: ${health.path} is empty: every setting has its default`;
  return null;
}
