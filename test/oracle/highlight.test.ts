/**
 * Highlighted spans against tmux (issue 36 item 4): real TUIs that mark their selection by colour
 * or reverse video alone run twice at the same size, in tmux and in a ptyhub session on a real
 * PTY, get the same keys, and the spans ptyhub marks ⟦so⟧ in the screen the model reads must be
 * the ones tmux's `capture-pane -e` shows highlighted (test/oracle/tmux-highlight.ts), row by row.
 * A moved selection must also show in the rows a diff reports: htop's `down` read "no rows
 * changed" before.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { ctx, newHost } from "../helpers/host.ts";
import { waitFor } from "../helpers/wait.ts";
import { SCREEN_WAIT_MS, TmuxServer, type TmuxPane } from "./tmux.ts";
import { markedHighlights, tmuxHighlights } from "./tmux-highlight.ts";

const COLS = 80;
const ROWS = 24;
/** Once both screens show a step's text, how long they get to finish drawing and agree. */
const AGREE_MS = 10_000;
const ENV = { TERM: "xterm-256color", LANG: "C.UTF-8", LESS: "", LESSHISTFILE: "-" };

const host = newHost();
const tmux = new TmuxServer();
const dir = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? tmpdir(), "highlight-"));
const file = join(dir, "words.txt");
writeFileSync(file, `${["alpha", "beta", "gamma", "beta two", "delta", "epsilon", "beta three"].join("\n")}\n`);

afterAll(async () => {
  await host.shutdown();
  await tmux.stop();
});

class Twin {
  private constructor(
    readonly name: string,
    readonly pane: TmuxPane,
  ) {}

  static async start(name: string, argv: string[]): Promise<Twin> {
    const pane = await tmux.start(argv, { cols: COLS, rows: ROWS, env: ENV, cwd: dir });
    await host.open({ name, command: argv[0]!, args: argv.slice(1), cols: COLS, rows: ROWS, env: ENV, cwd: dir }, ctx);
    return new Twin(name, pane);
  }

  ours(): string[] {
    return host.manager.get(this.name).emulator.markedScreenLines();
  }

  async theirs(): Promise<string[][]> {
    return tmuxHighlights(await tmux.run(["capture-pane", "-p", "-e", "-t", this.pane.name]), COLS);
  }

  /** A named key on both sides (ptyhub's name, tmux's); ptyhub's answer is returned. */
  async key(ours: string, theirs: string) {
    const r = await host.send({ session: this.name, keys: [ours], wait_ms: 5000, max_tokens: 4000 }, ctx);
    await this.pane.keys(theirs);
    return r;
  }

  async type(text: string): Promise<void> {
    await host.send({ session: this.name, text, enter: false, wait_ms: 0, max_tokens: 100 }, ctx);
    await this.pane.type(text);
  }

  /**
   * Waits until ptyhub's marked screen satisfies `ready` and tmux's plain screen too, then until
   * the highlighted runs agree row by row; returns ptyhub's marked rows.
   */
  async agree(what: string, ready: (marked: string) => boolean): Promise<string[]> {
    await waitFor(
      () => ready(this.ours().join("\n")),
      SCREEN_WAIT_MS,
      () => `ptyhub: ${what}:\n${this.ours().join("\n")}`,
    );
    let theirs: string[][] = [];
    await waitFor(
      async () => {
        theirs = await this.theirs();
        return JSON.stringify(markedHighlights(this.ours())) === JSON.stringify(theirs);
      },
      AGREE_MS,
      what,
    ).catch(() => {});
    expect({ what, rows: markedHighlights(this.ours()) }).toEqual({ what, rows: theirs });
    return this.ours();
  }

  async close(): Promise<void> {
    await host.close({ session: this.name }, ctx);
    await this.pane.kill();
  }
}

/** The marked rows that hold `text` inside a mark. */
function markedWith(rows: readonly string[], text: string): number[] {
  return rows.flatMap((r, i) => (markedHighlights([r])[0]!.some((t) => t.includes(text)) ? [i] : []));
}

