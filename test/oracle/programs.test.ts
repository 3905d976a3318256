/**
 * The reference-terminal oracle over real programs (issue 22): each runs twice at the same size,
 * in tmux and in a ptyhub session on a real PTY, gets the same input, and once both screens show
 * what the step waits for they must become equal row by row (trailing blanks trimmed), cursor
 * included. Documented differences say why.
 *
 * top and htop: two instances show different clocks, CPU figures and process lists, so their live
 * screens are compared on what does not move (the column header row, htop's function key bar,
 * at the same row), and their key-driven screens (help) whole: those wait for a key and are not
 * redrawn by the refresh timer, so once both show them they stay put.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { ctx, newHost } from "../helpers/host.ts";
import type { RedisServer } from "../helpers/redis.ts";
import type { PostgresServer } from "../helpers/postgres.ts";
import { startDatabases } from "../helpers/db-servers.ts";
import { keygen, startSshd } from "../ssh/sshd.ts";
import { sshUsable } from "./sshd.ts";
import { normalize, SCREEN_WAIT_MS, TmuxServer, type TmuxPane } from "./tmux.ts";
import { waitFor } from "../helpers/wait.ts";
import { HIGHLIGHT_CLOSE, HIGHLIGHT_OPEN } from "../../src/terminal/highlight.ts";

const COLS = 80;
const ROWS = 24;
/** The bound of term_send's wait for one key read as a model reads it (it ends on the kernel's word). */
const KEY_WAIT_MS = 5_000;
/** Once both screens show a step's text, how long they get to finish drawing and agree. */
const AGREE_MS = 10_000;
/** The same environment on both sides (the rest is the test process's, which both inherit). */
const ENV = {
  TERM: "xterm-256color",
  LANG: "C.UTF-8",
  LESS: "",
  LESSHISTFILE: "-",
  PYTHONSTARTUP: "",
};

const host = newHost();
const tmux = new TmuxServer();
let redis: RedisServer;
let postgres: PostgresServer;
/** The servers that did start, each stopped at the end (one may fail while the other starts). */
const started: Array<{ stop(): Promise<void> }> = [];
const dir = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? tmpdir(), "oracle-programs-"));

/** initdb alone takes several seconds on a busy 2-core machine: far past bun's default hook timeout. */
const SERVERS_START_MS = 60_000;

beforeAll(async () => {
  ({ redis, postgres } = await startDatabases(started));
}, SERVERS_START_MS);
afterAll(async () => {
  await host.shutdown();
  await tmux.stop();
  for (const server of started) await server.stop();
});

