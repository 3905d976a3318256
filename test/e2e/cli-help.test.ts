/** `ptyhub --help` as a user sees it: the detach key is printed as typed (ctrl+\), not eaten. */
import { expect, test } from "bun:test";
import { CLI } from "../helpers/mcp-client.ts";

test("--help names ctrl+\\ as the detach key and lists install --approve-tools", async () => {
  const proc = Bun.spawn([process.execPath, CLI, "--help"], { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(proc.stdout).text();
  expect(await proc.exited).toBe(0);
  expect(out).toContain("ctrl+\\ detaches");
  expect(out).toContain("[--approve-tools]");
});
