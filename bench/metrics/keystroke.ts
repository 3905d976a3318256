/**
 * Metric 9, keystroke: what one keystroke in a full-screen program costs the model, in characters
 * of the result text (what Claude Code and Codex read). vim (typing one character in insert mode)
 * and htop (moving the selection down), each started with term_exec; every sample is one
 * term_send. Issue 22's target: ≤ 300 characters. The baseline rows: term_read mode:screen of the
 * same state (the whole trimmed screen, what the diff saves against), and ptyai's pty_write of the
 * same key with its default screen (the peer).
 */
import { McpServer } from "../lib/mcp.ts";
import { fmt, median } from "../lib/stats.ts";
import { emptyResult, peer, type Ctx, type MetricResult, type Row } from "../lib/types.ts";
import { PtyaiShell } from "../lib/shells.ts";

/** Issue 22's bound on the characters returned for one keystroke in vim or htop. */
export const TARGET_CHARS = 300;
const SAMPLES = { full: 12, smoke: 3 };
/** Terminal size of every session: ptyhub's default. */
const COLS = 120;
const ROWS = 40;
/** How long the peer waits for its screen to settle after a key (its documented quick mode). */
const PTYAI_SETTLE_MS = 100;

interface Program {
  name: string;
  /** The command line that starts it in a shell. */
  start: string;
  /** Untimed keys after start (vim: enter insert mode). */
  prepare: { text?: string; keys?: string[] } | null;
  /** One sample's keystroke, for term_send and as raw bytes for the peer. */
  key: { text?: string; keys?: string[] };
  keyBytes: string;
  /** A line the screen shows once the program is up (the harness checks it before sampling). */
  shows: RegExp;
}

const PROGRAMS: readonly Program[] = [
  {
    name: "vim",
    start: "printf 'alpha\\nbeta\\ngamma\\n' > keystroke.txt && vim -u NONE -N keystroke.txt",
    prepare: { text: "o" },
    key: { text: "x" },
    keyBytes: "x",
    shows: /keystroke\.txt/,
  },
  { name: "htop", start: "htop", prepare: null, key: { keys: ["down"] }, keyBytes: "\x1b[B", shows: /PID/ },
];

export async function keystroke(ctx: Ctx): Promise<MetricResult> {
  const res = emptyResult("keystroke", "Keystroke: characters one key in a full-screen program returns");
  const n = ctx.smoke ? SAMPLES.smoke : SAMPLES.full;
  const { server } = await McpServer.start(ctx.ptyhubInproc);
  const ai = ctx.ptyai ? await peer(res, "start", async () => (await McpServer.start(ctx.ptyai!)).server) : null;
  try {
    for (const prog of PROGRAMS) {
      if (Bun.which(prog.name) === null) {
        res.notes.push(`${prog.name} is not installed: not measured.`);
        res.checks.push({
          goal: `one keystroke in ${prog.name} ≤ ${TARGET_CHARS} characters (median)`,
          actual: "—",
          met: null,
        });
        continue;
      }
      const session = `key-${prog.name}`;
      await server.must("term_open", { name: session, cols: COLS, rows: ROWS });
      const started = await server.must("term_exec", { session, command: prog.start, timeout_ms: 20_000 });
      const s = started.result.structuredContent as { status?: string; screen?: string } | undefined;
      if (s?.status !== "input" || !prog.shows.test(s.screen ?? "")) {
        res.errors.push(`${prog.name} did not start as a full-screen program: ${started.text.slice(0, 200)}`);
        await server.call("term_close", { session });
        continue;
      }
      if (prog.prepare) await server.must("term_send", { session, enter: false, ...prog.prepare });
      const sent: number[] = [];
      const screens: number[] = [];
      for (let i = 0; i < n; i++) {
        const r = await server.must("term_send", { session, enter: false, ...prog.key });
        sent.push(r.text.length);
        const full = await server.must("term_read", { session, mode: "screen" });
        screens.push(full.text.length);
      }
      await server.must("term_close", { session });
      const subject = `ptyhub term_send, ${prog.name}`;
      const rows: Row[] = [
        { subject, unit: "chars", samples: sent },
        {
          subject: `ptyhub term_read mode:screen, ${prog.name} (same state)`,
          unit: "chars",
          samples: screens,
          baseline: subject,
        },
      ];
      if (ai) {
        const peerSamples = await peer(res, `${prog.name} keystrokes`, () => peerKeystrokes(ai, prog, n));
        if (peerSamples)
          rows.push({
            subject: `ptyai pty_write, ${prog.name}`,
            unit: "chars",
            samples: peerSamples,
            baseline: subject,
          });
      }
      res.tables.push({
        title: `One keystroke in ${prog.name} (${COLS}×${ROWS}), ${n} samples`,
        kind: "latency",
        rows,
      });
      const m = median(sent);
      res.checks.push({
        goal: `one keystroke in ${prog.name} ≤ ${TARGET_CHARS} characters (median)`,
        actual: fmt(m, "chars"),
        met: m === null ? null : m <= TARGET_CHARS,
      });
    }
  } finally {
    await server.close();
    await ai?.close();
  }
  res.notes.push(
    "Characters of the result's text (content[0]), the form Claude Code and Codex read. vim: typing one character " +
      "in insert mode; htop: the down key. term_send returns the trimmed screen or only the rows changed since the " +
      "client last saw it, whichever is shorter (screen_mode).",
  );
  return res;
}

async function peerKeystrokes(ai: McpServer, prog: Program, n: number): Promise<number[]> {
  const sh = await PtyaiShell.open(ai, { cols: COLS, rows: ROWS });
  await ai.must("pty_write", { session_id: sh.id, input: `${prog.start}\r`, settle_ms: 500, timeout_ms: 20_000 });
  if (prog.prepare?.text) await ai.must("pty_write", { session_id: sh.id, input: prog.prepare.text, settle_ms: 200 });
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await ai.must("pty_write", { session_id: sh.id, input: prog.keyBytes, settle_ms: PTYAI_SETTLE_MS });
    samples.push(r.text.length);
  }
  await ai.call("pty_kill", { session_id: sh.id });
  return samples;
}
