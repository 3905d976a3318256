/**
 * Results that fit the client whole. A client with a known limit (client-profile.ts) cuts or
 * files away anything larger, losing the tail a budget exists to keep and the header that says
 * what was omitted. So a call's `max_tokens` is clamped to what fits, the header says so when it
 * mattered, and a text still too large (a big full-screen app's screen) is cut by us, in the
 * middle, with a note saying where the rest is, rather than silently by the client.
 */
import { HEAD_SHARE } from "../terminal/render.ts";
import { budgetCap, type ClientProfile } from "./client-profile.ts";

export interface BudgetClamp {
  requested: number;
  cap: number;
  /** For messages: whose limit it is, and how large. */
  client: string;
  limitChars: number;
}

/** Lowers `args.max_tokens` to the client's cap (in place, on the parsed arguments); null if unchanged. */
export function clampBudget(args: Record<string, unknown>, profile: ClientProfile): BudgetClamp | null {
  const cap = budgetCap(profile);
  const requested = args.max_tokens;
  if (cap === null || typeof requested !== "number" || requested <= cap) return null;
  args.max_tokens = cap;
  return { requested, cap, client: profile.label ?? profile.name, limitChars: profile.maxResultChars ?? 0 };
}

/**
 * Time kept free below a client's tool-call timeout: the wait ends, the result is rendered and
 * delivered before the client gives up (a loaded machine takes seconds for that).
 */
export const CALL_RESERVE_MS = 10_000;
/** The arguments that bound how long a call waits. */
const WAIT_ARGS = ["timeout_ms", "wait_ms"] as const;

export interface WaitClamp {
  arg: (typeof WAIT_ARGS)[number];
  requested: number;
  cap: number;
  client: string;
  limitMs: number;
}

/**
 * Lowers a wait the client would not sit out (in place, on the parsed arguments), so the call
 * answers `running` with what to do next instead of the client's own timeout error while the
 * command runs on unseen; null if unchanged.
 */
export function clampWait(args: Record<string, unknown>, profile: ClientProfile): WaitClamp | null {
  if (profile.maxCallMs === null) return null;
  const cap = profile.maxCallMs - CALL_RESERVE_MS;
  for (const arg of WAIT_ARGS) {
    const requested = args[arg];
    if (typeof requested !== "number" || requested <= cap) continue;
    args[arg] = cap;
    return { arg, requested, cap, client: profile.label ?? profile.name, limitMs: profile.maxCallMs };
  }
  return null;
}

/** The header note for a lowered wait that the call ran into. */
export function waitClampNote(c: WaitClamp): string {
  return `${c.arg} ${c.requested} lowered to ${c.cap}: ${c.client} ends a tool call after ${c.limitMs / 1000} s`;
}

/** The header note for a clamp that changed the result. */
export function clampNote(c: BudgetClamp): string {
  return `max_tokens ${c.requested} clamped to ${c.cap}: ${c.client} passes on ~${c.limitChars} characters of a result`;
}

/** Appends `note` inside the first line's closing bracket ("[done · … · note]"), or as a line of its own. */
export function addHeaderNote(text: string, note: string): string {
  const eol = text.indexOf("\n");
  const first = eol < 0 ? text : text.slice(0, eol);
  const rest = eol < 0 ? "" : text.slice(eol);
  return first.endsWith("]") ? `${first.slice(0, -1)} · ${note}]${rest}` : `[${note}]\n${text}`;
}

/** Cuts the middle of a text longer than the client's limit, saying how much and where the rest is. */
export function fitToClient(text: string, profile: ClientProfile): string {
  const limit = profile.maxResultChars;
  if (limit === null || text.length <= limit) return text;
  const client = profile.label ?? profile.name;
  const cut = (n: number) =>
    `\n[… ${n} characters cut here to fit ${client}'s limit of ~${limit} characters; ` +
    `term_read mode:"screen" or mode:"history" reads them in smaller parts …]\n`;
  const keep = limit - cut(text.length).length;
  // Keep the head (header and first lines) and the tail, in the budget's proportions.
  const head = Math.floor(keep * HEAD_SHARE);
  const tail = keep - head;
  return text.slice(0, head) + cut(text.length - head - tail) + text.slice(text.length - tail);
}
