/**
 * URL-mode elicitation over HTTP: a client of `ptyhub serve --http` on loopback that declares
 * `elicitation.url` gets ptyhub's one-time page for term_secret, as over stdio
 * (test/e2e/secret-url.test.ts has the page's refusals); the secret reaches the program only.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { ElicitRequestSchema, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { settleLeftovers } from "../daemon/helpers.ts";
import { httpFixture } from "./helpers.ts";

const TEST_TIMEOUT_MS = 60_000;
const SECRET = `http-url-${randomBytes(9).toString("base64url")}`;

const fx = httpFixture();
afterEach(fx.cleanup);
afterAll(async () => {
  expect(await settleLeftovers()).toEqual([]);
});

describe("term_secret over HTTP, URL mode", () => {
  test(
    "the loopback server sends the page; the human's post reaches the program; results never hold it",
    async () => {
      const s = await fx.server(fx.env());
      const a = await fx.client(s, "url-client", { elicitation: { form: {}, url: {} } });
      const asked: ElicitRequest["params"][] = [];
      const posted: Promise<number>[] = [];
      a.client.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked.push(req.params);
        if (req.params.mode === "url") {
          const url = req.params.url;
          posted.push(
            fetch(url, {
              method: "POST",
              headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(url).origin },
              body: new URLSearchParams({ secret: SECRET }).toString(),
            }).then(async (r) => {
              await r.text();
              return r.status;
            }),
          );
        }
        return { action: "accept" };
      });
      const program = "read -r -s -p 'Password: ' p; echo; echo \"len=${#p}\"";
      await a.ok("term_open", { name: "hp", command: "bash", args: ["--norc"] });
      // term_send waits for output newer than itself: the prompt the line prints.
      await a.ok("term_send", { session: "hp", text: program, until: "Password:", wait_ms: 20_000 });
      const typed = await a.call("term_secret", { session: "hp" });
      expect(typed.isError).toBe(false);
      expect(await Promise.all(posted)).toEqual([200]);
      expect(asked.map((q) => q.mode)).toEqual(["url"]);
      const read = await a.ok("term_read", { session: "hp", until: "len=\\d+", wait_ms: 20_000 });
      expect(String(read.output)).toContain(`len=${SECRET.length}`);
      expect(JSON.stringify([typed, read, asked])).not.toContain(SECRET);
      expect(s.stderr()).not.toContain(SECRET);
      await a.ok("term_close", { session: "hp" });
    },
    TEST_TIMEOUT_MS,
  );
});
