/**
 * The reference-terminal oracle over recorded byte streams (issue 22): tmux and ptyhub's
 * emulator parse the same bytes at the same size; their screens must be equal row by row
 * (trailing blanks trimmed) and their cursors equal, except where a stream documents a choice.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { Emulator } from "../../src/terminal/emulator.ts";
import { normalize, TmuxServer } from "./tmux.ts";
import { STREAMS } from "./streams.ts";

const DEFAULT_COLS = 40;
const DEFAULT_ROWS = 10;

const tmux = new TmuxServer();
afterAll(() => tmux.stop());
const dir = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? tmpdir(), "oracle-streams-"));
const enc = new TextEncoder();

describe("byte streams: ptyhub's screen is tmux's", () => {
  STREAMS.forEach((s, i) => {
    test(s.name, async () => {
      const cols = s.cols ?? DEFAULT_COLS;
      const rows = s.rows ?? DEFAULT_ROWS;
      const mark = `oracle-done-${i}`;
      const file = join(dir, `stream-${i}.bin`);
      // The title mark last: tmux shows it only after parsing every byte before it.
      writeFileSync(file, enc.encode(`${s.chunks.join("")}\x1b]2;${mark}\x07`));
      // No output processing (-opost): the pane gets the bytes exactly as recorded.
      const pane = await tmux.start(["sh", "-c", `stty -opost -echo; cat '${file}'; exec sleep 600`], { cols, rows });
      try {
        await pane.waitTitle(mark);
        const reference = normalize(await pane.screen());
        const refCursor = await pane.cursor();

        // As in a session running a program (not at a shell prompt): the bare-CR filter is on.
        const em = new Emulator({ cols, rows, resetLineOnBareCr: () => true });
        for (const chunk of s.chunks) em.ingest(enc.encode(chunk));
        const ours = normalize(em.screenLines());
        if (s.choice) {
          expect(ours).toEqual(s.choice.rows);
          // The choice is still a difference: if tmux agreed, the entry would be stale.
          expect(reference).not.toEqual(ours);
        } else {
          expect(ours).toEqual(reference);
          expect(em.screenCursor()).toEqual(refCursor);
        }
        em.dispose();
      } finally {
        await pane.kill();
      }
    });
  });
});
