/**
 * Waiting for a server a test started to say it is ready: its log stream is read until a line
 * holding `needle` appears (a barrier on its own words, not a sleep), then drained in the
 * background so a full pipe never blocks it.
 */
export async function awaitReadyLine(
  stream: ReadableStream<Uint8Array>,
  needle: string,
  timeoutMs: number,
): Promise<{ ok: true } | { ok: false; seen: string }> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  const deadline = Date.now() + timeoutMs;
  while (!seen.includes(needle)) {
    const next = await Promise.race([reader.read(), Bun.sleep(Math.max(0, deadline - Date.now())).then(() => null)]);
    if (next === null || next.done) return { ok: false, seen: seen.slice(-500) };
    seen += decoder.decode(next.value, { stream: true });
  }
  void (async () => {
    while (!(await reader.read()).done);
  })().catch(() => {});
  return { ok: true };
}
