/**
 * Metric 6, tokens: for a fixed set of tasks, the tokens a model receives to learn the result,
 * and whether what it received carries every fact the task is about.
 *
 * ptyhub: one term_exec with default settings; the model reads content[0].text.
 * ptyai: the way its README teaches, in a fresh session: pty_write of the command (with
 * `; echo "exit=$?"` appended, since it reports no exit code) and its default wait (settle
 * 300 ms) with the screen; when facts are still missing, one pty_read with the whole scrollback
 * (in a fresh session that is exactly this command's output). Its text is JSON; tokens are
 * counted on that text as received, facts are checked on its screen and scrollback with escape
 * sequences removed.
 * Opening the session is not counted for either side.
 */
import { AUTHOR, COMMITS, commitSubject, makeFixtures, type Fixtures } from "../lib/fixtures.ts";
import { McpServer, jsonText, type Called } from "../lib/mcp.ts";
import { PtyaiShell } from "../lib/shells.ts";
import { ratio } from "../lib/stats.ts";
import { emptyResult, peer, type Ctx, type MetricResult } from "../lib/types.ts";
// The estimator ptyhub budgets with (chars/4 for ASCII, one per other character).
import { estimateTokens } from "../../src/terminal/render.ts";
import { outputLast } from "../../src/mcp/result.ts";

export const TARGET_SHARE = 0.5;

interface Fact {
  name: string;
  re: RegExp;
}

