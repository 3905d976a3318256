/**
 * The one place ptyhub reaches into @xterm/headless's private core. xterm's public `write` is
 * asynchronous (it parses on a later tick); the session needs marks to fire at their exact place
 * in the stream and every reader to see a screen consistent with the bytes received so far, so it
 * parses synchronously through `_core.writeSync`, which xterm marks as internal ("will be removed
 * soon"). The fast path also reads the scroll region and charset, which have no public getters.
 *
 * The xterm version is pinned in package.json. `xtermCore` checks the shape at construction and
 * fails loudly, and test/unit/xterm-internals.test.ts fails the day an upgrade changes it.
 */
import type { Terminal } from "@xterm/headless";

/** The parts of xterm's internals we rely on. */
export interface XtermCore {
  /** Parses `data` now: handlers (OSC marks) run and the buffer is updated before it returns. */
  writeSync(data: string | Uint8Array): void;
  buffer: { scrollTop: number; scrollBottom: number };
  /** `charset` is the active G-set; xterm assigns it only once a charset is designated. */
  _charsetService: { charset: unknown };
}

function isXtermCore(core: unknown): core is XtermCore {
  if (typeof core !== "object" || core === null) return false;
  const c = core as Record<string, unknown>;
  const buffer = c.buffer as Record<string, unknown> | undefined;
  const charsets = c._charsetService as Record<string, unknown> | undefined;
  return (
    typeof c.writeSync === "function" &&
    typeof buffer?.scrollTop === "number" &&
    typeof buffer?.scrollBottom === "number" &&
    typeof charsets === "object" &&
    charsets !== null &&
    "glevel" in charsets
  );
}

/** The terminal's private core, checked: throws when this xterm build no longer has it. */
export function xtermCore(term: Terminal): XtermCore {
  const core: unknown = Reflect.get(term, "_core");
  if (!isXtermCore(core)) {
    throw new Error(
      "@xterm/headless no longer exposes _core.writeSync/buffer/_charsetService: see src/terminal/xterm-internals.ts",
    );
  }
  return core;
}
