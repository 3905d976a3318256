/**
 * The doctor's checks one by one, against stand-ins that answer well and badly: a fake ssh-agent,
 * fake container engine sockets, a "shell" that dies at once, and check groups that throw or hang.
 * Each check must be able to fail, not only to say ok.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderText } from "../../src/doctor/command.ts";
import { checkContainers } from "../../src/doctor/containers-check.ts";
import { findingsOf } from "../../src/doctor/finding.ts";
import { runChecks } from "../../src/doctor/runner.ts";
import { checkShell } from "../../src/doctor/shells-check.ts";
import { checkSshAgent } from "../../src/doctor/ssh-agent-check.ts";

const root = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? tmpdir(), "doctor-unit-"));
const closers: Array<() => void> = [];
afterAll(() => {
  for (const close of closers) close();
  rmSync(root, { recursive: true, force: true });
});

/** An ssh-agent that answers the identities request with `keys` keys (and no key blobs: only the count is read). */
function fakeAgent(name: string, keys: number): string {
  const path = join(root, name);
  const answer = new Uint8Array([0, 0, 0, 5, 12, 0, 0, 0, keys]);
  const listener = Bun.listen({ unix: path, socket: { data: (s) => void s.write(answer) } });
  closers.push(() => listener.stop(true));
  return path;
}

describe("ssh-agent", () => {
  test("an agent holding keys is ok; one holding none, none set, or none answering are warnings", async () => {
    expect(await checkSshAgent({ SSH_AUTH_SOCK: fakeAgent("agent-2", 2) })).toMatchObject([
      { status: "ok", detail: "the agent answers and holds 2 key(s)" },
    ]);
    expect(await checkSshAgent({ SSH_AUTH_SOCK: fakeAgent("agent-0", 0) })).toMatchObject([
      { status: "warn", detail: "the agent answers but holds no key" },
    ]);
    expect(await checkSshAgent({})).toMatchObject([{ status: "warn", subject: "SSH_AUTH_SOCK" }]);
    const [gone] = await checkSshAgent({ SSH_AUTH_SOCK: join(root, "no-agent") });
    expect(gone).toMatchObject({ status: "warn", detail: expect.stringMatching(/does not answer/) });
  });
});

describe("container engines", () => {
  function engine(name: string, reply: () => Response): string {
    const path = join(root, name);
    const server = Bun.serve({ unix: path, fetch: reply });
    closers.push(() => void server.stop(true));
    return path;
  }

  test("a socket answering /_ping with OK is ok; an error answer or a dead socket is a warning", async () => {
    const healthy = engine("docker-ok.sock", () => new Response("OK"));
    const broken = engine("docker-500.sock", () => new Response("nope", { status: 500 }));
    const dead = join(root, "podman", "podman.sock");
    Bun.spawnSync(["mkdir", "-p", join(root, "podman")]);
    writeFileSync(dead, ""); // there, but nothing listens: a stopped engine
    const findingFor = async (env: NodeJS.ProcessEnv, socket: string) =>
      (await checkContainers(env)).find((f) => f.subject === socket);
    expect(await findingFor({ DOCKER_HOST: `unix://${healthy}` }, healthy)).toMatchObject({ status: "ok" });
    expect(await findingFor({ DOCKER_HOST: `unix://${broken}` }, broken)).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/answered 500/),
    });
    expect(await findingFor({ XDG_RUNTIME_DIR: root }, dead)).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/no answer to \/_ping/),
    });
  });
});

describe("shells", () => {
  test("a shell that dies at start fails, with what to do", async () => {
    const fake = join(root, "bash");
    writeFileSync(fake, "#!/bin/sh\nexit 3\n");
    chmodSync(fake, 0o755);
    const finding = await checkShell("bash", fake);
    expect(finding.status).toBe("fail");
    expect(finding.subject).toBe(`bash (${fake})`);
    expect(finding.fix).not.toBeNull();
  });
});

describe("runner and rendering", () => {
  test("a group that throws or hangs is a fail line, and the others still report", async () => {
    const is = findingsOf("fine");
    const findings = await runChecks(
      [
        { name: "fine", run: async () => [is.ok("it", "works")] },
        { name: "throws", run: () => Promise.reject(new Error("boom")) },
        { name: "hangs", run: () => new Promise(() => {}) },
      ],
      100,
    );
    expect(findings.map((f) => [f.group, f.status])).toEqual([
      ["fine", "ok"],
      ["throws", "fail"],
      ["hangs", "fail"],
    ]);
    expect(findings[1]!.detail).toContain("boom");
    expect(findings[2]!.detail).toContain("did not finish within 0.1 s");
  });

  test("text: status, group, subject and detail on one line; the fix below a warn or fail; a count", () => {
    const is = findingsOf("daemon");
    const text = renderText([is.ok("sock", "fine"), is.warn("daemon 0.0.1", "older", "ptyhub daemon --stop")]);
    expect(text.split("\n")).toEqual([
      "ok    daemon  sock: fine",
      "warn  daemon  daemon 0.0.1: older",
      "              → ptyhub daemon --stop",
      "",
      "1 ok, 1 warn, 0 fail",
      "",
    ]);
  });
});
