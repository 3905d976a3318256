/**
 * The daemon protocol on its own: framing under any chunking and at large sizes, calls and their
 * cancellation, elicitation across the socket, and a clear error (never garbled sessions) when
 * the two sides speak different protocol versions. A DaemonServer runs in this process with a
 * scripted host, so these tests need no PTY.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AppError } from "../../src/api/errors.ts";
import { DaemonClient, DaemonConnectError } from "../../src/daemon-client/client.ts";
import { DaemonServer, type HostedSessions } from "../../src/daemon/server.ts";
import { join } from "node:path";
import { daemonPaths, type DaemonPaths } from "../../src/daemon-client/daemon-paths.ts";
import { encodeFrame, FrameDecoder, FrameError, PROTOCOL, type Frame } from "../../src/daemon-client/protocol.ts";
import { KEY_FILE_NAME, newChallenge, proveKey } from "../../src/daemon-client/pipe-auth.ts";
import { VERSION } from "../../src/version.ts";
import type { CallContext } from "../../src/api/host.ts";
import { parseHostParams, parseHostResult, type HostMethod } from "../../src/api/table.ts";
import type { Env } from "../helpers/mcp-client.ts";
import { waitFor } from "../helpers/wait.ts";
import { testEnv } from "./helpers.ts";

describe("frames", () => {
  const frames = [
    {
      type: "call",
      id: 1,
      method: "send",
      params: { text: "héllo wörld — ✓ 𝄞\nline2" },
      ctx: { clientId: "a", elicit: false },
    },
    { type: "result", id: 1, result: { output: "x".repeat(3000) } },
    { type: "output", data: Buffer.from([0, 1, 2, 0x0a, 0xff]).toString("base64") },
  ];
  const bytes = Buffer.concat(frames.map((f) => encodeFrame(f as never)));

  test("a stream split at every possible byte boundary decodes to the same frames", () => {
    for (let cut = 1; cut < bytes.length; cut += 7) {
      const d = new FrameDecoder();
      const got = [...d.push(bytes.subarray(0, cut)), ...d.push(bytes.subarray(cut))];
      expect(got).toEqual(frames);
    }
  });

  test("byte-by-byte delivery (multi-byte UTF-8 split between reads) decodes intact", () => {
    const d = new FrameDecoder();
    const got: unknown[] = [];
    for (let i = 0; i < bytes.length; i++) got.push(...d.push(bytes.subarray(i, i + 1)));
    expect(got).toEqual(frames);
  });

  test("garbage and oversized frames are refused, not half-parsed", () => {
    expect(() => new FrameDecoder().push(Buffer.from("not json\n"))).toThrow(FrameError);
    expect(() => new FrameDecoder().push(Buffer.from('{"no":"type"}\n'))).toThrow(FrameError);
    expect(() => new FrameDecoder(100).push(Buffer.from("x".repeat(101)))).toThrow(FrameError);
  });
});

/** A host whose methods are scripted per test; only what the server touches is real. */
function scriptedHost(
  overrides: Partial<Record<string, (p: Record<string, unknown>, ctx: CallContext) => Promise<unknown>>>,
): HostedSessions {
  const notFound = () => {
    throw new AppError("SESSION_NOT_FOUND", "no session", "");
  };
  const base = {
    manager: { size: 0, get: notFound, killAllNow() {}, localLeaders: () => [] },
    // As LocalHost.apply: params checked against the table first, the result after.
    async apply(method: HostMethod, params: unknown, ctx: CallContext) {
      const checked = parseHostParams(method, params);
      const f = overrides[method];
      const raw = f ? await f(checked, ctx) : notFound();
      return parseHostResult(method, raw, "the scripted host");
    },
    async shutdown() {},
    // The daemon subscribes at construction (replay logs); a scripted host has no events to tell.
    onSessionEvent: () => () => {},
  };
  return new Proxy(base, {
    get(target, prop: string) {
      if (prop in target) return (target as Record<string, unknown>)[prop];
      const f = overrides[prop];
      return f ?? (async () => notFound());
    },
  }) as unknown as HostedSessions;
}

/** How long a call may take to cross the socket on a loaded machine. */
const CALL_WAIT_MS = 5000;
const BIG = "0123456789abcdef".repeat(5 * 65536);

