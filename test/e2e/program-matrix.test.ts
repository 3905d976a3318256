/**
 * docs/completion.md's program matrix (issue 22): each program an agent drives, run through the real MCP
 * client as a model would (started with term_exec from a bash session, or opened with term_open
 * for the shells), on a real PTY with real servers (PostgreSQL, redis-server, sshd started here on
 * loopback). Per program: the status, state and via when it waits after start, after a command, and
 * after one keystroke, and what that keystroke costs in characters of the result text (the form a
 * model reads); then the key that leaves it and the shell's end mark. The table this prints at the
 * end is docs/completion.md's (`PTYHUB_MATRIX_TABLE=1` prints it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { startMcp, type StdioMcp } from "../helpers/mcp-client.ts";
import type { PostgresServer } from "../helpers/postgres.ts";
import { startDatabases } from "../helpers/db-servers.ts";
import type { RedisServer } from "../helpers/redis.ts";
import { keygen, startSshd, type Sshd } from "../ssh/sshd.ts";
import { sshUsable } from "../oracle/sshd.ts";

/** The size the oracle compares at (test/oracle/programs.test.ts): a common terminal. */
const COLS = 80;
const ROWS = 24;
/** Far above any answer here; a program whose wait is not detected shows as via timeout at this bound. */
const EXEC_TIMEOUT_MS = 20_000;
/** term_send's default bound, which a keystroke with no signal to end on waits out. */
const SEND_WAIT_MS = 5_000;
/** The secret the elicitation handler answers term_secret with (the key's passphrase below). */
const PASSPHRASE = "matrix passphrase";

/** What a step of a row sends: text, then keys (term_send's order), or a command through term_exec. */
interface Step {
  text?: string;
  keys?: string[];
  enter?: boolean;
  exec?: string;
  /** term_secret (answered by the elicitation handler with PASSPHRASE), then term_read until this. */
  secret?: RegExp;
}

/** What the result of a step must say. */
interface Answer {
  status?: string;
  state: string;
  via: string;
  output?: RegExp;
  screen?: RegExp;
  /** screen_mode: "screen" (the trimmed screen), "diff" (the rows changed), null (no screen: output). */
  screenMode?: string | null;
}

interface Program {
  name: string;
  /** term_exec in a bash session, or a shell opened with term_open. */
  start: { exec: string } | { open: string };
  started: Answer;
  command?: { send: Step; answer: Answer };
  key: { send: Step; answer: Answer /** Characters of the result text at most. */; maxChars?: number };
  /** Back to the bash session's prompt (its end mark, checked after the last step); none for a shell. */
  quit: Step[];
}

let mcp: StdioMcp;
let redis: RedisServer;
let postgres: PostgresServer;
let sshd: Sshd | null = null;
/** The servers that did start, each stopped at the end (one may fail while another starts). */
const started: Array<{ stop(): Promise<void> }> = [];
let dir: string;
/** One line per program and step, for the table. */
const measured: {
  name: string;
  step: string;
  status?: string;
  state: string;
  via: string;
  chars: number;
  ms: number;
}[] = [];

beforeAll(async () => {
  dir = join(process.env.PTYHUB_TEST_ROOT ?? "/tmp", "program-matrix");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "notes.txt"), "first line\nsecond line\n");
  writeFileSync(join(dir, "long.txt"), Array.from({ length: 80 }, (_, i) => `row ${i + 1} of the file`).join("\n"));
  ({ redis, postgres } = await startDatabases(started));
  if (sshUsable) {
    const key = await keygen(join(dir, "id_matrix"), { passphrase: PASSPHRASE });
    sshd = await startSshd({ authorizedKeys: await Bun.file(`${key}.pub`).text(), password: true });
    started.push(sshd);
  }
  mcp = await startMcp({
    env: { PTYHUB_PERSISTENT: "0", PTYHUB_SHELL: "/bin/bash" },
    capabilities: { elicitation: {} },
  });
  mcp.client.setRequestHandler(ElicitRequestSchema, async () => ({
    action: "accept" as const,
    content: { secret: PASSPHRASE },
  }));
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  for (const server of started) await server.stop();
  if (process.env.PTYHUB_MATRIX_TABLE) console.log(table());
});

interface Result {
  text: string;
  s: Record<string, any>;
  ms: number;
}

