/**
 * A trail that cannot be written fails the call that would type, loudly, and leaves no torn line
 * (issue 23, item 8). The disk filling up is the kernel's own refusal: a file size limit
 * (RLIMIT_FSIZE) set on this process just above the trail's size, so the next entry is cut off
 * mid-line by write(2) and then refused (EFBIG), as ENOSPC does on a full disk.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FFIType, ptr } from "bun:ffi";
import { openLibc } from "../../src/util/libc.ts";
import { trailFiles } from "../../src/audit/trail.ts";
import { ctx, defaults, newHost } from "../helpers/host.ts";

const RLIMIT_FSIZE = 1;
const libc = openLibc({
  getrlimit: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
  setrlimit: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
});

/** Runs `fn` with this process's file size limit at `bytes`, then puts the old limit back. */
async function withFileSizeLimit<T>(bytes: number, fn: () => Promise<T>): Promise<T> {
  const old = new BigUint64Array(2);
  expect(libc.symbols.getrlimit(RLIMIT_FSIZE, ptr(old))).toBe(0);
  const limited = new BigUint64Array([BigInt(bytes), old[1]!]);
  expect(libc.symbols.setrlimit(RLIMIT_FSIZE, ptr(limited))).toBe(0);
  try {
    return await fn();
  } finally {
    expect(libc.symbols.setrlimit(RLIMIT_FSIZE, ptr(old))).toBe(0);
  }
}

function trailText(session: string): string {
  return trailFiles(session)
    .map((f) => readFileSync(f, "utf8"))
    .join("");
}

describe("the audit trail on a full disk", () => {
  test.if(process.platform === "linux")("the call fails saying so, nothing is typed, no line is torn", async () => {
    const host = newHost();
    try {
      await host.open({ name: "full" }, ctx);
      expect((await host.exec({ session: "full", command: "echo one", ...defaults }, ctx)).output).toBe("one");
      const size = Buffer.byteLength(trailText("full"));
      // Room for part of the next entry only.
      const failed = await withFileSizeLimit(size + 20, async () =>
        host.exec({ session: "full", command: "echo typed-while-full > /dev/null", ...defaults }, ctx).then(
          () => null,
          (err: { code: string; message: string; hint: string }) => err,
        ),
      );
      expect(failed).toMatchObject({ code: "INTERNAL" });
      expect(failed!.message).toContain("audit trail of session 'full' cannot be written");
      expect(failed!.message).toContain("nothing was typed");
      const text = trailText("full");
      expect(text.endsWith("\n")).toBe(true);
      for (const line of text.split("\n").filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
      expect(text).not.toContain("typed-while-full");
      // Room again: the session and its trail go on.
      const after = await host.exec({ session: "full", command: "history | tail -3; echo two", ...defaults }, ctx);
      expect(after.output).not.toContain("typed-while-full");
      expect(after.output).toContain("two");
      expect(trailText("full")).toContain('"text":"history | tail -3; echo two"');
    } finally {
      await host.shutdown();
    }
  });

  test.if(process.platform === "linux")("term_open with a command fails the same way, and starts nothing", async () => {
    const host = newHost();
    // mkdir needs no file size, so the limit cannot be what stops it: only not starting does.
    const marker = join(mkdtempSync(join(tmpdir(), "full-open-")), "started");
    try {
      const opens: [string, { command: string; args?: string[] }][] = [
        ["full-line", { command: `mkdir ${marker}` }],
        ["full-argv", { command: "mkdir", args: [marker] }],
      ];
      for (const [name, p] of opens) {
        const failed = await withFileSizeLimit(1, async () =>
          host.open({ name, ...p }, ctx).then(
            () => null,
            (err: { code: string; message: string }) => err,
          ),
        );
        expect(failed).toMatchObject({ code: "INTERNAL" });
        expect(failed!.message).toContain(`audit trail of session '${name}' cannot be written`);
        expect(failed!.message).toContain("nothing was started");
        expect(existsSync(marker)).toBe(false);
      }
      // With room, the same open starts, and its trail says what it ran before it ran.
      await host.open({ name: "full-room", command: "mkdir", args: [marker] }, ctx);
      expect(trailText("full-room")).toContain(`"via":"open","text":"mkdir ${marker}"`);
    } finally {
      await host.shutdown();
    }
  });
});
