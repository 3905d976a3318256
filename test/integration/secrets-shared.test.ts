/**
 * Masking secrets without breaking the protocol, across sessions and recordings (issue 23, item 6):
 * a secret that occurs inside a protocol value (`done`, `shell`) leaves results readable; a
 * one-character secret masks nothing (it would garble everything) and breaks nothing; a secret
 * typed in one session is masked in another's output and in that other's asciicast recording.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auditDir } from "../../src/audit/trail.ts";
import { castFile } from "../../src/audit/recording.ts";
import { loadConfig } from "../../src/config/config.ts";
import { MIN_MASKED_SECRET_CHARS, REDACTED, Secrets } from "../../src/session/redaction.ts";
import { ctx, defaults, newHost } from "../helpers/host.ts";

/** Types `secret` as the answer to a `read` in `session`, the way term_secret does. */
async function typeSecretInto(host: ReturnType<typeof newHost>, session: string, secret: string): Promise<void> {
  await host.send({ session, text: "read -r answer", wait_ms: 300, max_tokens: 4000 }, ctx);
  await host.typeSecret({ session, secret, enter: true }, ctx);
  // The read is over when the shell is back at its prompt: the next exec would be busy otherwise.
  const r = await host.exec({ session, command: "true", ...defaults }, ctx);
  expect(r).toMatchObject({ status: "done", exit_code: 0 });
}

describe("secrets and protocol values", () => {
  test("a secret equal to protocol words leaves status, via and state intact", async () => {
    const host = newHost();
    try {
      await host.open({ name: "words" }, ctx);
      for (const word of ["shell", "done", "prompt"]) await typeSecretInto(host, "words", word);
      const r = await host.exec(
        { session: "words", command: "echo shell done prompt; echo $answer", ...defaults },
        ctx,
      );
      expect(r).toMatchObject({ session: "words", status: "done", via: "shell", state: "prompt", exit_code: 0 });
      expect(r.output).toBe(`${REDACTED} ${REDACTED} ${REDACTED}\n${REDACTED}`);
    } finally {
      await host.shutdown();
    }
  });

  test("a one-character secret is not masked, and later commands still work", async () => {
    const host = newHost();
    try {
      await host.open({ name: "tiny" }, ctx);
      await typeSecretInto(host, "tiny", "e");
      const r = await host.exec({ session: "tiny", command: "echo these are letters", ...defaults }, ctx);
      expect(r).toMatchObject({ status: "done", via: "shell", exit_code: 0, output: "these are letters" });
      expect(new Secrets().add("abc")).toBe(false);
      expect(new Secrets().add("x".repeat(MIN_MASKED_SECRET_CHARS))).toBe(true);
    } finally {
      await host.shutdown();
    }
  });
});

describe("secrets across sessions", () => {
  test("typed in one session, masked in another's output and in its recording", async () => {
    const secret = "tr0ub4dor-and-3";
    const dir = mkdtempSync(join(tmpdir(), "ptyhub-secret-file-"));
    const host = newHost({ audit: { ...loadConfig({}, {}).audit, recording: true } });
    try {
      await host.open({ name: "typed", cwd: dir }, ctx);
      await host.open({ name: "other", cwd: dir }, ctx);
      await typeSecretInto(host, "typed", secret);
      await host.exec({ session: "typed", command: 'printf "%s\\n" "$answer" > saved.txt', ...defaults }, ctx);
      expect(readFileSync(join(dir, "saved.txt"), "utf8")).toBe(`${secret}\n`);
      const r = await host.exec({ session: "other", command: "cat saved.txt", ...defaults }, ctx);
      expect(r.output).toBe(REDACTED);
      await host.close({ session: "other" });
      const cast = readFileSync(castFile(auditDir(), "other"), "utf8");
      expect(cast).toContain(REDACTED);
      expect(cast).not.toContain(secret);
    } finally {
      await host.shutdown();
    }
  });
});
