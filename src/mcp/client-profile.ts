/**
 * What we know about the MCP client on the other end, from initialize's clientInfo: which form of
 * a result its model reads, and how large a result it passes on whole.
 *
 * Measured with the real clients (a scripted model logging every byte it receives; see
 * docs/tools.md "What the model reads"): Claude Code 2.1.330 and Codex 0.169 hand the model
 * `structuredContent` as JSON whenever a tool declares an `outputSchema`, and `content` text
 * otherwise. The JSON costs 2.7× the text for `echo hi` and 1.2× for long output (escaped
 * newlines, null fields, repeated keys) and hides the header line. So for them we answer in text
 * only; every other client gets both (programmatic clients such as the MCP SDK want the fields).
 */

export type ResultForm = "text" | "structured";
/** The `result_form` setting: `auto` picks per client, the others force one form for every client. */
export type ResultFormSetting = "auto" | ResultForm;

export interface ClientProfile {
  /** As the client announced itself (`clientInfo.name`), or "unknown". */
  name: string;
  /** A human name for messages ("Codex"), or null for a client we know nothing about. */
  label: string | null;
  form: ResultForm;
  /** The largest result, in characters, that the client hands its model whole; null: no known limit. */
  maxResultChars: number | null;
  /** How long the client waits for a tool call before it gives up on it; null: no known limit. */
  maxCallMs: number | null;
}

interface KnownClient {
  match: RegExp;
  label: string;
  maxResultChars: number;
  maxCallMs: number | null;
}

const KNOWN_CLIENTS: readonly KnownClient[] = [
  // Claude Code stores a result over ~50 KB in a file and shows the model a 2 KB preview (and refuses
  // one over ~25k tokens outright), so the header and the tail would be lost.
  // It waited out a 320 s term_exec (claude -p).
  { match: /^claude-code$/i, label: "Claude Code", maxResultChars: 50_000, maxCallMs: null },
  // Codex cuts every result to ~12,000 characters, keeping the head and tail of the whole text, and
  // gives up on a tool call after 300 s (its default tool_timeout_sec; "timed out awaiting
  // tools/call after 300s", seen with a 320 s term_exec).
  { match: /^codex/i, label: "Codex", maxResultChars: 12_000, maxCallMs: 300_000 },
];

/** Characters kept free below a client's limit for the header, hints and a small screen. */
export const RESULT_RESERVE_CHARS = 1_000;
/**
 * The budget estimator counts at most ~4 characters per token (ASCII; other characters count one
 * each), so a budget of T tokens renders to at most ~4·T characters of output.
 */
const MAX_CHARS_PER_TOKEN = 4;

export function clientProfile(info: { name?: string } | undefined, setting: ResultFormSetting = "auto"): ClientProfile {
  const name = info?.name ?? "unknown";
  const known = KNOWN_CLIENTS.find((k) => k.match.test(name));
  const form: ResultForm = setting !== "auto" ? setting : known ? "text" : "structured";
  return {
    name,
    label: known?.label ?? null,
    form,
    maxResultChars: known?.maxResultChars ?? null,
    maxCallMs: known?.maxCallMs ?? null,
  };
}

/** The largest `max_tokens` whose output still fits the client's limit whole, or null (no limit). */
export function budgetCap(profile: ClientProfile): number | null {
  if (profile.maxResultChars === null) return null;
  return Math.floor((profile.maxResultChars - RESULT_RESERVE_CHARS) / MAX_CHARS_PER_TOKEN);
}
