/** Secrets typed with term_secret stay out of every field of every result, `matched` included. */
import { afterAll, describe, expect, test } from "bun:test";
import { ctx, defaults, newHost } from "../helpers/host.ts";
import { Secrets } from "../../src/session/redaction.ts";
import { waitFor } from "../../src/session/wait.ts";

const SECRET = "hunter2-very-secret";
const host = newHost();
afterAll(() => host.shutdown());

describe("redaction", () => {
  test("every string field, nested ones too, is masked; the session id is not", () => {
    const secrets = new Secrets();
    const result = {
      session: "s",
      output: `a ${SECRET} b`,
      matched: SECRET,
      nested: { list: [`x${SECRET}`, 3] },
      n: 1,
      none: null,
    };
    expect(secrets.redactFields({ ...result })).toEqual(result);
    secrets.add(SECRET);
    expect(secrets.redactFields(result)).toEqual({
      session: "s",
      output: "a [secret] b",
      matched: "[secret]",
      nested: { list: ["x[secret]", 3] },
      n: 1,
      none: null,
    });
  });

  test("`matched` of term_read and term_send, and exec's cwd, never carry the secret", async () => {
    await host.open({ name: "sec" }, ctx);
    await host.send({ session: "sec", text: 'read -r token; echo "got:$token"', wait_ms: 300, max_tokens: 4000 }, ctx);
    await host.typeSecret({ session: "sec", secret: SECRET, enter: true }, ctx);
    const r = await host.read(
      { session: "sec", mode: "new", until: "got:[a-z0-9-]+", wait_ms: 5000, max_tokens: 4000 },
      ctx,
    );
    expect(r.via).toBe("until");
    expect(r.matched).toBe("got:[secret]");
    expect(JSON.stringify(r)).not.toContain("hunter2");
    // The match can come before the shell reports `read; echo` done; typed before its end mark, the
    // next line's wait would end on that mark (via shell: the running command ended), not on `until`.
    const sec = host.manager.get("sec");
    await waitFor(sec, () => (sec.phase === "prompt" ? { done: true } : null), { timeoutMs: 5000 });

    const s = await host.send(
      { session: "sec", text: `echo "again:$token"`, until: "again:[a-z0-9-]+", wait_ms: 5000, max_tokens: 4000 },
      ctx,
    );
    expect(s.via).toBe("until");
    expect(s.matched).toBe("again:[secret]");
    expect(JSON.stringify(s)).not.toContain("hunter2");
    // `until` can match before the shell reports the command done: wait for its end mark (the
    // prompt) before the next term_exec, which would otherwise answer SESSION_BUSY.
    const session = host.manager.get("sec");
    const atPrompt = await waitFor(session, () => (session.phase === "prompt" ? { done: true } : null), {
      timeoutMs: 5000,
    });
    expect(atPrompt).toBe(true);

    const e = await host.exec(
      { session: "sec", command: `mkdir -p "/tmp/$token-dir" && cd "/tmp/$token-dir" && echo "$token"`, ...defaults },
      ctx,
    );
    expect(e.exit_code).toBe(0);
    expect(JSON.stringify(e)).not.toContain("hunter2");
    expect(e.output).toBe("[secret]");
    const listed = (await host.list(ctx)).find((info) => info.session === "sec");
    expect(listed?.cwd).toBe("/tmp/[secret]-dir");
    await host.exec({ session: "sec", command: `cd / && rmdir "/tmp/$token-dir"`, ...defaults }, ctx);
  });
});
