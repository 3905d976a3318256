/**
 * Line editors that redraw their line with a bare CR (linenoise in redis-cli): the screen and
 * each result read as a real terminal shows them (issue 22, item 1).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ctx, newHost, sendDefaults } from "../helpers/host.ts";
import { startRedis, type RedisServer } from "../helpers/redis.ts";

const host = newHost();
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await host.shutdown();
  await redis.stop();
});

describe("bare-CR line redraws", () => {
  test("prompt, text, CR, cursor forward: the line stays on screen, cursor after it", async () => {
    const o = await host.open(
      { name: "ln", command: "sh", args: ["-c", 'printf "prompt> hello\\r\\033[13C"; exec sleep 30'] },
      ctx,
    );
    // The open waited for the program's first output to settle: it is on the screen now.
    expect(o.output).toBe("prompt> hello");
    const screen = await host.read({ session: "ln", mode: "screen", max_tokens: 4000 }, ctx);
    expect(screen.output).toBe("prompt> hello");
    expect(screen.cursor).toEqual({ row: 1, col: 14 });
    await host.close({ session: "ln" }, ctx);
  });

  test("redis-cli: command lines stay on screen and each result starts with the result", async () => {
    const prompt = `127.0.0.1:${redis.port}>`;
    const o = await host.open({ name: "rc", command: "redis-cli", args: ["-p", String(redis.port)] }, ctx);
    expect(o.output).toBe(prompt);
    const set = await host.send({ session: "rc", text: "set k 1", ...sendDefaults }, ctx);
    expect(set.output.split("\n")[0]).toBe("OK");
    const get = await host.send({ session: "rc", text: "get k", ...sendDefaults }, ctx);
    expect(get.output.split("\n")[0]).toBe('"1"');
    const screen = await host.read({ session: "rc", mode: "screen", max_tokens: 4000 }, ctx);
    expect(screen.output.split("\n")).toEqual([`${prompt} set k 1`, "OK", `${prompt} get k`, '"1"', prompt]);
    await host.close({ session: "rc" }, ctx);
  });
});
