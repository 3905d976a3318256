/**
 * `ptyhub web`: a new one-time login link from a running `serve --http`, asked for with the bearer
 * token from the same state dir; a clear error when no server answers or the token is not its.
 */
import { afterAll, expect, test } from "bun:test";
import { createServer } from "node:net";
import { httpFixture } from "../http/helpers.ts";
import { runCli } from "../daemon/helpers.ts";

const fx = httpFixture();
afterAll(() => fx.cleanup());

/** A loopback port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

test("prints a link that logs in once", async () => {
  const env = fx.env();
  const server = await fx.server(env);
  const port = new URL(server.url).port;
  const r = await runCli(env, ["web", "--port", port]);
  expect(r.code).toBe(0);
  const link = r.stdout.trim();
  expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/login\\?code=[A-Za-z0-9_-]{43}$`));
  expect((await fetch(link, { redirect: "manual" })).status).toBe(303);
  expect((await fetch(link, { redirect: "manual" })).status).toBe(403);
  const viaUrl = await runCli(env, ["web", "--url", `http://127.0.0.1:${port}`]);
  expect(viaUrl.stdout.trim()).not.toBe(link);
  expect((await fetch(viaUrl.stdout.trim(), { redirect: "manual" })).status).toBe(303);
});

test("says so when no server answers, or the token is not the server's", async () => {
  const env = fx.env();
  const none = await runCli(env, ["web", "--port", String(await closedPort())]);
  expect(none.code).not.toBe(0);
  expect(none.stderr).toContain("no ptyhub web view answers");
  const server = await fx.server(env);
  const other = fx.env({ PTYHUB_HTTP_TOKEN: "x".repeat(43) });
  const wrong = await runCli(other, ["web", "--port", new URL(server.url).port]);
  expect(wrong.code).not.toBe(0);
  expect(wrong.stderr).toContain("gave no link (401)");
  const usage = await runCli(env, ["web", "--port", "1", "--url", "http://127.0.0.1:1"]);
  expect(usage.code).toBe(2);
});