/** One program on both sides. */
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
    return host.manager.get(this.name).emulator.screenLines();
  }

  /** Types text (and Enter) on both sides; ptyhub's send is not waited on: the screens are. */
  async type(text: string, enter = false): Promise<void> {
    await host.send({ session: this.name, text, enter, wait_ms: 0, max_tokens: 100 }, ctx);
    await this.pane.type(text);
    if (enter) await this.pane.keys("Enter");
  }

  /**
   * Types text and Enter on ptyhub's side, waits until its screen shows `ready`, then on tmux's:
   * for a step whose two runs must not overlap. Two ssh logins at once race in pam_motd's rewrite
   * of /run/motd.dynamic, and one side once showed the message of the day without its first line.
   */
  async typeInTurn(text: string, ready: (screen: string) => boolean, what: string): Promise<void> {
    await host.send({ session: this.name, text, enter: true, wait_ms: 0, max_tokens: 100 }, ctx);
    await waitFor(() => ready(normalize(this.ours()).join("\n")), SCREEN_WAIT_MS, `ptyhub's screen: ${what}`);
    await this.pane.type(text);
    await this.pane.keys("Enter");
  }

  /** A named key on both sides: ptyhub's name and tmux's. */
  async key(ours: string, theirs: string): Promise<void> {
    await host.send({ session: this.name, keys: [ours], wait_ms: 0, max_tokens: 100 }, ctx);
    await this.pane.keys(theirs);
  }

  /**
   * Waits until both screens (rows trimmed) satisfy `ready`, then until they agree; fails with the
   * difference.
   * `ignoreRows` (0-based) are left out of the comparison, for a documented difference.
   */
  async agree(what: string, ready: (screen: string) => boolean, ignoreRows: number[] = []): Promise<string[]> {
    await waitFor(
      async () => ready(normalize(this.ours()).join("\n")),
      SCREEN_WAIT_MS,
      `ptyhub's screen: ${what}`,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; its screen:\n${normalize(this.ours()).join("\n")}`);
    });
    await this.pane.waitScreen(ready, what);
    const pick = (rows: string[]) => normalize(rows).map((r, i) => (ignoreRows.includes(i) ? "(ignored)" : r));
    let theirs: string[] = [];
    const same = async () => {
      theirs = await this.pane.screen();
      const cursorSame = JSON.stringify(await this.pane.cursor()) === JSON.stringify(this.cursor());
      return cursorSame && JSON.stringify(pick(this.ours())) === JSON.stringify(pick(theirs));
    };
    await waitFor(same, AGREE_MS, `the screens to agree: ${what}`).catch(() => {});
    expect({ what, rows: pick(this.ours()), cursor: this.cursor() }).toEqual({
      what,
      rows: pick(theirs),
      cursor: await this.pane.cursor(),
    });
    return normalize(this.ours());
  }

  /**
   * For screens that refresh on a timer with live figures: waits until both show `ready`, then
   * until the rows `stable` picks (with their row numbers) agree. The rest is not compared.
   */
  async agreeOn(what: string, ready: (screen: string) => boolean, stable: (rows: string[]) => string[]) {
    await waitFor(() => ready(normalize(this.ours()).join("\n")), SCREEN_WAIT_MS, `ptyhub's screen: ${what}`);
    await this.pane.waitScreen(ready, what);
    const pick = (rows: string[]) => stable(normalize(rows));
    let theirs: string[] = [];
    const same = async () => {
      theirs = pick(await this.pane.screen());
      return theirs.length > 0 && JSON.stringify(pick(this.ours())) === JSON.stringify(theirs);
    };
    await waitFor(same, AGREE_MS, `the stable rows to agree: ${what}`).catch(() => {});
    expect(theirs.length).toBeGreaterThan(0);
    expect({ what, rows: pick(this.ours()) }).toEqual({ what, rows: theirs });
  }

  /**
   * The screen as a model reads it, checked against tmux: term_read `screen` (the baseline this
   * client has seen), then a key through term_send waited on as a model's call is; its `screen`
   * is the rows changed since ("  3| text") or the whole screen. Once both screens show `ready`
   * and agree, the baseline with those rows applied must be tmux's screen: what the model holds
   * after the keystroke is what a terminal shows.
   */
  async keyAsRead(
    what: string,
    ours: { text?: string; keys?: string[] },
    theirs: () => Promise<void>,
    ready: (s: string) => boolean,
  ) {
    const base = await host.read({ session: this.name, mode: "screen", wait_ms: 0, max_tokens: 4000 }, ctx);
    const view = expandRepeats(base.output.split("\n"));
    const r = await host.send(
      { session: this.name, enter: false, ...ours, wait_ms: KEY_WAIT_MS, max_tokens: 4000 },
      ctx,
    );
    await theirs();
    await this.agree(what, ready);
    if (r.screen_mode === "diff") {
      for (const line of (r.screen ?? "").split("\n").filter((l) => l.length > 0)) {
        const m = /^\s*(\d+)\| ?(.*)$/.exec(line);
        if (!m) throw new Error(`not a diff row: ${JSON.stringify(line)}`);
        while (view.length < Number(m[1])) view.push("");
        view[Number(m[1]) - 1] = m[2]!;
      }
    } else view.splice(0, view.length, ...expandRepeats((r.screen ?? "").split("\n")));
    // The model's screen marks highlighted spans ⟦so⟧ (checked against tmux in highlight.test.ts);
    // tmux's plain screen has no marks.
    const unmarked = view.map((row) => row.replaceAll(HIGHLIGHT_OPEN, "").replaceAll(HIGHLIGHT_CLOSE, ""));
    expect({ what, mode: r.screen_mode, rows: normalize(unmarked) }).toEqual({
      what,
      mode: r.screen_mode,
      rows: normalize(await this.pane.screen()),
    });
    return r.screen_mode;
  }

  cursor(): { row: number; col: number } {
    return host.manager.get(this.name).emulator.screenCursor();
  }

  async close(): Promise<void> {
    await host.close({ session: this.name, signal: "KILL" }, ctx);
    await this.pane.kill();
  }
}

const has = (re: RegExp) => (s: string) => re.test(s);