describe.if(process.platform === "linux")("highlighted spans against tmux capture-pane -e", () => {
  for (const program of ["whiptail", "dialog"]) {
    test(`${program} --menu: the current item is marked, and moves with down`, async () => {
      const argv = [program, "--menu", "Pick one", "15", "40", "5", "1", "one", "2", "two", "3", "three"];
      const t = await Twin.start(program, argv);
      const first = await t.agree("menu drawn", (s) => s.includes("three"));
      const oneRow = markedWith(first, "one");
      expect(oneRow).toHaveLength(1);
      // What this client saw last, for the diff below.
      await host.read({ session: t.name, mode: "screen", max_tokens: 4000 }, ctx);
      const r = await t.key("down", "Down");
      const moved = await t.agree("second item selected", (s) => /⟦[^⟧]*two/.test(s));
      // The diff the model reads names the rows the selection left and reached, marks included:
      // in the key's answer on the alternate screen (whiptail), else in term_read's diff (dialog).
      const diff = r.screen ?? (await host.read({ session: t.name, mode: "diff", max_tokens: 4000 }, ctx)).output;
      expect(r.screen_mode ?? "diff").toBe("diff");
      expect(diff).toMatch(new RegExp(`^ *${oneRow[0]! + 1}\\|.*one`, "m"));
      expect(diff).toMatch(new RegExp(`^ *${oneRow[0]! + 2}\\|.*⟦[^⟧]*two`, "m"));
      expect(markedWith(moved, "two")).toEqual([oneRow[0]! + 1]);
      expect(markedWith(moved, "one")).toEqual([]);
      await t.close();
    });
  }

  test("less: the matches of a search are marked", async () => {
    const t = await Twin.start("less", ["less", file]);
    await t.agree("file shown", (s) => s.includes("epsilon"));
    await t.type("/beta\r");
    const found = await t.agree("matches highlighted", (s) => (s.match(/⟦beta⟧/g) ?? []).length >= 3);
    expect(markedWith(found, "beta")).toHaveLength(3);
    await t.close();
  });

  test("vim: a visual selection is marked", async () => {
    const t = await Twin.start("vim", ["vim", "-u", "NONE", "-N", "-n", "-i", "NONE", file]);
    await t.agree("file shown", (s) => s.includes("epsilon"));
    await t.type("jVj");
    const selected = await t.agree("two lines selected", (s) => s.includes("VISUAL LINE"));
    // Rows 2 and 3 (beta, gamma) in reverse video; the cursor's own cell is drawn plain.
    expect(markedWith(selected, "beta")).toEqual([1]);
    expect(markedWith(selected, "amma")).toEqual([2]);
    await t.type("\x1b:q!\r");
    await t.close();
  });

  test("fzf: the current line is marked, and moves with up", async () => {
    const t = await Twin.start("fzf", ["sh", "-c", `fzf < ${file}`]);
    const first = await t.agree("list drawn", (s) => s.includes("7/7"));
    expect(markedWith(first, "alpha")).toHaveLength(1);
    await t.key("up", "Up");
    const moved = await t.agree("second line current", (s) => /⟦[^⟧]*beta⟧?/.test(s) && !/⟦[^⟧]*alpha/.test(s));
    expect(markedWith(moved, "beta")).toHaveLength(1);
    await t.key("ctrl+c", "C-c");
    await t.close();
  });

  test("htop: the selection bar is marked, and down moves it in the rows the model reads", async () => {
    // By PID, with a long delay: the rows hold still between two refreshes. Its own htoprc: htop
    // saves its settings on exit, and the sort by PID would reach the other tests' htop.
    const htoprc = join(dir, "htoprc");
    const t = await Twin.start("htop", ["env", `HTOPRC=${htoprc}`, "htop", "--sort-key", "PID", "-d", "100"]);
    const rowsWithMarks = (rows: readonly string[][]) => rows.flatMap((r, i) => (r.length > 0 ? [i] : []));
    const agreeOnRows = async (what: string, ready: (marked: string) => boolean) => {
      await waitFor(
        () => ready(t.ours().join("\n")),
        SCREEN_WAIT_MS,
        () => `ptyhub: ${what}:\n${t.ours().join("\n")}`,
      );
      let theirs: number[] = [];
      const ours = () => rowsWithMarks(markedHighlights(t.ours()));
      await waitFor(
        async () => {
          theirs = rowsWithMarks(await t.theirs());
          return JSON.stringify(ours()) === JSON.stringify(theirs);
        },
        AGREE_MS,
        what,
      ).catch(() => {});
      // Two htops show different processes and figures: the rows that hold highlights must agree.
      expect({ what, rows: ours() }).toEqual({ what, rows: theirs });
      return t.ours();
    };
    const bar = (rows: readonly string[]) => rows.findIndex((r) => /⟦\s*\d+ /.test(r));
    const first = await agreeOnRows("htop drawn", (s) => /⟦ *PID/.test(s) && bar(s.split("\n")) >= 0);
    const at = bar(first);
    // What this client saw last, for the key's answer to be a diff against.
    await host.read({ session: t.name, mode: "screen", max_tokens: 4000 }, ctx);
    const r = await t.key("down", "Down");
    const moved = await agreeOnRows("bar moved", (s) => bar(s.split("\n")) === at + 1);
    expect(bar(moved)).toBe(at + 1);
    // The key's answer no longer reads "no rows changed": the rows the bar left and reached.
    expect(r.screen_mode).toBe("diff");
    expect(r.screen).toMatch(new RegExp(`^ *${at + 2}\\|.*⟦`, "m"));
    await t.key("q", "q");
    await t.close();
  });
});
