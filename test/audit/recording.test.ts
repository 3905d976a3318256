/**
 * asciicast v2 recordings (src/audit/recording.ts): written for a real bash session when the
 * setting is on (header, output events with rising times, a resize event, UTF-8 whole, secrets
 * masked), a new file per run of the same session name, a size limit that ends the recording
 * with a marker, and nothing at all when the setting is off.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newHost, ctx, defaults } from "../helpers/host.ts";
import { auditDir } from "../../src/audit/trail.ts";
import { castFile, SessionRecording } from "../../src/audit/recording.ts";
import { fakeSession, mark } from "../helpers/fake-backend.ts";
import { loadConfig } from "../../src/config/config.ts";
import { waitFor } from "../../src/session/wait.ts";

type CastEvent = [number, string, string];

function readCast(path: string): { header: Record<string, unknown>; events: CastEvent[] } {
  const [first, ...rest] = readFileSync(path, "utf8").split("\n").filter(Boolean);
  return { header: JSON.parse(first!) as Record<string, unknown>, events: rest.map((l) => JSON.parse(l) as CastEvent) };
}

function recordingHost(maxBytes?: number) {
  const audit = { ...loadConfig({}, {}).audit, recording: true };
  if (maxBytes !== undefined) audit.recording_max_bytes = maxBytes;
  return newHost({ audit });
}

describe("asciicast recordings", () => {
  test("a session's output, resizes and timing, replayable as asciicast v2", async () => {
    const host = recordingHost();
    try {
      await host.open({ name: "rec", cols: 100, rows: 30 }, ctx);
      await host.exec({ session: "rec", command: "printf 'h\\303\\251llo %s\\n' wörld", ...defaults }, ctx);
      await host.resize({ session: "rec", cols: 90, rows: 20 }, ctx);
      await host.exec({ session: "rec", command: "echo after-resize", ...defaults }, ctx);
      await host.close({ session: "rec" });
      const path = castFile(auditDir(), "rec");
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const { header, events } = readCast(path);
      expect(header).toMatchObject({ version: 2, width: 100, height: 30 });
      // The title names the kind and the target, as the audit trail's open entry does.
      expect(String(header.title)).toMatch(/^ptyhub rec: local \S/);
      expect(typeof header.timestamp).toBe("number");
      const times = events.map((e) => e[0]);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      const output = events
        .filter((e) => e[1] === "o")
        .map((e) => e[2])
        .join("");
      expect(output).toContain("héllo wörld\r\n");
      // ptyhub's own marks (which carry the session's nonce) are not what the terminal showed.
      expect(output).not.toContain("\x1b]6973;");
      const resize = events.findIndex((e) => e[1] === "r");
      expect(events[resize]?.[2]).toBe("90x20");
      expect(output.indexOf("after-resize")).toBeGreaterThan(0);
      // The resize is recorded before the output that followed it.
      const afterResize = events
        .slice(resize)
        .map((e) => e[2])
        .join("");
      expect(afterResize).toContain("after-resize");
    } finally {
      await host.shutdown();
    }
  });

  test("secrets typed with term_secret are masked; each run of a name gets its own file", async () => {
    const host = recordingHost();
    const secret = "rec-s3cret-Zq9";
    try {
      for (const run of [1, 2]) {
        await host.open({ name: "again" }, ctx);
        await host.exec({ session: "again", command: `echo run-${run}`, ...defaults }, ctx);
        if (run === 2) {
          await host.exec({ session: "again", command: "read -r s; echo got:$s", ...defaults, timeout_ms: 500 }, ctx);
          await host.typeSecret({ session: "again", secret, enter: true }, ctx);
          // The read ends; the next term_exec needs its end mark (the prompt) first.
          const session = host.manager.get("again");
          await waitFor(session, () => (session.phase === "prompt" ? { done: true } : null), { timeoutMs: 5000 });
          await host.exec({ session: "again", command: "echo done", ...defaults }, ctx);
        }
        await host.close({ session: "again" });
      }
      const dir = auditDir();
      const older = readFileSync(castFile(dir, "again", 1), "utf8");
      const newer = readFileSync(castFile(dir, "again"), "utf8");
      expect(older).toContain("run-1");
      expect(older).not.toContain("run-2");
      expect(newer).toContain("run-2");
      expect(newer).toContain("got:");
      expect(newer).not.toContain(secret);
    } finally {
      await host.shutdown();
    }
  });

  test("a recording stops at its size limit with a marker saying so", async () => {
    const host = recordingHost(8192);
    try {
      await host.open({ name: "big" }, ctx);
      await host.exec({ session: "big", command: "seq 1 20000", ...defaults }, ctx);
      await host.exec({ session: "big", command: "echo still-running", ...defaults }, ctx);
      const path = castFile(auditDir(), "big");
      const { events } = readCast(path);
      expect(statSync(path).size).toBeLessThanOrEqual(8192 + 200);
      expect(events.at(-1)?.[1]).toBe("m");
      expect(events.at(-1)?.[2]).toContain("size limit");
      await host.close({ session: "big" });
    } finally {
      await host.shutdown();
    }
  });

  test("marks are left out even when a read cuts one in two; other OSCs stay", () => {
    const dir = mkdtempSync(join(tmpdir(), "ptyhub-rec-"));
    try {
      const { session, fake } = fakeSession();
      const recording = SessionRecording.begin(dir, session, 1 << 20);
      const marked = `a${mark("C")}b\x1b]0;title\x07c${mark("D;0;/tmp")}d`;
      for (const cut of [3, 9, 20, 31]) {
        fake.emit(marked.slice(0, cut));
        fake.emit(marked.slice(cut) + "\r\n");
      }
      recording!.end();
      const { events } = readCast(castFile(dir, "fake"));
      const output = events
        .filter((e) => e[1] === "o")
        .map((e) => e[2])
        .join("");
      expect(output).toBe("ab\x1b]0;title\x07cd\r\n".repeat(4));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("nothing is recorded when the setting is off (the default)", async () => {
    const host = newHost();
    try {
      await host.open({ name: "plain" }, ctx);
      await host.exec({ session: "plain", command: "echo hi", ...defaults }, ctx);
      await host.close({ session: "plain" });
      expect(existsSync(castFile(auditDir(), "plain"))).toBe(false);
    } finally {
      await host.shutdown();
    }
  });
});
