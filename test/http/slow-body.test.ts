/**
 * Slow request bodies cannot lock other clients out (issue 23, item 8): a real `ptyhub serve
 * --http` with a small connection cap, more authenticated POSTs than the cap whose bodies trickle
 * in a byte a second (never idle, never done), and a client that is refused while they hold the
 * slots and served once the server has answered each of them 408 at its body deadline.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import type { Socket } from "bun";
import { BODY_DEADLINE_MS } from "../../src/mcp/http.ts";
import { settleLeftovers } from "../daemon/helpers.ts";
import { httpFixture } from "./helpers.ts";

const MAX_CONNECTIONS = 4;
const SLOW_CLIENTS = MAX_CONNECTIONS + 2;
const TRICKLE_EVERY_MS = 1000;
const fx = httpFixture();
afterEach(fx.cleanup);
afterAll(async () => {
  expect(await settleLeftovers()).toEqual([]);
});

interface Slow {
  socket: Socket;
  answered: Promise<string>;
}

async function slowPost(url: URL, token: string): Promise<Slow> {
  let answer = "";
  let done: (text: string) => void = () => {};
  const answered = new Promise<string>((resolve) => (done = resolve));
  const socket = await Bun.connect({
    hostname: url.hostname,
    port: Number(url.port),
    socket: {
      data(_s, chunk) {
        answer += chunk.toString();
        if (answer.includes("\r\n\r\n")) done(answer);
      },
      close() {
        done(answer);
      },
    },
  });
  socket.write(
    `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\n` +
      "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{",
  );
  return { socket, answered };
}

async function initialize(url: string, token: string): Promise<number> {
  const r = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "late", version: "0" } },
    }),
  });
  await r.text();
  return r.status;
}

describe("slow request bodies", () => {
  test(
    "trickling bodies get 408 at the deadline, and the client they kept out is served",
    async () => {
      const s = await fx.server(fx.env({ PTYHUB_HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS) }));
      const url = new URL(s.url);
      const slow = await Promise.all(Array.from({ length: SLOW_CLIENTS }, () => slowPost(url, s.token)));
      const trickle = setInterval(() => {
        for (const c of slow) c.socket.write(" ");
      }, TRICKLE_EVERY_MS);
      try {
        expect(await initialize(s.url, s.token)).toBe(503);
        const answers = await Promise.all(slow.map((c) => c.answered));
        // Those past the cap were refused at once; those that held a slot were cut at the deadline.
        const statuses = answers.map((a) => a.slice("HTTP/1.1 ".length, "HTTP/1.1 ".length + 3));
        expect(statuses.every((st) => st === "408" || st === "503")).toBe(true);
        expect(statuses.filter((st) => st === "408").length).toBeGreaterThanOrEqual(MAX_CONNECTIONS - 1);
        expect(await initialize(s.url, s.token)).toBe(200);
      } finally {
        clearInterval(trickle);
        for (const c of slow) c.socket.end();
      }
    },
    BODY_DEADLINE_MS * 3,
  );
});