async function call(name: string, args: Record<string, unknown>): Promise<Result> {
  const t0 = performance.now();
  const r = await mcp.raw(name, args);
  const ms = Math.round(performance.now() - t0);
  const text = (r.content[0] as { text: string }).text;
  if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${text}`);
  return { text, s: r.structuredContent as Record<string, any>, ms };
}

async function step(session: string, s: Step): Promise<Result> {
  if (s.exec !== undefined) return call("term_exec", { session, command: s.exec, timeout_ms: EXEC_TIMEOUT_MS });
  if (s.secret) {
    await call("term_secret", { session });
    return call("term_read", { session, mode: "new", until: s.secret.source, wait_ms: SEND_WAIT_MS });
  }
  return call("term_send", { session, enter: false, wait_ms: SEND_WAIT_MS, ...s });
}

function check(name: string, what: string, r: Result, want: Answer): void {
  measured.push({
    name,
    step: what,
    status: r.s.status,
    state: r.s.state,
    via: r.s.via,
    chars: r.text.length,
    ms: r.ms,
  });
  const got = { status: r.s.status, state: r.s.state, via: r.s.via };
  const wanted = { status: want.status, state: want.state, via: want.via };
  const text = (re: RegExp | undefined, field: unknown) => re === undefined || re.test(String(field ?? ""));
  if (
    JSON.stringify(got) !== JSON.stringify(wanted) ||
    !text(want.output, r.s.output) ||
    !text(want.screen, r.s.screen) ||
    (want.screenMode !== undefined && want.screenMode !== r.s.screen_mode)
  )
    wrong.push({ name, what, got, wanted, output: r.s.output, screen: r.s.screen });
}

/** Every answer that differs from its row, so one run shows them all. */
const wrong: unknown[] = [];

/** A REPL's row: started with term_exec, one command, one key, ctrl+d. */
function repl(name: string, start: string, command: string, result: RegExp): Program {
  return {
    name,
    start: { exec: start },
    started: { status: "input", state: "prompt", via: "tty" },
    command: { send: { text: command, enter: true }, answer: { state: "prompt", via: "prompt", output: result } },
    key: { send: { text: "x" }, answer: { state: "prompt", via: "tty" } },
    quit: [{ keys: ["ctrl+u", "ctrl+d"] }],
  };
}

/** One typed character at each shell's prompt. */
const KEY_AT_SHELL: Record<string, Answer> = {
  bash: { state: "prompt", via: "tty" },
  zsh: { state: "prompt", via: "tty" },
  fish: { state: "prompt", via: "prompt" },
  dash: { state: "prompt", via: "tty" },
};

const PROGRAMS = (): Program[] => [
  ...["bash", "zsh", "fish", "dash"].map(
    (shell): Program => ({
      name: shell,
      start: { open: shell },
      started: { state: "prompt", via: shell === "dash" ? "marker" : "shell" },
      command: {
        send: { exec: "echo from the matrix" },
        answer: {
          status: "done",
          state: "prompt",
          via: shell === "dash" ? "marker" : "shell",
          output: /from the matrix/,
        },
      },
      // fish draws its autosuggestion after the typed x.
      key: { send: { text: "x" }, answer: KEY_AT_SHELL[shell]! },
      quit: [],
    }),
  ),
  repl("python3", "python3 -q", "print(6*7)", /^42\n>>>$/),
  repl("node", "node", "[1, 2, 3].map((x) => x * 2)", /\[ 2, 4, 6 \]/),
  repl("sqlite3", "sqlite3", "select 6*7;", /^42\nsqlite>$/),
  repl("redis-cli", `redis-cli -p ${redis.port}`, "set k v", /^OK\n127\.0\.0\.1:\d+>$/),
  repl("psql", `psql -h 127.0.0.1 -p ${postgres.port} -U postgres`, "select 6*7 as answer;", /42\n\(1 row\)/),
  {
    name: "vim",
    start: { exec: "vim -u NONE -N notes.txt" },
    started: { status: "input", state: "reading", via: "tty", screen: /first line/ },
    key: { send: { keys: ["j"] }, answer: { state: "reading", via: "tty", screenMode: "diff" }, maxChars: 300 },
    quit: [{ keys: ["escape"], text: ":q!", enter: true }],
  },
  {
    name: "nano",
    start: { exec: "nano --ignorercfiles notes.txt" },
    started: { status: "input", state: "reading", via: "tty", screen: /GNU nano/ },
    key: { send: { text: "x" }, answer: { state: "reading", via: "tty", screenMode: "diff" }, maxChars: 300 },
    quit: [{ keys: ["ctrl+x", "n"] }],
  },
  {
    name: "less",
    start: { exec: "less long.txt" },
    started: { status: "input", state: "pager", via: "tty", screen: /row 23 of the file/ },
    key: {
      send: { keys: ["space"] },
      answer: { state: "pager", via: "tty", screen: /row 46 of the file/, screenMode: "screen" },
    },
    quit: [{ text: "q" }],
  },
  {
    name: "man",
    start: { exec: "man ls" },
    started: { status: "input", state: "pager", via: "tty", screen: /list directory contents/ },
    key: { send: { keys: ["space"] }, answer: { state: "pager", via: "tty" } },
    quit: [{ text: "q" }],
  },
  {
    name: "git log",
    start: {
      exec:
        "git init -q -b main repo && cd repo && for i in $(seq 1 12); do " +
        'git -c user.name=Ada -c user.email=ada@example.com commit -q --allow-empty -m "commit $i"; done && git log',
    },
    started: { status: "input", state: "pager", via: "tty", output: /commit 12/ },
    key: { send: { keys: ["space"] }, answer: { state: "pager", via: "prompt" } },
    quit: [{ text: "q" }],
  },
  {
    name: "top",
    start: { exec: "top -d 1" },
    started: { status: "input", state: "reading", via: "tty", output: /PID USER/ },
    // top draws on the main screen, so what it printed comes as output, not as a screen.
    key: {
      send: { text: "h" },
      answer: { state: "reading", via: "tty", output: /Help for Interactive Commands/, screenMode: null },
    },
    // q leaves the help page, the second q top.
    quit: [{ text: "q" }, { text: "q" }],
  },
  {
    name: "htop",
    start: { exec: "htop" },
    started: { status: "input", state: "reading", via: "tty", screen: /PID USER/ },
    key: { send: { keys: ["down"] }, answer: { state: "reading", via: "tty", screenMode: "diff" }, maxChars: 300 },
    quit: [{ text: "q" }],
  },
  {
    name: "sudo-like password prompt",
    start: { exec: "read -r -s -p '[sudo] password for ada: ' pw; echo; echo \"got ${#pw} characters\"" },
    started: { status: "input", state: "password", via: "tty", output: /\[sudo\] password for ada:$/ },
    key: {
      send: { secret: /got \d+ characters/ },
      answer: { state: "prompt", via: "until", output: /got 17 characters/ },
    },
    quit: [],
  },
];

/** ssh's own prompts, against the sshd started here (it runs only where sshd can). */
function sshPrograms(): Program[] {
  if (!sshd) return [];
  const ssh = `ssh -p ${sshd.port} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR`;
  const user = process.env.USER ?? "root";
  return [
    {
      name: "ssh password prompt",
      start: { exec: `${ssh} -o PubkeyAuthentication=no ${user}@127.0.0.1` },
      started: { status: "input", state: "password", via: "tty", output: /password:$/i },
      key: { send: { keys: ["ctrl+c"] }, answer: { state: "prompt", via: "shell" } },
      quit: [],
    },
    {
      name: "ssh key passphrase prompt",
      start: {
        exec: `${ssh} -o IdentitiesOnly=yes -o PasswordAuthentication=no -i ${join(dir, "id_matrix")} ${user}@127.0.0.1`,
      },
      started: { status: "input", state: "password", via: "tty", output: /Enter passphrase for key .*:$/ },
      // The remote login shell's prompt ends the read.
      key: { send: { secret: /[#$] $/ }, answer: { state: "prompt", via: "until" } },
      quit: [{ text: "exit", enter: true }],
    },
  ];
}

/** The markdown rows: one per program, its steps as `status · state · via`, the keystroke's cost. */
function table(): string {
  const names = [...new Set(measured.map((m) => m.name))];
  const cell = (name: string, step: string) => {
    const m = measured.find((x) => x.name === name && x.step === step);
    return m ? [m.status, m.state, m.via].filter(Boolean).join(" · ") : "—";
  };
  const cost = (name: string) => {
    const m = measured.find((x) => x.name === name && x.step === "key");
    return m ? `${m.chars} chars, ${m.ms} ms` : "—";
  };
  return names
    .map((n) => `| ${n} | ${cell(n, "start")} | ${cell(n, "command")} | ${cell(n, "key")} | ${cost(n)} |`)
    .join("\n");
}

describe.if(process.platform === "linux")("the program matrix: what a model reads driving each program", () => {
  test("every program, each in a session of its own", async () => {
    for (const p of [...PROGRAMS(), ...sshPrograms()]) {
      const session = `matrix-${p.name.replace(/\W+/g, "-")}`;
      let r: Result;
      if ("open" in p.start) {
        // A command line with no args: a shell gets ptyhub's integration.
        r = await call("term_open", { name: session, command: p.start.open, cwd: dir, cols: COLS, rows: ROWS });
      } else {
        await call("term_open", { name: session, cwd: dir, cols: COLS, rows: ROWS });
        r = await call("term_exec", { session, command: p.start.exec, timeout_ms: EXEC_TIMEOUT_MS });
      }
      check(p.name, "start", r, p.started);
      if (p.command) check(p.name, "command", await step(session, p.command.send), p.command.answer);
      const key = await step(session, p.key.send);
      check(p.name, "key", key, p.key.answer);
      if (p.key.maxChars !== undefined && key.text.length > p.key.maxChars)
        wrong.push({ name: p.name, what: "key", chars: key.text.length, max: p.key.maxChars });
      if (p.quit.length > 0) {
        let back = key;
        for (const q of p.quit) back = await step(session, q);
        if (back.s.via !== "shell" || back.s.state !== "prompt")
          wrong.push({ name: p.name, what: "quit", via: back.s.via, state: back.s.state, output: back.s.output });
      }
      await call("term_close", { session, signal: "KILL" });
    }
    expect(wrong).toEqual([]);
  }, 300_000);
});
