/**
 * Chaos for the daemon path (issue #21): a program prints numbered lines, in trickles and in
 * floods, into a daemon session while MCP servers read it with `term_read mode:new` and are killed
 * with SIGKILL at seeded random moments: mid-wait, mid-flood, between calls. After every kill a
 * new server reads on. The union of what the readers got must be every line printed: a line may
 * come twice only inside a range the result labels as possibly repeated, never be missing.
 *
 * Replay a failure with PTYHUB_CHAOS_SEED=<seed printed>.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import type { StdioMcp } from "../helpers/mcp-client.ts";
import { fixture, settleLeftovers } from "../daemon/helpers.ts";
import { chaosSeed, Prng } from "./prng.ts";

const SEED = chaosSeed();
/** Servers killed per run. */
const KILLS = 25;
/** Batches the program prints: a flood is one `seq` of FLOOD_LINES, a trickle a few lines and a pause. */
const BATCHES = 60;
const FLOOD_LINES = 1500;
const FLOOD_SHARE = 0.25;
/** Longest a server lives before its kill, and longest a read waits. */
const MAX_LIFE_MS = 400;
const MAX_READ_WAIT_MS = 300;
/** Large enough that no read is cut: every line comes as text. */
const READ_TOKENS = 200_000;
/** What a read result says of a range a reader that went away may already have had. */
const REPEAT_LABEL = /may repeat/;
const LINE = /^L(\d+)$/;

const fx = fixture();
afterEach(fx.cleanup);

/** The program: batches of `L<n>` lines (n counting from 1), then a last line with the total. */
function program(rng: Prng): { command: string; total: number } {
  const specs: string[] = [];
  let total = 0;
  for (let b = 0; b < BATCHES; b++) {
    const flood = rng.chance(FLOOD_SHARE);
    const count = flood ? FLOOD_LINES : rng.int(1, 200);
    const pause = flood ? "0" : rng.pick(["0.05", "0.1", "0.2"]);
    specs.push(`${count}:${pause}`);
    total += count;
  }
  const command =
    `n=0; for b in ${specs.join(" ")}; do c=\${b%:*}; p=\${b#*:}; seq -f 'L%.0f' $((n+1)) $((n+c)); ` +
    `n=$((n+c)); [ "$p" = 0 ] || sleep "$p"; done; echo "CHAOS-END-$n"`;
  return { command, total };
}

interface Tally {
  counts: Map<number, number>;
  /** Lines that came again inside a labelled range: allowed. */
  labelledRepeats: number;
  /** Results that said some of their lines may repeat. */
  labelledResults: number;
  ended: boolean;
}

/** Adds one result's lines; a line seen before counts as a fault unless its result labels a repeat. */
function take(tally: Tally, output: string, faults: string[]): void {
  const labelled = REPEAT_LABEL.test(output);
  if (labelled) tally.labelledResults++;
  for (const text of output.split("\n")) {
    if (text.startsWith("CHAOS-END-")) tally.ended = true;
    const m = LINE.exec(text);
    if (!m) continue;
    const n = Number(m[1]);
    const seen = tally.counts.get(n) ?? 0;
    tally.counts.set(n, seen + 1);
    if (seen === 0) continue;
    if (labelled) tally.labelledRepeats++;
    else faults.push(`L${n} came again without a repeat label`);
  }
}

describe("kill -9 of MCP servers during reads and floods", () => {
  test("the union of what readers got is every line printed", async () => {
    const rng = new Prng(SEED);
    const { command, total } = program(rng);
    const e = fx.env();
    const tally: Tally = { counts: new Map(), labelledRepeats: 0, labelledResults: 0, ended: false };
    const faults: string[] = [];
    let server: StdioMcp = await fx.server(e, "reader");
    await server.ok("term_open", { name: "num" });
    const sent = await server.ok("term_send", { session: "num", text: command, wait_ms: 0, max_tokens: READ_TOKENS });
    take(tally, String(sent.output), faults);

    const readOnce = async (s: StdioMcp) => {
      const r = await s.call("term_read", {
        session: "num",
        mode: "new",
        wait_ms: rng.int(0, MAX_READ_WAIT_MS),
        max_tokens: READ_TOKENS,
      });
      if (r.isError) return;
      if (r.data.truncated) faults.push(`a read was cut: ${JSON.stringify(r.data.truncated)}`);
      take(tally, String(r.data.output), faults);
    };

    try {
      for (let k = 0; k < KILLS; k++) {
        // Reads run back to back until the kill lands, at a random moment of a random call.
        const victim = server;
        let killed = false;
        const life = rng.int(0, MAX_LIFE_MS);
        const killer = Bun.sleep(life).then(async () => {
          killed = true;
          await victim.kill();
        });
        while (!killed) {
          await readOnce(victim).catch(() => undefined); // the call the kill cut short
        }
        await killer;
        server = await fx.server(e, "reader");
      }
      // The last server reads to the end.
      while (!tally.ended || tally.counts.size < total) {
        const before = tally.counts.size;
        await readOnce(server);
        if (tally.ended && tally.counts.size === before) break;
      }
      const missing: number[] = [];
      for (let n = 1; n <= total; n++) if (!tally.counts.has(n)) missing.push(n);
      const ranges = compress(missing);
      if (missing.length > 0) faults.push(`${missing.length} line(s) never read: ${ranges}`);
      if (faults.length > 0) {
        throw new Error(`seed ${SEED} (replay: PTYHUB_CHAOS_SEED=${SEED}): ${faults.slice(0, 10).join("; ")}`);
      }
      expect(tally.ended).toBe(true);
      process.stderr.write(
        `read-kill chaos seed ${SEED}: ${total} lines, ${KILLS} kills, ${tally.labelledResults} results ` +
          `labelled "may repeat", ${tally.labelledRepeats} lines read twice within them\n`,
      );
    } catch (err) {
      process.stderr.write(`read-kill chaos failed with seed ${SEED} (replay: PTYHUB_CHAOS_SEED=${SEED})\n`);
      throw err;
    } finally {
      await fx.cleanup();
    }
  }, 180_000);
});

/** 1,2,3,7 → "1–3, 7". */
function compress(ns: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < ns.length; ) {
    let j = i;
    while (j + 1 < ns.length && ns[j + 1] === ns[j]! + 1) j++;
    out.push(i === j ? `${ns[i]}` : `${ns[i]}–${ns[j]}`);
    i = j + 1;
  }
  return out.slice(0, 20).join(", ");
}

afterAll(fx.cleanup);

test("no daemon, MCP server, shell or zombie is left behind", async () => {
  await fx.cleanup();
  expect(await settleLeftovers()).toEqual([]);
}, 20_000);
