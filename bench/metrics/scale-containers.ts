/**
 * Cost as work grows (issue #34, part 6), containers: a private dockerd (test/helpers/dockerd.ts:
 * its own data root, no bridge, no iptables) runs 1 → 10 containers (smoke: 1 → 2) of the Debian
 * minbase image (test/helpers/container-images.ts, from the cached debootstrap tarball), each with
 * `--network none`. In each container ptyhub opens a persistent session (its own daemon placed
 * inside, the default) and a plain exec one (`persist: false`); beside them, `docker exec NAME
 * echo hi` through the CLI, a new process per call and no TTY. At each step: the open times of the
 * sessions that reached it, `echo hi` round-robin over the open sessions (the three subjects
 * interleaved, rotating), and memory: ptyhub's own processes on the host, the processes inside
 * the containers, and the engine's. Ratios are to the CLI's `docker exec`, and to 1 container.
 *
 * ptyhub runs as the compiled binary when it could be built: it places itself in the containers.
 * From source, the first persistent open compiles ptyhub (bun build --compile), which that open
 * then pays. When dockerd cannot start here (not root, no dockerd or CLI, no image), the metric
 * says so in one line and measures nothing.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DEBOOTSTRAP, IMAGE_CACHE_DIR, importBashImage } from "../../test/helpers/container-images.ts";
import { DOCKER_CLI, haveDocker, startDockerd, type Dockerd } from "../../test/helpers/dockerd.ts";
import { descendants } from "../../test/ssh/sshd.ts";
import { McpServer, type ServerSpec } from "../lib/mcp.ts";
import { rssMb } from "../lib/procs.ts";
import { PtyhubShell, type Timed } from "../lib/shells.ts";
import { runInterleaved } from "../lib/interleave.ts";
import { fmt, median } from "../lib/stats.ts";
import { steadyRss } from "../lib/usage.ts";
import { emptyResult, type Ctx, type MetricResult, type Row } from "../lib/types.ts";

const FULL_STEPS = [1, 10] as const;
const SMOKE_STEPS = [1, 2] as const;
const FULL_SAMPLES = 30;
const SMOKE_SAMPLES = 6;
const CONTAINER_PREFIX = "ptyhub-bench-";
/** A persistent open places ptyhub (about 100 MB) in the container: generous on a loaded machine. */
const OPEN_TIMEOUT_MS = 240_000;
/** Let processes settle after the opens before reading their RSS. */
const SETTLE_MS = 1000;

const PERSIST = "ptyhub persistent";
const PLAIN = "ptyhub plain exec";
const CLI = "docker exec (CLI)";

/** Why this machine cannot run the private engine, or null when it can. */
function unavailable(): string | null {
  if (!haveDocker) return "needs root, /usr/sbin/dockerd and the docker CLI";
  if (!existsSync(join(IMAGE_CACHE_DIR, "bookworm-minbase.tar")) && !existsSync(DEBOOTSTRAP))
    return `no base image in ${IMAGE_CACHE_DIR} and no debootstrap to make one`;
  return null;
}

