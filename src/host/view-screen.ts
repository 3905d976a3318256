/**
 * The MCP Apps view's screen read (term_view_screen): the session's screen as soon as it differs
 * from the one the view shows, so the view waits on one call rather than reading every second.
 * The view says what it shows by the digest of its last answer; the wait ends on a change of the
 * screen, its cursor or the session's state (the session tells of every parsed output, mark and
 * exit), or when its time is up, and answers the screen as it is then.
 */
import { createHash } from "node:crypto";
import type { HostInput, HostResult } from "../api/table.ts";
import { readSession, type ReadResult } from "../session/read.ts";
import type { Session } from "../session/session.ts";

/** A screen's whole output, whatever its size: the view shows it all. */
const SCREEN_TOKENS = 200_000;

function digestOf(r: ReadResult): string {
  const cursor = r.cursor ? `${r.cursor.row},${r.cursor.col}` : "-";
  return createHash("sha256").update(`${r.state}\n${cursor}\n${r.output}`).digest("base64url").slice(0, 32);
}

/** Settles on the session's next change, at `deadline`, or on abort. */
function nextChange(session: Session, deadline: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      off();
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const off = session.onChange(done);
    const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
    signal?.addEventListener("abort", done, { once: true });
  });
}

export async function viewScreen(
  session: Session,
  p: HostInput<"viewScreen">,
  reader: string,
  signal?: AbortSignal,
): Promise<HostResult<"viewScreen">> {
  const deadline = Date.now() + p.wait_ms;
  const read = async () => {
    const r = session.redactFields(await readSession(session, { mode: "screen", max_tokens: SCREEN_TOKENS }, reader));
    return { ...r, digest: digestOf(r) };
  };
  let shown = await read();
  while (shown.digest === p.seen && Date.now() < deadline && !signal?.aborted && session.exit === null) {
    await nextChange(session, deadline, signal);
    shown = await read();
  }
  return shown;
}
