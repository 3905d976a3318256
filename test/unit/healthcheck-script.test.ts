/**
 * deploy/healthcheck.sh, the container image's HEALTHCHECK: bash that shellcheck finds nothing wrong
 * with, executable (the Dockerfile's COPY keeps the mode; the classic builder has no --chmod), and
 * asking the path the server answers (src/mcp/http-health.ts). test/container/image.test.ts runs it
 * for real, inside the image.
 */
import { expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { HEALTH_PATH } from "../../src/mcp/http-health.ts";

const SCRIPT = join(import.meta.dir, "..", "..", "deploy", "healthcheck.sh");
/** In CI shellcheck must be there (.ci/run installs it); elsewhere its absence skips that check. */
const REQUIRED = process.env.CI === "true";
const haveShellcheck = Bun.which("shellcheck") !== null;
const OWNER_EXEC = 0o100;

test.skipIf(!haveShellcheck && !REQUIRED)("shellcheck finds nothing wrong", () => {
  const r = Bun.spawnSync(["shellcheck", "--severity=style", SCRIPT], { stdout: "pipe", stderr: "pipe" });
  expect(`${r.stdout.toString()}${r.stderr.toString()}`).toBe("");
  expect(r.exitCode).toBe(0);
});

test("it is an executable bash script asking the server's health path", () => {
  expect(statSync(SCRIPT).mode & OWNER_EXEC).toBe(OWNER_EXEC);
  const text = readFileSync(SCRIPT, "utf8");
  expect(text.startsWith("#!/bin/bash\n")).toBe(true);
  expect(text).toContain(`GET ${HEALTH_PATH} HTTP/1.1`);
});
