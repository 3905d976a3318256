/** Markdown tables for the console and RESULTS.md. */
import { fmt, max, median, p95, ratio } from "./stats.ts";
import type { MachineInfo } from "./env.ts";
import type { Check, MetricResult, Row, Table } from "./types.ts";

function rowValue(r: Row): number | null {
  return r.value !== undefined ? r.value : median(r.samples);
}

function correctCell(r: Row): string {
  if (!r.correct) return "";
  const c = `${r.correct.ok}/${r.correct.of}`;
  return r.incorrect ? `${c} ✗` : c;
}

export function renderTable(t: Table): string {
  const lines: string[] = [];
  const byName = new Map(t.rows.map((r) => [r.subject, r]));
  const withCorrect = t.rows.some((r) => r.correct);
  const withRatio = t.rows.some((r) => r.baseline && byName.has(r.baseline) && r.subject !== r.baseline);
  if (t.kind === "latency") {
    const head = ["subject", "n", "median", "p95", "max"];
    if (withRatio) head.push(t.ratioHead ?? "× ptyhub");
    if (withCorrect) head.push("correct");
    head.push("note");
    lines.push(
      `| ${head.join(" | ")} |`,
      `|${head.map((h) => (h === "subject" || h === "note" ? "---" : "---:")).join("|")}|`,
    );
    for (const r of t.rows) {
      const unit = r.unit;
      const cells = [
        r.subject,
        String(r.samples.length),
        fmt(median(r.samples), unit),
        fmt(p95(r.samples), unit),
        fmt(max(r.samples), unit),
      ];
      if (withRatio) {
        const base = r.baseline ? byName.get(r.baseline) : undefined;
        cells.push(base && base !== r ? ratio(median(r.samples), median(base.samples)) : "");
      }
      if (withCorrect) cells.push(correctCell(r));
      cells.push(r.note ?? "");
      lines.push(`| ${cells.join(" | ")} |`);
    }
  } else {
    const head = ["subject", "value"];
    if (withRatio) head.push(t.ratioHead ?? "× ptyhub");
    head.push("note");
    lines.push(
      `| ${head.join(" | ")} |`,
      `|${head.map((h) => (h === "subject" || h === "note" ? "---" : "---:")).join("|")}|`,
    );
    for (const r of t.rows) {
      const cells = [r.subject, fmt(rowValue(r), r.unit)];
      if (withRatio) {
        const base = r.baseline ? byName.get(r.baseline) : undefined;
        cells.push(base && base !== r ? ratio(rowValue(r), rowValue(base)) : "");
      }
      cells.push(r.note ?? "");
      lines.push(`| ${cells.join(" | ")} |`);
    }
  }
  return lines.join("\n");
}

export function renderChecks(checks: readonly Check[]): string {
  const lines = ["| target | measured | met |", "|---|---|:---:|"];
  for (const c of checks) lines.push(`| ${c.goal} | ${c.actual} | ${c.met === null ? "n/a" : c.met ? "✅" : "❌"} |`);
  return lines.join("\n");
}

export function renderMetric(m: MetricResult): string {
  const parts = [`## ${m.title}`];
  for (const t of m.tables) parts.push(`**${t.title}**\n\n${renderTable(t)}`);
  if (m.extra) parts.push(m.extra);
  if (m.notes.length) parts.push(m.notes.map((n) => `- ${n}`).join("\n"));
  if (m.errors.length) parts.push(m.errors.map((e) => `- **harness error:** ${e}`).join("\n"));
  return parts.join("\n\n");
}

export function renderMachine(mi: MachineInfo): string {
  return [
    "| | |",
    "|---|---|",
    `| date | ${mi.date} |`,
    `| CPU | ${mi.cpu} × ${mi.nproc} |`,
    `| memory | ${mi.memory} |`,
    `| OS | ${mi.os} (Linux ${mi.kernel}) |`,
    `| bun | ${mi.bun} |`,
    `| node (for ptyai) | ${mi.node ?? "—"} |`,
    `| load average at start | ${mi.load} |`,
  ].join("\n");
}