/** The trimmed screen's collapsed runs (src/terminal/render.ts) written out again, as a reader would. */
function expandRepeats(rows: string[]): string[] {
  return rows.flatMap((row, i) => {
    const m = /^\[… same line repeated (\d+) more times …\]$/.exec(row);
    return m && i > 0 ? Array<string>(Number(m[1])).fill(rows[i - 1]!) : [row];
  });
}
/** The passphrase of the key the ssh case logs in with. */
const PASSPHRASE = "oracle passphrase";

/** top's task table header: the columns of its default fields. */
const TOP_HEADER = /^\s*PID USER\s+PR\s+NI\s+VIRT\s+RES\s+SHR S\s+%CPU\s+%MEM\s+TIME\+ COMMAND/m;
/** htop's process table header. */
const HTOP_HEADER = /^\s*PID USER\s+PRI\s+NI\s+VIRT\s+RES\s+SHR S\s+CPU%.?MEM%\s+TIME\+\s+Command/m;

/** The rows matching `re`, each with its row number, so a row in another place is a difference. */
function rowsMatching(re: RegExp): (rows: string[]) => string[] {
  const line = new RegExp(re.source);
  return (rows) => rows.flatMap((r, i) => (line.test(r) ? [`${i}| ${r}`] : []));
}

describe("real programs: ptyhub's screen is tmux's", () => {
  test("less: first page, next page", async () => {
    writeFileSync(join(dir, "long.txt"), Array.from({ length: 80 }, (_, i) => `row ${i + 1} of the file`).join("\n"));
    const t = await Twin.start("less", ["less", "long.txt"]);
    await t.agree("the first page", has(/row 23 of the file/));
    await t.type(" ");
    await t.agree("the second page", has(/row 46 of the file/));
    // Every row changes on a page: the whole screen is the smaller answer.
    const mode = await t.keyAsRead("the third page", { keys: ["space"] }, () => t.pane.keys("Space"), has(/row 69 of/));
    expect(mode).toBe("screen");
    await t.close();
  });

  test("vim: open a file, add a line, back to normal mode", async () => {
    writeFileSync(join(dir, "notes.txt"), "first line\nsecond line\n");
    const t = await Twin.start("vim", ["vim", "-u", "NONE", "-N", "-i", "NONE", "-n", "notes.txt"]);
    await t.agree("the file", has(/"notes\.txt" 2L/));
    await t.type("Goadded by the oracle");
    await t.agree("insert mode", has(/added by the oracle[\s\S]*-- INSERT --/));
    await t.key("escape", "Escape");
    await t.agree("normal mode", (s) => s.includes("added by the oracle") && !s.includes("-- INSERT --"));
    // dd: the row goes, the ones below move up; the model's copy must follow.
    const mode = await t.keyAsRead(
      "dd",
      { text: "dd" },
      () => t.pane.type("dd"),
      (s) => !s.includes("added by"),
    );
    expect(mode).toBe("diff");
    await t.close();
  });

  test("python3: a result, then history recall with up", async () => {
    const t = await Twin.start("py", ["python3", "-q"]);
    await t.agree("the prompt", has(/^>>>$/m));
    await t.type("print(6*7)", true);
    await t.agree("the result", has(/^42\n>>>$/m));
    await t.key("up", "Up");
    await t.agree("the recalled line", has(/^42\n>>> print\(6\*7\)$/m));
    await t.close();
  });

  test("redis-cli: commands, replies, and a half-typed command with its hint", async () => {
    const t = await Twin.start("redis", ["redis-cli", "-p", String(redis.port)]);
    const prompt = `127.0.0.1:${redis.port}>`;
    await t.agree("the prompt", (s) => s.trimEnd().endsWith(prompt));
    await t.type("set k v", true);
    await t.agree("OK", has(/^OK$/m));
    await t.type("get k", true);
    await t.agree("the value", has(/^"v"$/m));
    await t.type("hget ");
    await t.agree("the hint", has(/hget key field/));
    await t.close();
  });

  test("progress bar: fixed-width lines redrawn with CR, then a summary", async () => {
    const script = [
      "import sys, time",
      "for i in range(0, 101, 5):",
      "    sys.stdout.write(f'\\r{i:3d}% [{\"#\" * (i // 5):<20}] {i * 12:5d} kB'); sys.stdout.flush()",
      "    time.sleep(0.005)",
      "sys.stdout.write('\\nfetched 1200 kB\\nEND\\n'); sys.stdout.flush()",
      "time.sleep(600)",
    ].join("\n");
    const t = await Twin.start("bar", ["python3", "-c", script]);
    const rows = await t.agree("the summary", has(/^END$/m));
    expect(rows[0]).toBe("100% [####################]  1200 kB");
    await t.close();
  });

  test("progress rewritten shorter: the one documented difference of the CR filter", async () => {
    const script = [
      "import sys, time",
      "sys.stdout.write('downloading 42%'); sys.stdout.flush()",
      "sys.stdout.write('\\rdone\\nEND\\n'); sys.stdout.flush()",
      "time.sleep(600)",
    ].join("\n");
    const t = await Twin.start("short", ["python3", "-c", script]);
    // Row 0 differs on purpose (src/terminal/cr-filter.ts): a bare CR then plain text to the
    // line's end is a progress line redrawn; ptyhub shows "done" where tmux keeps "doneloading 42%".
    const rows = await t.agree("END", has(/^END$/m), [0]);
    expect(rows[0]).toBe("done");
    expect((await t.pane.screen())[0]!.trimEnd()).toBe("doneloading 42%");
    await t.close();
  });

  test("dialog: a message box", async () => {
    const t = await Twin.start("dialog", ["dialog", "--msgbox", "Hello from the oracle", "8", "40"]);
    await t.agree("the box", (s) => s.includes("Hello from the oracle") && s.includes("OK"));
    await t.close();
  });

  test("bash (readline): a command, history recall, a shorter recalled line", async () => {
    const t = await Twin.start("bash", ["bash", "--norc", "--noprofile", "-i"]);
    await t.agree("the prompt", has(/[$#]$/));
    await t.type("echo a somewhat longer line", true);
    await t.agree("its output", has(/^a somewhat longer line$/m));
    await t.type("echo hi", true);
    await t.agree("the second output", has(/^hi$/m));
    await t.key("up", "Up");
    await t.key("up", "Up");
    await t.key("down", "Down");
    await t.agree("the recalled shorter line", has(/echo hi$/));
    await t.close();
  });

  test("zsh (zle), fish and dash: a command and its output", async () => {
    for (const [name, argv] of [
      ["zsh", ["zsh", "-f", "-i"]],
      ["fish", ["fish", "--no-config", "-i"]],
      ["dash", ["dash", "-i"]],
    ] as const) {
      const t = await Twin.start(name, [...argv]);
      await t.agree(`${name}'s prompt`, has(/[$%#>] ?$/));
      await t.type("echo from the oracle", true);
      await t.agree(`${name}'s output`, has(/^from the oracle$/m));
      await t.close();
    }
  });

  test("node REPL and sqlite3", async () => {
    const node = await Twin.start("node", ["node"]);
    await node.agree("the prompt", has(/^> ?$/m));
    await node.type("[1, 2, 3].map((x) => x * 2)", true);
    await node.agree("the result", has(/\[ 2, 4, 6 \]/));
    await node.close();
    const sql = await Twin.start("sqlite", ["sqlite3"]);
    await sql.agree("the prompt", has(/sqlite> ?$/));
    await sql.type("select 6 * 7;", true);
    await sql.agree("the result", has(/^42$/m));
    await sql.close();
  });

  test("nano: open a file, type a line", async () => {
    writeFileSync(join(dir, "nano.txt"), "nano's first line\n");
    const t = await Twin.start("nano", ["nano", "--ignorercfiles", "nano.txt"]);
    await t.agree("the file", has(/nano's first line/));
    await t.type("typed in nano ");
    await t.agree("the typed text", has(/typed in nano nano's first line/));
    const mode = await t.keyAsRead(
      "one more word",
      { text: "again " },
      () => t.pane.type("again "),
      has(/nano again nano's/),
    );
    expect(mode).toBe("diff");
    await t.close();
  });

  test("psql against a real PostgreSQL: a query, its table, the prompt", async () => {
    const t = await Twin.start("psql", ["psql", "-h", "127.0.0.1", "-p", String(postgres.port), "-U", "postgres"]);
    await t.agree("the prompt", has(/postgres=# ?$/));
    await t.type("select 6 * 7 as answer, 'oracle' as who;", true);
    await t.agree("the table", has(/\(1 row\)\n\npostgres=#$/));
    await t.close();
  });

  test("man in its pager", async () => {
    const t = await Twin.start("man", ["man", "ls"]);
    await t.agree("the page", has(/^NAME\n\s+ls - list directory contents/m));
    await t.close();
  });

  test("git log in its pager", async () => {
    const git = "git -c user.name=Ada -c user.email=ada@example.com";
    const repo = join(dir, "repo");
    const setup = `git init -q -b main ${repo} && cd ${repo} && for i in 1 2 3 4 5 6 7 8 9; do ${git} commit -q --allow-empty -m "commit number $i"; done`;
    const made = Bun.spawnSync(["sh", "-c", setup]);
    expect(made.exitCode).toBe(0);
    const argv = ["git", "-C", repo, "-c", "core.pager=less", "log"];
    const t = await Twin.start("gitlog", argv);
    await t.agree("the log", has(/commit number 9[\s\S]*commit number 7/));
    await t.close();
  });

  test("a sudo-like password prompt (read -s): nothing typed is shown, the answer's output is", async () => {
    const script = "read -r -s -p '[sudo] password for ada: ' pw; echo; echo \"got ${#pw} characters\"; sleep 600";
    const t = await Twin.start("sudo", ["bash", "--norc", "--noprofile", "-c", script]);
    await t.agree("the prompt", has(/^\[sudo\] password for ada:$/m));
    await t.type("hunter2", true);
    await t.agree("the answer's output", has(/^got 7 characters$/m));
    await t.close();
  });

  test.skipIf(!sshUsable)(
    "ssh: the password prompt; the key passphrase prompt, the login, the remote prompt",
    async () => {
      const key = await keygen(join(dir, "id_oracle"), { passphrase: PASSPHRASE });
      const sshd = await startSshd({ authorizedKeys: readFileSync(`${key}.pub`, "utf8"), password: true });
      try {
        const user = process.env.USER ?? "root";
        // No known_hosts and no warning about adding the key: both sides see the same lines.
        const argv = [
          "ssh",
          "-p",
          String(sshd.port),
          "-o",
          "StrictHostKeyChecking=no",
          "-o",
          "UserKnownHostsFile=/dev/null",
        ];
        argv.push("-o", "LogLevel=ERROR");
        const pw = await Twin.start("sshpw", [...argv, "-o", "PubkeyAuthentication=no", `${user}@127.0.0.1`]);
        await pw.agree("the password prompt", has(/Password:$/));
        await pw.close();
        const t = await Twin.start("ssh", [...argv, "-o", "IdentitiesOnly=yes", "-i", key, `${user}@127.0.0.1`]);
        // The key's path is long enough to wrap: the prompt is matched across rows.
        const asked = (screen: string) => /Enter passphrase for key '[^']*':$/.test(screen.replace(/\n/g, ""));
        await t.agree("the passphrase prompt", asked);
        // One login after the other: see typeInTurn.
        await t.typeInTurn(PASSPHRASE, has(/[#$]$/), "the remote prompt");
        await t.agree("the remote prompt", has(/[#$]$/));
        await t.type("echo from the remote side", true);
        await t.agree("the remote output", has(/^from the remote side\n.*[#$]$/m));
        await t.close();
      } finally {
        await sshd.stop();
      }
    },
  );

  test("top: the task table's header row; the help screen whole", async () => {
    const t = await Twin.start("top", ["top", "-d", "1"]);
    await t.agreeOn("the task table", has(TOP_HEADER), rowsMatching(TOP_HEADER));
    // 'h' draws a static help page that waits for a key: the one-second refresh stops meanwhile.
    await t.type("h");
    await t.agree("the help screen", has(/Help for Interactive Commands[\s\S]*Type 'q' or <Esc> to continue/));
    await t.close();
  });

  test("htop: the process table's header row and the function key bar; the help screen whole", async () => {
    const t = await Twin.start("htop", ["htop"]);
    const bar = /^F1Help\s+F2Setup/;
    await t.agreeOn(
      "the process table",
      (s) => HTOP_HEADER.test(s) && bar.test(s.split("\n").at(-1) ?? ""),
      (rows) => [...rowsMatching(HTOP_HEADER)(rows), `${rows.length - 1}| ${rows.at(-1)}`],
    );
    // The help page (h) waits for a key and is not refreshed; at 24 rows its last visible row is the
    // kernel threads key.
    await t.type("h");
    await t.agree("the help screen", has(/^htop \d[\s\S]*K: hide\/show kernel threads.*strace$/m));
    await t.close();
  });
});
