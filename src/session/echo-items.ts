/**
 * Echo removal on renderable items: the echo is found on the joined text (see terminal/echo.ts),
 * then the same number of characters is dropped from the items, keeping their line numbers.
 */
import { stripEcho } from "../terminal/echo.ts";
import type { Item } from "../terminal/render.ts";
import { itemsText } from "../terminal/output-region.ts";

export type EchoResult = { pending: true } | { pending: false; items: Item[]; text: string; echoed: boolean };

export function withoutEcho(items: Item[], sent: string | null, enter: boolean): EchoResult {
  const text = itemsText(items);
  if (!sent) return { pending: false, items, text, echoed: false };
  const state = stripEcho(text, sent, enter);
  if (state.status === "pending") return { pending: true };
  if (state.status === "absent") return { pending: false, items, text, echoed: false };
  return { pending: false, items: dropChars(items, text.length - state.rest.length), text: state.rest, echoed: true };
}

/** Drops the first `n` characters of the items' joined text (newlines count as one). */
export function dropChars(items: Item[], n: number): Item[] {
  let left = n;
  for (let k = 0; k < items.length; k++) {
    const it = items[k]!;
    const len = "gap" in it ? 0 : it.text.length;
    if (left <= len) {
      if ("gap" in it) return items.slice(k);
      return [{ ...it, text: it.text.slice(left) }, ...items.slice(k + 1)];
    }
    left -= len + 1; // the newline joining it to the next item
    if (left < 0) return items.slice(k + 1);
  }
  return [];
}