/** A read result as the host API table's output schema has it, carrying `output`. */
function readResult(output: string) {
  return {
    session: "s",
    mode: "history",
    output,
    state: "prompt",
    alt_screen: false,
    cursor: { row: 1, col: 1 },
    lines_total: 1,
    dropped: 0,
    exit_code: null,
    matched: null,
    via: null,
    truncated: null,
  };
}

describe("calls over the socket", () => {
  let env: Env;
  let server: DaemonServer;
  let socket: string;
  const seen: { signalAborted?: boolean; clientId?: string; elicited?: string; resizeCalls: number } = {
    resizeCalls: 0,
  };
  let releaseSlow: (() => void) | null = null;

  beforeAll(async () => {
    env = testEnv();
    const paths = daemonPaths(env);
    socket = paths.socket;
    server = new DaemonServer(
      scriptedHost({
        // Answers `until` "big" with a 5 MB output (framing and backpressure at size), else echoes it.
        read: async (p, ctx) => {
          seen.clientId = ctx.clientId;
          return readResult(p.until === "big" ? BIG : String(p.until));
        },
        // Counts calls that reached the host (invalid ones must not), and answers malformed.
        resize: async () => {
          seen.resizeCalls++;
          return { session: "s", cols: "wide" };
        },
        // Waits until cancelled.
        send: (_p, ctx) =>
          new Promise((_resolve, reject) => {
            releaseSlow = () => reject(new Error("released"));
            ctx.signal?.addEventListener("abort", () => {
              seen.signalAborted = true;
              reject(new AppError("INVALID_ARGUMENT", "the request was cancelled", ""));
            });
          }),
        // Asks the human, through the client, across the socket.
        typeSecret: async (_p, ctx) => {
          if (!ctx.elicit) throw new AppError("ELICITATION_UNSUPPORTED", "no elicitation", "");
          const answer = await ctx.elicit("passphrase for key?", {
            type: "object",
            properties: { secret: { type: "string" } },
          });
          seen.elicited = answer.action === "accept" ? String(answer.content?.secret) : undefined;
          return { session: "s", sent: true };
        },
        close: async () => {
          throw new AppError("SESSION_BUSY", "busy right now", "try later");
        },
      }),
      { paths, idleMs: 0 },
    );
    expect(await server.start()).toBe("started");
  });

  afterAll(async () => {
    releaseSlow?.();
    await server.stop("test done");
  });

  test("a 5 MB result arrives whole, checked against the table, and the caller's clientId reaches the host", async () => {
    const c = await DaemonClient.connect({ socket, role: "test" });
    const r = await c.invoke("read", { session: "s", mode: "history", until: "big" }, { clientId: "client-42" });
    expect(r.output.length).toBe(BIG.length);
    expect(r.output === BIG).toBe(true);
    expect(seen.clientId).toBe("client-42");
    c.close();
  });

  test("params that break the method's schema are refused before the host sees them", async () => {
    const c = await DaemonClient.connect({ socket, role: "test" });
    const before = seen.resizeCalls;
    for (const params of [
      { session: "s", cols: 5000, rows: 40 },
      { session: "s", cols: 80 },
      { session: "s", cols: 80, rows: 40, extra: 1 },
      "nonsense",
    ]) {
      const err: any = await c.request("resize", params).catch((e: any) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err.code).toBe("INVALID_ARGUMENT");
      expect(err.message).toContain("invalid resize call");
    }
    expect(seen.resizeCalls).toBe(before);
    // A result that breaks the output schema is refused on arrival, not handed on.
    const bad: any = await c.invoke("resize", { session: "s", cols: 80, rows: 40 }).catch((e: any) => e);
    expect(seen.resizeCalls).toBe(before + 1);
    expect(bad.code).toBe("INTERNAL");
    expect(bad.message).toContain("resize result is malformed");
    // The connection is still good.
    expect((await c.invoke("read", { session: "s", until: "ok" })).output).toBe("ok");
    c.close();
  });

  test("a malformed frame gets a fatal error and the connection is closed", async () => {
    const c = await DaemonClient.connect({ socket, role: "test" });
    const closed = new Promise<void>((resolve) => c.onClose(resolve));
    c.send({ type: "call", id: 1.5, method: "list", params: {}, ctx: { clientId: "x", elicit: false } });
    await closed;
    expect(c.closed).toBe(true);
  });

  test("errors keep their code, message and hint", async () => {
    const c = await DaemonClient.connect({ socket, role: "test" });
    const err: any = await c.invoke("close", { session: "x" }).catch((e: any) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe("SESSION_BUSY");
    expect(err.message).toBe("busy right now");
    expect(err.hint).toBe("try later");
    c.close();
  });

  test("cancelling a call aborts the host's wait in the daemon", async () => {
    const c = await DaemonClient.connect({ socket, role: "test" });
    const ac = new AbortController();
    releaseSlow = null;
    const pending = c.invoke("send", { session: "s" }, { clientId: "x", signal: ac.signal }).catch((e: any) => e);
    // Cancel once the call is in the host's hands (it set releaseSlow), not before it got there.
    await waitFor(() => releaseSlow !== null, CALL_WAIT_MS, "the call to reach the host");
    ac.abort();
    const err: any = await pending;
    expect(err.message).toContain("cancelled");
    await waitFor(() => seen.signalAborted === true, CALL_WAIT_MS, "the host's signal to abort");
    c.close();
  });

  test("elicitation asked by the daemon is answered by the client's elicit hook", async () => {
    const c = await DaemonClient.connect({ socket, role: "test" });
    let asked = "";
    const r = await c.request(
      "typeSecret",
      { session: "s", secret: "", enter: true },
      {
        clientId: "x",
        elicit: async (message) => {
          asked = message;
          return { action: "accept", content: { secret: "hunter2" } };
        },
      },
    );
    expect(asked).toBe("passphrase for key?");
    expect(r).toMatchObject({ session: "s", sent: true });
    expect(seen.elicited).toBe("hunter2");
    // Without the hook, the daemon side learns the client cannot elicit.
    const err: any = await c
      .request("typeSecret", { session: "s", secret: "", enter: true }, { clientId: "x" })
      .catch((e: any) => e);
    expect(err.code).toBe("ELICITATION_UNSUPPORTED");
    c.close();
  });

  test("a client speaking another protocol version gets a clear error, and the daemon keeps serving", async () => {
    const err: any = await DaemonClient.connect({ socket, role: "test", protocol: PROTOCOL + 98 }).catch((e: any) => e);
    expect(err).toBeInstanceOf(DaemonConnectError);
    expect(err.code).toBe("DAEMON_UNAVAILABLE");
    expect(err.message).toContain(`speaks protocol ${PROTOCOL + 98}`);
    // Whoever speaks our version is unaffected.
    const c = await DaemonClient.connect({ socket, role: "test" });
    expect((await c.invoke("read", { session: "s", until: "ok" })).output).toBe("ok");
    c.close();
  });

  test("a daemon speaking another protocol version is refused with a clear error", async () => {
    const fakeSocket = daemonPaths(testEnv()).socket;
    const fake = Bun.listen({
      unix: fakeSocket,
      socket: {
        open(s) {
          s.write(
            JSON.stringify({ type: "hello", protocol: PROTOCOL + 1, version: "9.9.9", pid: 4242, role: "daemon" }) +
              "\n",
          );
        },
        data() {},
      },
    });
    try {
      const err: any = await DaemonClient.connect({ socket: fakeSocket, role: "test" }).catch((e: any) => e);
      expect(err).toBeInstanceOf(DaemonConnectError);
      expect(err.kind).toBe("incompatible");
      expect(err.daemonPid).toBe(4242);
      expect(err.message).toContain(`speaks protocol ${PROTOCOL + 1}`);
      expect(err.message).toContain("9.9.9");
      expect(err.hint).toContain("ptyhub daemon --stop");
    } finally {
      fake.stop(true);
    }
  });
});

/**
 * Where the transport cannot tell who is at the other end (a Windows named pipe: another user can
 * create our pipe's name first), both ends prove the user's key (src/daemon-client/pipe-auth.ts). Here
 * over a Unix socket with the key turned on, so the exchange and its refusals run on Linux; the
 * same on a real pipe under Wine is in test/ship/windows.test.ts.
 */
describe("the key proof on connections that need it", () => {
  /** A short deadline for the proof, where a test waits for it to pass. */
  const PROOF_TIMEOUT_MS = 200;
  let paths: DaemonPaths & { key: string };
  let server: DaemonServer;
  let reads = 0;

  beforeAll(async () => {
    const plain = daemonPaths(testEnv());
    paths = { ...plain, key: join(plain.dir, KEY_FILE_NAME) };
    server = new DaemonServer(
      scriptedHost({
        read: async (p) => {
          reads++;
          return readResult(String(p.until));
        },
      }),
      { paths, idleMs: 0 },
    );
    expect(await server.start()).toBe("started");
  });

  afterAll(async () => {
    await server.stop("test done");
  });

  /**
   * Connects by hand, sends `frames` once the daemon's hello names its challenge, and collects every
   * frame until the daemon hangs up.
   */
  async function rawClient(
    frames: (daemonChallenge: string) => unknown[],
    socket = paths.socket,
  ): Promise<Record<string, unknown>[]> {
    const got: Record<string, unknown>[] = [];
    const decoder = new FrameDecoder();
    const { promise: ended, resolve: end } = Promise.withResolvers<void>();
    await Bun.connect({
      unix: socket,
      socket: {
        data(s, chunk) {
          for (const f of decoder.push(chunk) as Record<string, unknown>[]) {
            got.push(f);
            if (f.type === "hello") for (const out of frames(String(f.challenge))) s.write(encodeFrame(out as Frame));
          }
        },
        close: () => end(),
        end: (s) => void s.end(),
      },
    });
    await ended;
    return got;
  }

  test("a client holding the key is served, after the daemon proved the key to it", async () => {
    const c = await DaemonClient.connect({ socket: paths.socket, role: "test", key: paths.key });
    expect((await c.invoke("read", { session: "s", until: "keyed" })).output).toBe("keyed");
    c.close();
  });

  test("a client without the key gets the daemon's hello and proof, then a refusal; its call never runs", async () => {
    const before = reads;
    const hello = { type: "hello", protocol: PROTOCOL, version: "test", pid: process.pid, role: "test" };
    const call = {
      type: "call",
      id: 1,
      method: "read",
      params: { session: "s", until: "x" },
      ctx: { clientId: "x", elicit: false },
    };
    const wrongKey = Buffer.alloc(32, 1);
    const clientChallenge = newChallenge();
    const guessed = await rawClient((d) => [
      { ...hello, challenge: clientChallenge },
      { type: "auth", proof: proveKey(wrongKey, "client", d, clientChallenge) },
      call,
    ]);
    expect(guessed.map((f) => f.type)).toEqual(["hello", "auth", "fatal"]);
    expect(guessed[2]).toMatchObject({ error: { code: "DAEMON_UNAVAILABLE", retryable: false } });
    expect(String((guessed[2]!.error as { message: string }).message)).toContain("proof is wrong");

    const skipped = await rawClient(() => [{ ...hello, challenge: clientChallenge }, call]);
    expect(skipped.map((f) => f.type)).toEqual(["hello", "auth", "fatal"]);
    expect(String((skipped[2]!.error as { message: string }).message)).toContain("sent call before its proof");

    // A client that does not take part (no key: an older ptyhub) is sent away before its first call.
    const old = await DaemonClient.connect({ socket: paths.socket, role: "test" });
    const err: any = await old.invoke("read", { session: "s", until: "x" }).catch((e: any) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe("DAEMON_UNAVAILABLE");
    expect(reads).toBe(before);

    // The daemon keeps serving whoever holds the key.
    const c = await DaemonClient.connect({ socket: paths.socket, role: "test", key: paths.key });
    expect((await c.invoke("read", { session: "s", until: "still" })).output).toBe("still");
    c.close();
  });

  test("a client that never proves the key is sent away in time (it would hold the daemon up)", async () => {
    const theirs = daemonPaths(testEnv());
    const patient = new DaemonServer(scriptedHost({}), {
      paths: { ...theirs, key: join(theirs.dir, KEY_FILE_NAME) },
      idleMs: 0,
      keyProofTimeoutMs: PROOF_TIMEOUT_MS,
    });
    expect(await patient.start()).toBe("started");
    try {
      const hello = { type: "hello", protocol: PROTOCOL, version: "test", pid: process.pid, role: "test" };
      const silent = await rawClient(() => [{ ...hello, challenge: newChallenge() }], theirs.socket);
      expect(silent.map((f) => f.type)).toEqual(["hello", "auth", "fatal"]);
      expect(JSON.stringify(silent[2])).toContain(`gave none within ${PROOF_TIMEOUT_MS} ms`);
      await waitFor(() => patient.status().clients === 0, CALL_WAIT_MS, "the daemon to let the silent client go");
    } finally {
      await patient.stop("test done");
    }
  });

  /**
   * A squatter on the daemon's socket: says hello as a daemon would (with `challenge`, or none),
   * answers the client's hello with `proof` (none: stays silent), and records every frame it gets.
   */
  async function squat(
    challenge: string | undefined,
    proof: ((daemonChallenge: string, clientChallenge: string) => string) | null,
  ): Promise<{ socket: string; received: Record<string, unknown>[]; closed: Promise<void>; stop(): void }> {
    const socket = daemonPaths(testEnv()).socket;
    const received: Record<string, unknown>[] = [];
    const { promise: closed, resolve: close } = Promise.withResolvers<void>();
    const decoder = new FrameDecoder();
    const listener = Bun.listen({
      unix: socket,
      socket: {
        open(s) {
          const hello = { type: "hello", protocol: PROTOCOL, version: VERSION, pid: 4242, role: "daemon" };
          s.write(encodeFrame((challenge === undefined ? hello : { ...hello, challenge }) as Frame));
        },
        data(s, chunk) {
          for (const f of decoder.push(chunk) as Record<string, unknown>[]) {
            received.push(f);
            if (f.type === "hello" && proof && challenge !== undefined)
              s.write(encodeFrame({ type: "auth", proof: proof(challenge, String(f.challenge)) }));
          }
        },
        close: () => close(),
      },
    });
    return { socket, received, closed, stop: () => listener.stop(true) };
  }

  test("a squatter without the key is refused by the client, which sent it nothing but a hello", async () => {
    const otherKey = Buffer.alloc(32, 2);
    const squatters = [
      await squat(newChallenge(), (d, c) => proveKey(otherKey, "daemon", d, c)),
      // Replaying the client's own role (a reflection) does not pass either.
      await squat(newChallenge(), (d, c) => proveKey(otherKey, "client", d, c)),
      await squat(undefined, null),
    ];
    try {
      for (const s of squatters) {
        const err: any = await DaemonClient.connect({ socket: s.socket, role: "test", key: paths.key }).catch(
          (e: any) => e,
        );
        expect(err).toBeInstanceOf(DaemonConnectError);
        expect(err.kind).toBe("impostor");
        expect(err.code).toBe("DAEMON_UNAVAILABLE");
        expect(err.retryable).toBe(false);
        expect(err.notRunning).toBe(false);
        expect(err.message).toContain("is not your ptyhub daemon");
        expect(err.message).toContain("it got nothing but our hello");
        expect(err.hint).toContain("PTYHUB_SOCKET");
        await s.closed;
        expect(s.received.map((f) => f.type)).toEqual(["hello"]);
        expect(Object.keys(s.received[0]!).sort()).toEqual(["challenge", "pid", "protocol", "role", "type", "version"]);
      }
    } finally {
      for (const s of squatters) s.stop();
    }
  });

  test("another user's real daemon (its own key) is an impostor to us", async () => {
    const theirs = daemonPaths(testEnv());
    const other = new DaemonServer(scriptedHost({}), {
      paths: { ...theirs, key: join(theirs.dir, KEY_FILE_NAME) },
      idleMs: 0,
    });
    expect(await other.start()).toBe("started");
    try {
      const err: any = await DaemonClient.connect({ socket: theirs.socket, role: "test", key: paths.key }).catch(
        (e: any) => e,
      );
      expect(err).toBeInstanceOf(DaemonConnectError);
      expect(err.kind).toBe("impostor");
      expect(err.message).toContain("its proof of your key is wrong");
    } finally {
      await other.stop("test done");
    }
  });
});
