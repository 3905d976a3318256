/**
 * Issue 23 item 1: what term_open starts is judged like a typed line. The real MCP server and
 * daemon, driven by the SDK client; the elicitation handler plays the human. What a stopped
 * command would have done is checked on disk (the test's own HOME and a dirty repository), so a
 * regression shows as lost files, never anything outside this run's temporary tree.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { stopDaemon } from "../helpers/daemon.ts";
import { CLI, startMcp, type McpClient } from "../helpers/mcp-client.ts";
import { dirtyRepo, EDITED, ORIGINAL } from "./repo.ts";

let answer = false;
let human: McpClient;
let headless: McpClient;
const opened: { mcp: () => McpClient; session: string }[] = [];
const marker = join(homedir(), "guard-open-marker");

beforeAll(async () => {
  writeFileSync(marker, "still here\n");
  human = await startMcp({ transport: "in-process", elicit: () => ({ action: "accept", content: { allow: answer } }) });
  headless = await startMcp({ transport: "in-process" });
});
afterAll(async () => {
  for (const o of opened)
    await o
      .mcp()
      .call("term_close", { session: o.session })
      .catch(() => undefined);
  await human.close();
  await headless.close();
  await stopDaemon();
});

describe("guard: term_open", () => {
  test("a command line or a program with args is stopped before it starts; nobody was asked", async () => {
    for (const [name, args] of [
      ["o-line", { command: "rm -rf ~" }],
      ["o-argv", { command: "bash", args: ["-c", "rm -rf ~"] }],
      ["o-rm", { command: "rm", args: ["-rf", homedir()] }],
      ["o-env", { command: "$X", env: { X: "rm -rf ~" } }],
    ] as const) {
      const r = await headless.call("term_open", { name, ...args });
      expect(r.error?.code).toBe("BLOCKED_BY_GUARD");
      expect(r.error!.message).toContain(`session '${name}' not started`);
      expect(r.error!.message).toContain("rm-recursive-root");
      expect(r.error!.message).toContain("Nobody was asked");
      expect(r.error!.hint).toContain('"guard": {"disable": ["rm-recursive-root"]}');
    }
    expect(readFileSync(marker, "utf8")).toBe("still here\n");
    // The session's audit trail says what was stopped, before the session ever existed.
    const log = Bun.spawnSync([process.execPath, CLI, "log", "o-argv", "--json"], { stdout: "pipe", stderr: "pipe" });
    const entries = log.stdout
      .toString()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(entries).toContainEqual(
      expect.objectContaining({
        event: "guard",
        outcome: "blocked",
        text: "bash -c 'rm -rf ~'",
        rules: ["rm-recursive-root"],
      }),
    );
    // Nothing was started or reserved: the names are free, and a harmless program opens.
    const list = await headless.call("term_list", {});
    expect(JSON.stringify(list.data)).not.toContain("o-line");
    const ok = await headless.call("term_open", { name: "o-line", command: "bash", args: ["-c", "echo fine"] });
    expect(ok.isError).toBe(false);
    opened.push({ mcp: () => headless, session: "o-line" });
  });

  test("the human is asked with the command and why; no → not started, yes → started", async () => {
    const dir = dirtyRepo();
    answer = false;
    const before = human.elicitations.length;
    const declined = await human.call("term_open", { name: "o-git", cwd: dir, command: "git checkout -- ." });
    expect(declined.error?.code).toBe("BLOCKED_BY_GUARD");
    expect(human.elicitations.length).toBe(before + 1);
    const asked = human.elicitations[before]!.message;
    expect(asked).toContain("start a new terminal session running this as 'o-git'");
    expect(asked).toContain("git checkout -- .");
    expect(asked).toContain("uncommitted work");
    expect(readFileSync(join(dir, "file.txt"), "utf8")).toBe(EDITED);

    answer = true;
    const started = await human.call("term_open", {
      name: "o-git",
      cwd: dir,
      command: "sh",
      args: ["-c", "git checkout -- . && echo restored"],
    });
    expect(started.isError).toBe(false);
    opened.push({ mcp: () => human, session: "o-git" });
    expect(started.data.output).toContain("restored");
    expect(readFileSync(join(dir, "file.txt"), "utf8")).toBe(ORIGINAL);
    expect(existsSync(marker)).toBe(true);
  });

  test("issue 35 item 4: env that runs code, $0 and env values in args, a shell under another name", async () => {
    const dir = mkdtempSync(join(tmpdir(), "guard-open-"));
    const bash = Bun.which("bash")!;
    symlinkSync(bash, join(dir, "cat"));
    copyFileSync(bash, join(dir, "less"));
    const home = homedir();
    for (const [name, args, rule] of [
      ["e-prompt", { command: "bash", env: { PROMPT_COMMAND: "rm -rf ~" } }, "rm-recursive-root"],
      ["e-ps1", { env: { PS1: "$(rm -rf ~)" } }, "rm-recursive-root"],
      ["e-func", { command: "bash", env: { "BASH_FUNC_ls%%": "() { rm -rf ~; }" } }, "rm-recursive-root"],
      ["e-bashenv", { command: "bash", env: { BASH_ENV: join(dir, "x.sh") } }, "startup-env"],
      ["e-zdotdir", { command: "zsh", env: { ZDOTDIR: dir } }, "startup-env"],
      ["e-dollar0", { command: "sh", args: ["-c", "$0 $1", "rm", `-rf ${home}`] }, "rm-recursive-root"],
      ["e-envsub", { command: "sh", args: ["-c", "$X"], env: { X: "rm -rf ~" } }, "rm-recursive-root"],
      ["e-symlink", { command: join(dir, "cat"), args: ["-c", "rm -rf ~"] }, "rm-recursive-root"],
      ["e-copy", { command: join(dir, "less"), args: ["-c", "rm -rf ~"] }, "rm-recursive-root"],
      ["e-copyline", { command: `${join(dir, "less")} -c 'rm -rf ~'` }, "rm-recursive-root"],
    ] as const) {
      const r = await headless.call("term_open", { name, ...args });
      if (r.error?.code !== "BLOCKED_BY_GUARD") opened.push({ mcp: () => headless, session: name });
      expect([name, r.error?.code]).toEqual([name, "BLOCKED_BY_GUARD"]);
      expect(r.error!.message).toContain(rule);
    }
    expect(readFileSync(marker, "utf8")).toBe("still here\n");
    // A plain prompt and the real cat pass.
    const ok = await headless.call("term_open", { name: "e-ok", command: "bash", env: { PS1: "\\u@\\h$ " } });
    expect(ok.isError).toBe(false);
    opened.push({ mcp: () => headless, session: "e-ok" });
  });
});