/** `docker exec NAME echo hi` through the CLI, timed from spawn to exit. */
async function cliEcho(dockerd: Dockerd, name: string): Promise<Timed> {
  const t0 = performance.now();
  const proc = Bun.spawn([DOCKER_CLI, "-H", `unix://${dockerd.socket}`, "exec", name, "echo", "hi"], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const ms = performance.now() - t0;
  const ok = code === 0 && out === "hi\n";
  return { ms, ok, detail: ok ? "" : `exit ${code}: ${JSON.stringify(out.slice(0, 80))} ${err.slice(0, 200)}` };
}

/** RSS in MB of the processes inside a container (host pids, from the engine's `top`). */
async function insideRss(dockerd: Dockerd, name: string): Promise<number | null> {
  const r = await dockerd.docker(["top", name, "-eo", "pid"]);
  if (r.code !== 0) return null;
  const pids = r.out
    .split("\n")
    .slice(1)
    .map((l) => Number(l.trim()))
    .filter((p) => p > 0);
  return pids.reduce((sum, pid) => sum + (rssMb(pid) ?? 0), 0);
}

/** RSS in MB of the engine: dockerd and everything under it (containerd, the containers' shims). */
function engineRss(dockerd: Dockerd): number {
  return [dockerd.pid, ...descendants(dockerd.pid)].reduce((sum, pid) => sum + (rssMb(pid) ?? 0), 0);
}

interface Step {
  containers: number;
  persistOpens: number[];
  plainOpens: number[];
  rows: Record<string, Row>;
  ptyhubRss: number | null;
  insideRss: number | null;
  engineRss: number;
}

function execRow(subject: string, n: number): Row {
  return { subject, unit: "ms", samples: [], correct: { ok: 0, of: 0 }, baseline: `${CLI}, ${n}` };
}

export async function scaleContainers(ctx: Ctx): Promise<MetricResult> {
  const res = emptyResult("containers", "Cost as work grows: containers, ptyhub beside `docker exec`");
  const why = unavailable();
  if (why) {
    res.notes.push(`**Skipped:** the container part needs a private dockerd, which cannot run here: ${why}.`);
    ctx.log(`  containers skipped: ${why}`);
    return res;
  }
  let dockerd: Dockerd;
  try {
    dockerd = await startDockerd();
  } catch (err) {
    const first = (err as Error).message.split("\n")[0];
    res.notes.push(`**Skipped:** the container part needs a private dockerd, which could not start: ${first}`);
    ctx.log(`  containers skipped: dockerd could not start: ${first}`);
    return res;
  }
  const spec: ServerSpec = ctx.binary ? { ...ctx.binary, stopArgs: ["daemon", "--stop"] } : ctx.ptyhub;
  let server: McpServer | null = null;
  try {
    const image = await importBashImage(dockerd);
    server = (await McpServer.start(spec)).server;
    const steps = ctx.smoke ? SMOKE_STEPS : FULL_STEPS;
    const samples = ctx.smoke ? SMOKE_SAMPLES : FULL_SAMPLES;
    ctx.log(`  containers ${steps.join(" → ")}, ${spec.label}, ${samples} samples per subject`);
    const baseRss = await steadyRss(server);
    const baseInside = 0;
    const baseEngine = engineRss(dockerd);
    const measured: Step[] = [];
    let running = 0;
    for (const n of steps) {
      const step: Step = {
        containers: n,
        persistOpens: [],
        plainOpens: [],
        rows: {},
        ptyhubRss: null,
        insideRss: null,
        engineRss: 0,
      };
      for (; running < n; running++) {
        const name = `${CONTAINER_PREFIX}${running}`;
        await dockerd.dockerOk(["run", "-d", "-i", "--network", "none", "--name", name, image, "/bin/sh"]);
        const container = { name, socket: dockerd.socket };
        step.persistOpens.push(
          (await server.must("term_open", { name: `c${running}`, container }, OPEN_TIMEOUT_MS)).ms,
        );
        step.plainOpens.push(
          (await server.must("term_open", { name: `p${running}`, container: { ...container, persist: false } })).ms,
        );
      }
      const rows = {
        [PERSIST]: execRow(`${PERSIST}, ${n}`, n),
        [PLAIN]: execRow(`${PLAIN}, ${n}`, n),
        [CLI]: execRow(`${CLI}, ${n}`, n),
      };
      let turn = 0;
      const pick = () => turn++ % n;
      const wrong: string[] = [];
      await runInterleaved(
        [
          { row: rows[PERSIST]!, run: () => new PtyhubShell(server!, `c${pick()}`).exec("echo hi", "hi") },
          { row: rows[PLAIN]!, run: () => new PtyhubShell(server!, `p${pick()}`).exec("echo hi", "hi") },
          { row: rows[CLI]!, run: () => cliEcho(dockerd, `${CONTAINER_PREFIX}${pick()}`) },
        ],
        {
          warmup: 1,
          iterations: samples,
          notes: res.notes,
          onIncorrect: (row, t) => wrong.push(`${row.subject}: ${t.detail}`),
        },
      );
      if (wrong.length > 0) res.errors.push(`${wrong.length} wrong \`echo hi\` results: ${wrong[0]}`);
      step.rows = rows;
      await Bun.sleep(SETTLE_MS);
      step.ptyhubRss = await steadyRss(server);
      let inside = 0;
      for (let i = 0; i < n; i++) inside += (await insideRss(dockerd, `${CONTAINER_PREFIX}${i}`)) ?? 0;
      step.insideRss = inside;
      step.engineRss = engineRss(dockerd);
      measured.push(step);
    }
    const first = measured[0]!;
    const openRow = (subject: string, s: number[], base: string, note: string): Row => ({
      subject,
      unit: "ms",
      samples: s,
      baseline: base,
      note,
    });
    res.tables.push({
      title: "Open time as containers grow (ratio to the first container's)",
      kind: "latency",
      ratioHead: "× 1 container",
      rows: measured.flatMap((s, i) => {
        const which = i === 0 ? "container 1" : `containers ${measured[i - 1]!.containers + 1}–${s.containers}`;
        return [
          openRow(`${PERSIST} open, ${s.containers}`, s.persistOpens, `${PERSIST} open, ${first.containers}`, which),
          openRow(`${PLAIN} open, ${s.containers}`, s.plainOpens, `${PLAIN} open, ${first.containers}`, which),
        ];
      }),
    });
    res.tables.push({
      title: "`echo hi` in a running container (ratio to `docker exec` through the CLI at the same step)",
      kind: "latency",
      ratioHead: "× docker exec",
      rows: measured.flatMap((s) => [s.rows[PERSIST]!, s.rows[PLAIN]!, s.rows[CLI]!]),
    });
    const per = (v: number | null, base: number | null, n: number) =>
      v === null || base === null ? null : (v - base) / n;
    res.tables.push({
      title: "Memory as containers grow (RSS; inside and engine: growth since no container, per container)",
      kind: "value",
      rows: measured.flatMap((s) => [
        {
          subject: `ptyhub on the host, ${s.containers}`,
          unit: "MB",
          samples: [],
          value: s.ptyhubRss,
          note: `MCP server + host daemon in all (${fmt(baseRss, "MB")} before the first open, which starts it)`,
        },
        {
          subject: `ptyhub on the host per container, ${s.containers}`,
          unit: "MB",
          samples: [],
          value: s === first ? null : per(s.ptyhubRss, first.ptyhubRss, s.containers - first.containers),
          note:
            s === first ? "the baseline" : `(RSS − RSS at ${first.containers}) / ${s.containers - first.containers}`,
        },
        {
          subject: `inside the container, ${s.containers}`,
          unit: "MB",
          samples: [],
          value: per(s.insideRss, baseInside, s.containers),
          note: "its /bin/sh, the sessions' shells and, for the persistent one, the ptyhub daemon placed there",
        },
        {
          subject: `the engine, ${s.containers}`,
          unit: "MB",
          samples: [],
          value: per(s.engineRss, baseEngine, s.containers),
          note: `dockerd, containerd, shims (shared by ptyhub and the CLI): ${fmt(s.engineRss, "MB")} in all`,
        },
      ]),
    });
    const last = measured[measured.length - 1]!;
    const ranAs = ctx.binary
      ? `the compiled binary (${ctx.binaryHow})`
      : "bun src/cli.ts: the first persistent open compiled it";
    const medianOf = (subject: string) => fmt(median(last.rows[subject]!.samples), "ms");
    res.notes.push(
      `ptyhub ran as ${ranAs}; image ${image} from ${IMAGE_CACHE_DIR}.`,
      `At ${last.containers} containers, \`echo hi\` medians: persistent ${medianOf(PERSIST)}, ` +
        `plain exec ${medianOf(PLAIN)}, docker exec CLI ${medianOf(CLI)}.`,
      "The CLI's own memory is not counted: each call is a new short-lived process.",
    );
    return res;
  } finally {
    await server?.close();
    await dockerd.stop();
    rmSync(dockerd.dir, { recursive: true, force: true });
  }
}
