/**
 * The 2026-07-28 era's way to ask (input_required on a plain call, answered by the client's retry)
 * with the real harnesses that speak it and have no human at hand: `claude -p` (Claude Code
 * 2.1.330) and `codex exec` with its new-era flag (Codex 0.169.0). Both retry the call at once with
 * "cancel" or "decline" for the question nobody saw, and the model must read that nobody was
 * asked, not that the human refused. `codex exec` in the 2025-11-25 era, which declines the
 * server's elicitation/create at once, must read the same. A guard question (`git clean -fdx` in a scratch repository,
 * harmless were it run), term_secret at a password prompt, and (as root, with sshd) an SSH login
 * that needs a password, against a real sshd with a user made for the test. Needs the rigs installed
 * (test/helpers/batch-rig.ts); skipped otherwise, saying why.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { type BatchClient, findBatchRig, runBatch } from "../helpers/batch-rig.ts";
import { createTestUser, haveSshd, isRoot, startSshd, type Sshd, type TestUser } from "../ssh/sshd.ts";

/** The harness's start and the MCP server's start on a busy machine. */
const RUN_BOUND_MS = 180_000;

interface Variant {
  name: string;
  client: BatchClient;
  args: string[];
  /** How the model's text names the client that answered on its own, and what it answered. */
  answered: RegExp;
  /** The first request it sends: the era it speaks (2025-11-25 asks with elicitation/create, no retry). */
  era: "server/discover" | "initialize";
}

const VARIANTS: Variant[] = [
  {
    name: "claude -p",
    client: "claude-p",
    args: [],
    answered: /Claude Code answered "cancel"/,
    era: "server/discover",
  },
  {
    name: "codex exec, 2026-07-28 era",
    client: "codex",
    // As in inline-clients.test.ts: wait for ptyhub; the new era only behind the flag and the variable.
    args: [
      ...["-c", "mcp_servers.ptyhub.required=true", "--enable", "mcp_2026_07_28"],
      ...["-c", 'mcp_servers.ptyhub.env={PTYHUB_PERSISTENT="0",CODEX_MCP_PROTOCOL_VERSION="2026-07-28"}'],
    ],
    answered: /Codex answered "decline"/,
    era: "server/discover",
  },
  {
    name: "codex exec, 2025-11-25 era",
    client: "codex",
    args: ["-c", "mcp_servers.ptyhub.required=true"],
    answered: /Codex answered "decline"/,
    era: "initialize",
  },
];

/** An SSH server with password logins and a user that has one (root only: the user is made and removed). */
const anyRig = VARIANTS.some((v) => !("missing" in findBatchRig(v.client)));
const withSsh = anyRig && haveSshd && isRoot && process.platform === "linux";
let sshd: Sshd | null = null;
let user: TestUser | null = null;
beforeAll(async () => {
  if (!withSsh) return;
  sshd = await startSshd({ password: true });
  user = await createTestUser("/bin/sh");
});

const scratches: string[] = [];
afterAll(async () => {
  for (const dir of scratches) rmSync(dir, { recursive: true, force: true });
  await sshd?.stop();
  await user?.remove();
});

for (const variant of VARIANTS) {
  const rig = findBatchRig(variant.client);
  const skip = "missing" in rig;
  if (skip) console.warn(`skipping the ${variant.name} e2e: ${rig.missing}`);

  describe.skipIf(skip)(`${variant.name}: a question nobody saw`, () => {
    test(
      "the harness refuses the question at once (a retry in the new era), the model reads nobody was asked",
      async () => {
        if ("missing" in rig) return;
        const dir = mkdtempSync(join(tmpdir(), `ptyhub-era-q-${variant.client}-`));
        scratches.push(dir);
        const repo = join(dir, "repo");
        expect(Bun.spawnSync(["git", "init", "-q", repo]).exitCode).toBe(0);
        const untracked = join(repo, "untracked.txt");
        writeFileSync(untracked, "x\n");
        const steps: [string, unknown][] = [
          ["term_exec", { command: `cd ${repo} && git clean -fdx` }],
          ["term_exec", { command: "read -rs -p 'Password: ' pw; echo got ${#pw}" }],
          ["term_secret", { session: "main" }],
        ];
        // accept-new: the harness's HOME is the rig's own, with no known_hosts for this server.
        if (sshd && user)
          steps.push([
            "term_open",
            { name: "remote", ssh: { host: "127.0.0.1", port: sshd.port, user: user.name, host_key: "accept-new" } },
          ]);
        const run = await runBatch(rig, dir, steps, variant.args);
        for (const r of run.reads) console.log(`${variant.name} · ${r.tool} ${JSON.stringify(r.args)}\n${r.text}\n`);
        expect(run.exitCode).toBe(0);
        expect(run.requests.find((r) => r.method)?.method).toBe(variant.era);
        // Each asking call went out twice: the call, then its retry with the answer and the state echoed.
        const calls = run.requests.filter((r) => r.method === "tools/call");
        const retries = calls.filter((r) => (r.params as Record<string, unknown>).requestState !== undefined);
        const asking = ["term_exec", "term_secret", ...(sshd ? ["term_open"] : [])];
        expect(retries.map((r) => r.params?.name)).toEqual(variant.era === "server/discover" ? asking : []);
        expect(run.reads.map((r) => r.tool)).toEqual(steps.map(([tool]) => tool));
        const [guard, prompt, secret, ssh] = run.reads;
        expect(guard!.text).toContain("BLOCKED_BY_GUARD");
        expect(guard!.text).toContain("Nobody was asked");
        expect(guard!.text).toMatch(variant.answered);
        expect(guard!.text).not.toContain("did not confirm");
        expect(existsSync(untracked)).toBe(true);
        expect(prompt!.text).toContain("Password:");
        expect(secret!.text).toContain("ELICITATION_UNSUPPORTED: no secret was typed: nobody was asked");
        expect(secret!.text).toMatch(variant.answered);
        expect(secret!.text).toContain("ptyhub attach main");
        if (sshd) {
          expect(ssh!.text).toContain("ELICITATION_UNSUPPORTED: login to");
          expect(ssh!.text).toContain("nobody was asked");
          expect(ssh!.text).toMatch(variant.answered);
          expect(ssh!.text).not.toContain("declined");
        }
      },
      RUN_BOUND_MS,
    );
  });
}
