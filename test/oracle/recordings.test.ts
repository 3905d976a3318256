/**
 * The reference-terminal oracle over recorded sessions (test/oracle/record.ts made them from real
 * programs on a real PTY): each read is replayed into tmux and into ptyhub's emulator, and after
 * every read the two screens (trailing blanks trimmed) and cursors must be equal. tmux gets one
 * read at a time: the pane's shell cats a read, then waits on the terminal for the test's Enter
 * (not echoed) before the next, and each read ends with a title mark, so the capture is taken
 * once tmux parsed that read and nothing after it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { Emulator } from "../../src/terminal/emulator.ts";
import type { Recording } from "./record.ts";
import { normalize, TmuxServer } from "./tmux.ts";

const RECORDINGS = join(import.meta.dir, "recordings");
const tmux = new TmuxServer();
afterAll(() => tmux.stop());
const dir = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? tmpdir(), "oracle-recordings-"));

const recordings = readdirSync(RECORDINGS)
  .filter((f) => f.endsWith(".json"))
  .map((f) => JSON.parse(readFileSync(join(RECORDINGS, f), "utf8")) as Recording);

describe("recorded sessions: after every read, ptyhub's screen is tmux's", () => {
  test("there are recordings", () => {
    expect(recordings.length).toBeGreaterThanOrEqual(5);
  });

  for (const rec of recordings) {
    test(`${rec.name} (${rec.program})`, async () => {
      const reads = rec.chunks.map((c) => Buffer.from(c, "base64"));
      const files = reads.map((bytes, i) => {
        const file = join(dir, `${rec.name}-${String(i).padStart(4, "0")}.bin`);
        writeFileSync(file, Buffer.concat([bytes, Buffer.from(`\x1b]2;${rec.name}-read-${i}\x07`)]));
        return file;
      });
      const script = `stty -opost -echo; for f in ${files.map((f) => `'${f}'`).join(" ")}; do cat "$f"; read x; done; exec sleep 600`;
      const pane = await tmux.start(["sh", "-c", script], { cols: rec.cols, rows: rec.rows });
      const em = new Emulator({ cols: rec.cols, rows: rec.rows, resetLineOnBareCr: () => true });
      try {
        for (let i = 0; i < reads.length; i++) {
          await pane.waitTitle(`${rec.name}-read-${i}`);
          em.ingest(reads[i]!);
          const at = `after read ${i + 1} of ${reads.length}`;
          expect({ at, rows: normalize(em.screenLines()), cursor: em.screenCursor() }).toEqual({
            at,
            rows: normalize(await pane.screen()),
            cursor: await pane.cursor(),
          });
          await pane.keys("Enter");
        }
      } finally {
        em.dispose();
        await pane.kill();
      }
    });
  }
});
