import { describe, expect, test } from "bun:test";
import { Emulator, SCROLLBACK_KEPT_ROWS } from "../../src/terminal/emulator.ts";
import { rowsToLines } from "../../src/terminal/render.ts";
import fixtures from "../fixtures/escape-sequences.json" with { type: "json" };

interface Fixture {
  name: string;
  input?: string;
  chunks?: string[];
  chunksHex?: string[];
  cols?: number;
  expect: string[];
}

const enc = new TextEncoder();

function renderAll(em: Emulator): string[] {
  return rowsToLines(em.rowsBetween(0, em.contentEndRow()))
    .map((l) => l.text.trimEnd())
    .filter((t, i, all) => i < all.length - 1 || t.length > 0);
}

describe("golden escape-sequence fixtures → rendered text", () => {
  for (const f of fixtures as Fixture[]) {
    test(f.name, () => {
      const em = new Emulator({ cols: f.cols ?? 80, rows: 10, resetLineOnBareCr: () => true });
      const chunks = f.chunksHex
        ? f.chunksHex.map((h) => Uint8Array.from(Buffer.from(h, "hex")))
        : (f.chunks ?? [f.input!]).map((c) => enc.encode(c));
      for (const c of chunks) em.ingest(c);
      expect(renderAll(em)).toEqual(f.expect);
      em.dispose();
    });
  }
});