interface Task {
  id: string;
  title: string;
  cwd: string;
  command: string;
  exit: number;
  facts: Fact[];
}

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function tasks(fx: Fixtures): Task[] {
  return [
    {
      id: "git-log",
      title: `\`git --no-pager log\` in a repo of ${COMMITS} commits`,
      cwd: fx.repo,
      command: "git --no-pager log",
      exit: 0,
      facts: [
        { name: "newest commit's hash", re: new RegExp(`\\b${fx.head}\\b`) },
        { name: "newest commit's subject", re: new RegExp(esc(commitSubject(COMMITS))) },
        { name: "oldest commit's subject", re: new RegExp(esc(commitSubject(1))) },
        { name: "the author", re: new RegExp(`Author: ${esc(AUTHOR)}`) },
      ],
    },
    {
      id: "test-fail",
      title: "failing test run: 500 lines, one traceback",
      cwd: fx.scripts,
      command: "python3 fake_pytest.py",
      exit: 1,
      facts: [
        { name: "the failing test", re: /tests\/test_render\.py::test_wrap_long_lines_23/ },
        { name: "the exception", re: /ZeroDivisionError: integer division or modulo by zero/ },
        { name: "where it was raised", re: /src\/render\.py:57/ },
        { name: "the summary", re: /1 failed, 466 passed/ },
      ],
    },
    {
      id: "progress",
      title: "`\\r` progress bars, then a summary",
      cwd: fx.scripts,
      command: "python3 progress.py",
      exit: 0,
      facts: [
        { name: "alpha reached 100%", re: /alpha-dataset\.tar\.gz\s+\[#{30}\]\s+100%/ },
        { name: "beta reached 100%", re: /beta-weights\.bin\s+\[#{30}\]\s+100%/ },
        { name: "gamma reached 100%", re: /gamma-index\.json\s+\[#{30}\]\s+100%/ },
        { name: "the summary", re: /Summary: 3 files downloaded, 36\.4 MB total, 0 errors/ },
      ],
    },
    {
      id: "seq",
      title: "`seq 1 100000`",
      cwd: fx.scripts,
      command: "seq 1 100000",
      exit: 0,
      facts: [
        { name: "first lines 1, 2, 3", re: /^1\n2\n3$/m },
        { name: "last lines 99999, 100000", re: /^99999\n100000$/m },
      ],
    },
    {
      id: "pip",
      title: "pip-style install noise",
      cwd: fx.scripts,
      command: "python3 fake_pip.py",
      exit: 0,
      facts: [
        { name: "what was installed", re: /Successfully installed certifi-2024\.8\.30 .*matplotlib-3\.9\.2/ },
        { name: "the root warning", re: /WARNING: Running pip as the 'root' user/ },
      ],
    },
    {
      id: "npm",
      title: "npm-style install noise",
      cwd: fx.scripts,
      command: "python3 fake_npm.py",
      exit: 0,
      facts: [
        { name: "the first deprecation", re: /npm warn deprecated inflight@1\.0\.6/ },
        { name: "the last deprecation", re: /npm warn deprecated eslint@8\.57\.1/ },
        { name: "packages added", re: /added 312 packages, and audited 313 packages/ },
        { name: "the audit result", re: /found 0 vulnerabilities/ },
      ],
    },
  ];
}

/** Removes escape sequences; a CR becomes a line break (what was drawn over stays visible). */
export function plain(text: string): string {
  return text
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78cM]/g, "")
    .replace(/\r\n/g, "\n")
    .replace(/\r/g, "\n");
}

interface Outcome {
  calls: number;
  chars: number;
  tokens: number | null;
  estimate: number;
  present: string[];
  missing: string[];
}

function account(received: Called[], factText: string, facts: Fact[], count: ((t: string) => number) | null): Outcome {
  const texts = received.map((r) => r.text);
  const present = facts.filter((f) => f.re.test(factText)).map((f) => f.name);
  return {
    calls: received.length,
    chars: texts.reduce((n, t) => n + t.length, 0),
    tokens: count ? texts.reduce((n, t) => n + count(t), 0) : null,
    estimate: texts.reduce((n, t) => n + estimateTokens(t), 0),
    present,
    missing: facts.filter((f) => !present.includes(f.name)).map((f) => f.name),
  };
}

/**
 * The forms a result can reach a model in, from one call's result. Claude Code and Codex hand the
 * model `structuredContent` as JSON when a tool declares an outputSchema, else the text:
 * - json: the structured result as those clients serialised it (every field, nulls included);
 * - lean json: the same without null fields, output last (the best a structured form can do);
 * - text: the text rendering, what they read now (result_form auto);
 * - text, reduce: the text of the same command run with `reduce: true` (a second run).
 */
const FORMS = ["json", "lean json", "text", "text, reduce"] as const;
type Form = (typeof FORMS)[number];

function inForm(r: Called, reduced: Called, form: Form): string {
  const structured = (r.result.structuredContent ?? {}) as Record<string, unknown>;
  if (form === "text") return r.text;
  if (form === "text, reduce") return reduced.text;
  if (form === "json") return JSON.stringify(structured);
  return JSON.stringify(outputLast(Object.fromEntries(Object.entries(structured).filter(([, v]) => v !== null))));
}

interface FormSizes {
  chars: number;
  tokens: number;
}

type HubOutcome = Outcome & { forms: Record<Form, FormSizes>; reducedMissing: string[] };

async function runPtyhub(
  server: McpServer,
  task: Task,
  n: number,
  count: ((t: string) => number) | null,
): Promise<HubOutcome> {
  const session = `tok${n}`;
  await server.must("term_open", { name: session, cwd: task.cwd });
  const r = await server.must("term_exec", { session, command: task.command, timeout_ms: 60_000 });
  const reduced = await server.must("term_exec", { session, command: task.command, timeout_ms: 60_000, reduce: true });
  await server.call("term_close", { session });
  const facts = [...task.facts, { name: `exit code ${task.exit}`, re: new RegExp(`^\\[done · exit ${task.exit} `) }];
  const forms = {} as Record<Form, FormSizes>;
  for (const form of FORMS) {
    const t = inForm(r, reduced, form);
    forms[form] = { chars: t.length, tokens: count ? count(t) : estimateTokens(t) };
  }
  const reducedMissing = facts.filter((f) => !f.re.test(reduced.text)).map((f) => f.name);
  return { ...account([r], r.text, facts, count), forms, reducedMissing };
}

async function runPtyai(server: McpServer, task: Task, count: ((t: string) => number) | null): Promise<Outcome> {
  const sh = await PtyaiShell.open(server, { cwd: task.cwd, scrollback: 100_000 });
  const received: Called[] = [];
  const factsOf = (c: Called): string => {
    const j = jsonText(c);
    const parts: string[] = [];
    if (typeof j.screen === "string") parts.push(j.screen);
    if (Array.isArray(j.scrollback)) parts.push((j.scrollback as unknown[]).map(String).join("\n"));
    return plain(parts.join("\n"));
  };
  const facts = [...task.facts, { name: `exit code ${task.exit}`, re: new RegExp(`^exit=${task.exit}$`, "m") }];
  const w = await server.must(
    "pty_write",
    { session_id: sh.id, input: `${task.command}; echo "exit=$?"\r`, timeout_ms: 60_000 },
    120_000,
  );
  received.push(w);
  let text = factsOf(w);
  if (facts.some((f) => !f.re.test(text))) {
    const r = await server.must("pty_read", { session_id: sh.id, include_scrollback: true }, 120_000);
    received.push(r);
    text += "\n" + factsOf(r);
  }
  await server.call("pty_kill", { session_id: sh.id });
  return account(received, text, facts, count);
}

export async function tokens(ctx: Ctx): Promise<MetricResult> {
  const res = emptyResult("tokens", "6. Tokens a model receives to learn the result");
  const fx = makeFixtures();
  const list = tasks(fx);
  const count = ctx.tokenizer;
  const unit = count ? "tokens (o200k_base)" : "tokens (≈ chars/4)";
  if (!count)
    res.notes.push(
      "gpt-tokenizer unavailable: tokens are estimated as chars/4 for ASCII plus one per other character.",
    );

  const hub = (await McpServer.start(ctx.ptyhub)).server;
  let ai = ctx.ptyai ? await peer(res, "start", async () => (await McpServer.start(ctx.ptyai!)).server) : null;
  if (!ai) res.notes.push("ptyai unavailable: only ptyhub's side was measured.");
  const rows: string[] = [];
  let aiFailed = false;
  const aiRan = ai !== null;
  let hubTotal = 0;
  let aiTotal = 0;
  let hubEst = 0;
  let aiEst = 0;
  const factLines: string[] = [];
  const formRows: string[] = [];
  const formTotals = Object.fromEntries(FORMS.map((f) => [f, { chars: 0, tokens: 0 }])) as Record<Form, FormSizes>;
  try {
    for (let i = 0; i < list.length; i++) {
      const task = list[i]!;
      // Interleave: alternate which side goes first.
      const runHub = () => runPtyhub(hub, task, i, count);
      const runAi = async () => {
        if (!ai) return null;
        const server = ai;
        const r = await peer(res, `task ${task.id}`, () => runPtyai(server, task, count));
        if (!r) {
          await server.close();
          ai = null;
          aiFailed = true;
        }
        return r;
      };
      let h: HubOutcome;
      let a: Outcome | null;
      if (i % 2 === 0) {
        h = await runHub();
        a = await runAi();
      } else {
        a = await runAi();
        h = await runHub();
      }
      for (const f of FORMS) {
        formTotals[f].chars += h.forms[f].chars;
        formTotals[f].tokens += h.forms[f].tokens;
      }
      const sizes = FORMS.map((f) => `${h.forms[f].chars} / ${h.forms[f].tokens}`);
      formRows.push(`| ${task.title} | ${sizes.join(" | ")} |`);
      const ht = h.tokens ?? h.estimate;
      const at = a ? (a.tokens ?? a.estimate) : null;
      hubTotal += ht;
      hubEst += h.estimate;
      if (a && at !== null) {
        aiTotal += at;
        aiEst += a.estimate;
      }
      const n = task.facts.length + 1;
      rows.push(
        `| ${task.title} | ${ht} | ${h.present.length}/${n} | ${at ?? "—"} | ${a ? `${a.present.length}/${n} (${a.calls} call${a.calls > 1 ? "s" : ""})` : "—"} | ${at !== null ? ratio(at, ht) : "—"} |`,
      );
      factLines.push(
        `- **${task.title}** (\`${task.command}\`): ${[...task.facts.map((f) => f.name), `exit code ${task.exit}`].join("; ")}.` +
          (h.missing.length ? ` ptyhub missed: ${h.missing.join(", ")}.` : "") +
          (a && a.missing.length ? ` ptyai missed: ${a.missing.join(", ")}.` : ""),
      );
      if (h.missing.length) res.errors.push(`ptyhub's result for ${task.id} lacks: ${h.missing.join(", ")}`);
      if (h.reducedMissing.length) {
        res.errors.push(`ptyhub's reduced result for ${task.id} lacks: ${h.reducedMissing.join(", ")}`);
      }
      ctx.log(
        `  ${task.id}: ptyhub ${ht} (${h.present.length}/${n} facts), ptyai ${at ?? "—"}${a ? ` (${a.present.length}/${n} facts, ${a.calls} calls)` : ""}`,
      );
    }
  } finally {
    await hub.close();
    await ai?.close();
    for (const s of [hub, ai])
      if (s && s.leftovers.length)
        res.notes.push(
          `${s.label} left ${s.leftovers.length} process(es) running after its client closed: ${s.leftovers.join("; ")}`,
        );
  }
  const share = aiRan && !aiFailed && aiTotal > 0 ? hubTotal / aiTotal : null;
  res.extra = [
    `**${unit} received per task, and facts present** (facts include the exit code)`,
    "",
    "| task | ptyhub | facts | ptyai | facts (calls) | ptyai ÷ ptyhub |",
    "|---|---:|---:|---:|---:|---:|",
    ...rows,
    `| **total** | **${hubTotal}** | | **${share !== null ? aiTotal : "—"}** | | **${share !== null ? ratio(aiTotal, hubTotal) : "—"}** |`,
    "",
    `Estimator (chars/4 + non-ASCII) totals: ptyhub ${hubEst}, ptyai ${share !== null ? aiEst : "—"}.`,
    "",
    `**What the model reads in each result form** (characters / ${unit}; ptyhub's term_exec, default budget). ` +
      "Claude Code 2.1.330 and Codex 0.169 hand the model `json` when a tool declares an outputSchema; " +
      "with result_form auto they get `text`; `text, reduce` is the same command with `reduce: true` " +
      "(every fact checked in it too).",
    "",
    `| task | ${FORMS.join(" | ")} |`,
    `|---|${FORMS.map(() => "---:").join("|")}|`,
    ...formRows,
    `| **total** | ${FORMS.map((f) => `**${formTotals[f].chars} / ${formTotals[f].tokens}**`).join(" | ")} |`,
    "",
    "Facts each side's received text must contain:",
    "",
    ...factLines,
  ].join("\n");
  const allFacts = res.errors.length === 0;
  res.checks.push({
    goal: `tokens ≤ ${TARGET_SHARE * 100} % of ptyai's over the task set, every fact present`,
    actual:
      share === null
        ? `ptyhub ${hubTotal} tokens; ptyai ${aiFailed ? "failed part-way" : "unavailable"}`
        : `${(share * 100).toFixed(1)} % (${hubTotal} vs ${aiTotal})${allFacts ? ", all ptyhub facts present" : ", ptyhub missed facts"}`,
    met: share === null ? null : share <= TARGET_SHARE && allFacts,
  });
  return res;
}