describe("emulator history", () => {
  test("output far beyond the screen and xterm's own scrollback lands in history, numbered", () => {
    const em = new Emulator({ cols: 80, rows: 24 });
    const text = Array.from({ length: 20_000 }, (_, i) => `n${i + 1}`).join("\r\n") + "\r\n";
    em.ingest(enc.encode(text)); // one chunk: far more lines than xterm's scrollback
    const lines = rowsToLines(em.rowsBetween(0, em.contentEndRow()));
    expect(lines.length).toBeGreaterThanOrEqual(20_000);
    expect(lines[0]).toEqual({ text: "n1", lineNo: 1 });
    expect(lines[19_999]).toEqual({ text: "n20000", lineNo: 20_000 });
    em.dispose();
  });

  test("marks report exact positions mid-stream", () => {
    const seen: Array<{ data: string; row: number; col: number }> = [];
    const em = new Emulator({
      cols: 80,
      rows: 5,
      oscId: 6973,
      onOsc: (e) => seen.push({ data: e.data, row: e.pos.row, col: e.pos.col }),
    });
    em.ingest(enc.encode("$ cmd\r\n\x1b]6973;n;C\x07a\r\nb\r\nc\r\nd\r\ne\r\nf\r\npartial\x1b]6973;n;D;0\x07$ "));
    expect(seen).toEqual([
      { data: "n;C", row: 1, col: 0 },
      { data: "n;D;0", row: 7, col: 7 },
    ]);
    em.dispose();
  });

  test("trimming xterm's scrollback after a flood keeps every row, line number, the screen and the cursor", () => {
    const lines = (prefix: string, n: number) =>
      enc.encode(Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`).join("\r\n") + "\r\n$ ");
    // The parser path (no fast path), in PTY-sized reads: xterm's own scrollback fills up.
    const trimmed = new Emulator({ cols: 80, rows: 24, fastPath: false });
    const twin = new Emulator({ cols: 80, rows: 24, fastPath: false });
    const feed = (data: Uint8Array) => {
      for (let at = 0; at < data.length; at += 4096) {
        trimmed.ingest(data.subarray(at, at + 4096));
        twin.ingest(data.subarray(at, at + 4096));
      }
    };
    feed(lines("n", 5000));
    expect(trimmed.term.buffer.normal.length).toBeGreaterThan(24 + SCROLLBACK_KEPT_ROWS);
    trimmed.trimScrollback();
    expect(trimmed.term.buffer.normal.length).toBe(24 + SCROLLBACK_KEPT_ROWS);
    expect(renderAll(trimmed)).toEqual(renderAll(twin));
    expect(trimmed.cursorPos()).toEqual(twin.cursorPos());
    expect(trimmed.screenLines()).toEqual(twin.screenLines());
    // Output after the trim is numbered as if nothing happened, and the staging area fills again.
    feed(lines("m", 3000));
    expect(renderAll(trimmed)).toEqual(renderAll(twin));
    expect(trimmed.history.endRow).toBe(twin.history.endRow);
    expect(trimmed.term.buffer.normal.length).toBe(twin.term.buffer.normal.length);
    trimmed.dispose();
    twin.dispose();
  });

  test("trimming while the fast path holds the screen's lines pending changes nothing either", () => {
    const plain = (n: number) => enc.encode(Array.from({ length: n }, (_, i) => `p${i + 1}`).join("\r\n") + "\r\n");
    const styled = (n: number) =>
      enc.encode(Array.from({ length: n }, (_, i) => `\x1b[1ms${i + 1}\x1b[0m`).join("\r\n") + "\r\n");
    const trimmed = new Emulator({ cols: 80, rows: 24 });
    const twin = new Emulator({ cols: 80, rows: 24 });
    // Styled lines fill xterm's scrollback through the parser; the plain run after them takes the
    // fast path, which leaves the last screen of lines pending (not drawn into xterm).
    for (const data of [styled(1500), plain(3000)])
      for (let at = 0; at < data.length; at += 4096) {
        trimmed.ingest(data.subarray(at, at + 4096));
        twin.ingest(data.subarray(at, at + 4096));
      }
    expect(trimmed.fastPathLines).toBeGreaterThan(0);
    trimmed.trimScrollback();
    expect(renderAll(trimmed)).toEqual(renderAll(twin));
    expect(trimmed.cursorPos()).toEqual(twin.cursorPos());
    expect(trimmed.term.buffer.normal.length).toBe(24 + SCROLLBACK_KEPT_ROWS);
    const more = styled(300);
    trimmed.ingest(more);
    twin.ingest(more);
    expect(renderAll(trimmed)).toEqual(renderAll(twin));
    trimmed.dispose();
    twin.dispose();
  });

  test("under the alternate screen the normal buffer is not trimmed", () => {
    const em = new Emulator({ cols: 80, rows: 24, fastPath: false });
    em.ingest(enc.encode(Array.from({ length: 2000 }, (_, i) => `n${i + 1}`).join("\r\n") + "\r\n"));
    const before = em.term.buffer.normal.length;
    em.ingest(enc.encode("\x1b[?1049hfull-screen app"));
    em.trimScrollback();
    expect(em.term.buffer.normal.length).toBe(before);
    em.ingest(enc.encode("\x1b[?1049l"));
    em.trimScrollback();
    expect(em.term.buffer.normal.length).toBe(24 + SCROLLBACK_KEPT_ROWS);
    expect(renderAll(em).slice(0, 2)).toEqual(["n1", "n2"]);
    em.dispose();
  });

  test("a terminal reset (ESC c) keeps what was on screen in history", () => {
    const em = new Emulator({ cols: 40, rows: 5 });
    em.ingest(enc.encode("one\r\ntwo\r\n\x1bcthree\r\n"));
    expect(renderAll(em)).toEqual(["one", "two", "three"]);
    em.dispose();
  });
});

describe("plain-text fast path", () => {
  function snapshot(em: Emulator) {
    return { rows: em.rowsBetween(0, em.contentEndRow()), screen: em.screenLines(), cursor: em.screenCursor() };
  }

  test("gives exactly what the parser gives (history, line numbers, screen, cursor)", () => {
    let seed = 7;
    let fastLines = 0;
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let trial = 0; trial < 20; trial++) {
      const cols = 20 + Math.floor(rand() * 100);
      const rows = 5 + Math.floor(rand() * 30);
      const chunks: Uint8Array[] = [];
      for (let c = 0; c < 4; c++) {
        const lines: string[] = [];
        const n = Math.floor(rand() * 1500);
        for (let i = 0; i < n; i++) {
          const len = rand() < 0.1 ? Math.floor(rand() * cols * 3) : Math.floor(rand() * 30);
          lines.push(Array.from({ length: len }, () => String.fromCharCode(0x20 + Math.floor(rand() * 95))).join(""));
        }
        let text = lines.join("\r\n") + (rand() < 0.7 ? "\r\n" : "");
        if (rand() < 0.3) text = "\x1b[1mstyled\x1b[0m\r\n" + text; // not plain: parser for a piece
        chunks.push(enc.encode(text));
      }
      const fast = new Emulator({ cols, rows });
      const slow = new Emulator({ cols, rows, fastPath: false });
      for (const chunk of chunks) {
        fast.ingest(chunk);
        slow.ingest(chunk);
      }
      expect(snapshot(fast)).toEqual(snapshot(slow));
      fastLines += fast.fastPathLines;
      fast.dispose();
      slow.dispose();
    }
    expect(fastLines).toBeGreaterThan(10_000); // the comparison did exercise the fast path
  });

  test("reads that end mid-line (as PTY reads do) still take the fast path, with the parser's result", () => {
    const cols = 80;
    const rows = 24;
    const text = Array.from({ length: 20_000 }, (_, i) => String(i + 1)).join("\r\n") + "\r\n";
    const bytes = enc.encode(text);
    const fast = new Emulator({ cols, rows });
    const slow = new Emulator({ cols, rows, fastPath: false });
    // 4095-byte reads, as a PTY master delivers: almost every one ends inside a line.
    for (let at = 0; at < bytes.length; at += 4095) {
      fast.ingest(bytes.subarray(at, at + 4095));
      slow.ingest(bytes.subarray(at, at + 4095));
    }
    expect(snapshot(fast)).toEqual(snapshot(slow));
    expect(fast.fastPathLines).toBeGreaterThan(18_000);
    fast.dispose();
    slow.dispose();
  });

  test("a read ending on a progress line's CR: the next read's text replaces that line", () => {
    const lines = (from: number) => Array.from({ length: 100 }, (_, i) => `line ${from + i}\r\n`).join("");
    const chunks = [`${lines(1)}downloading 10%\r`, `done\r\n${lines(101)}`];
    const fast = new Emulator({ cols: 80, rows: 24, resetLineOnBareCr: () => true });
    const slow = new Emulator({ cols: 80, rows: 24, fastPath: false, resetLineOnBareCr: () => true });
    for (const chunk of chunks) {
      fast.ingest(enc.encode(chunk));
      slow.ingest(enc.encode(chunk));
    }
    expect(renderAll(fast)).toContain("done");
    expect(renderAll(fast)).not.toContain("doneloading 10%");
    expect(snapshot(fast)).toEqual(snapshot(slow));
    expect(fast.fastPathLines).toBeGreaterThan(70); // the first read took the fast path, CR held
    fast.dispose();
    slow.dispose();
  });

  test("reads split anywhere (in a CR LF, a long line, a style; bare CRs) and looks mid-stream: the parser's", () => {
    let seed = 11;
    let fastLines = 0;
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let trial = 0; trial < 12; trial++) {
      const cols = 20 + Math.floor(rand() * 100);
      const rows = 5 + Math.floor(rand() * 30);
      const parts: string[] = [];
      for (let i = 0; i < 6000; i++) {
        const len = rand() < 0.05 ? Math.floor(rand() * cols * 3) : Math.floor(rand() * 12);
        parts.push(Array.from({ length: len }, () => String.fromCharCode(0x20 + Math.floor(rand() * 95))).join(""));
        parts.push(rand() < 0.003 ? "\x1b[1mstyled\x1b[0m" : "", rand() < 0.002 ? "\r" : "\r\n");
      }
      const bytes = enc.encode(parts.join(""));
      // Half the trials with the bare-CR filter on (as while a command runs): a held CR meets it.
      const filter = trial % 2 === 0;
      const fast = new Emulator({ cols, rows, resetLineOnBareCr: () => filter });
      const slow = new Emulator({ cols, rows, fastPath: false, resetLineOnBareCr: () => filter });
      for (let at = 0; at < bytes.length; ) {
        // Mostly reads of a few KiB, sometimes a byte or two (a CR without its LF, a line's last bytes).
        const size = rand() < 0.2 ? 1 + Math.floor(rand() * 3) : 1 + Math.floor(rand() * 9000);
        fast.ingest(bytes.subarray(at, at + size));
        slow.ingest(bytes.subarray(at, at + size));
        at += size;
        // A reader looking now draws what the fast path left pending, unfinished line included.
        if (rand() < 0.05) expect(snapshot(fast)).toEqual(snapshot(slow));
      }
      expect(snapshot(fast)).toEqual(snapshot(slow));
      fastLines += fast.fastPathLines;
      fast.dispose();
      slow.dispose();
    }
    expect(fastLines).toBeGreaterThan(20_000); // of 72,000: the comparison did exercise the fast path
  });
});

describe("screen clears keep absolute positions", () => {
  const cases: Array<[string, string]> = [
    ["ED 2 then home (printf '\\033[2J\\033[H')", "\x1b[2J\x1b[H"],
    ["home then ED 2 (clear, tput clear)", "\x1b[H\x1b[2J\x1b[3J"],
    ["home then ED 0", "\x1b[H\x1b[J"],
  ];
  for (const [name, clear] of cases) {
    test(`${name}: output after the clear is after a mark taken before it`, () => {
      const marks: number[] = [];
      const em = new Emulator({ cols: 40, rows: 6, oscId: 6973, onOsc: (e) => marks.push(e.pos.row) });
      em.ingest(enc.encode("old 1\r\nold 2\r\n$ cmd\r\n\x1b]6973;C\x07" + clear + "after\r\n\x1b]6973;D\x07$ "));
      const [start, end] = marks as [number, number];
      expect(end).toBeGreaterThan(start);
      expect(rowsToLines(em.rowsBetween(start, end)).map((l) => l.text)).toEqual(["after"]);
      // Nothing is lost: the rows before the clear are history, in order.
      expect(renderAll(em)).toEqual(["old 1", "old 2", "$ cmd", "after", "$"]);
      expect(em.screenLines()[0]).toBe("after");
      em.dispose();
    });
  }

  test("a clear on a blank screen adds no rows", () => {
    const em = new Emulator({ cols: 40, rows: 6 });
    em.ingest(enc.encode("\x1b[H\x1b[2J\x1b[H\x1b[2Jx"));
    expect(em.history.size).toBe(0);
    expect(renderAll(em)).toEqual(["x"]);
    em.dispose();
  });
});

describe("terminal answers", () => {
  test("a cursor position query is answered with where the cursor stands at the query", () => {
    const reports: string[] = [];
    const em = new Emulator({ cols: 80, rows: 24, onCursorReport: (r) => reports.push(r) });
    em.ingest(enc.encode("first\r\nab\x1b[6nlater text\x1b[?6n"));
    // Row 2, column 3 (after "ab"); the private form (DECXCPR) is not this query.
    expect(reports).toEqual(["\x1b[2;3R"]);
    em.dispose();
  });
});
