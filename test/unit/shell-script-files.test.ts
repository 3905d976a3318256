/**
 * The shell-integration scripts are shell files (src/terminal/shells/), read by the tools that know
 * those languages: shellcheck for bash and POSIX sh, `zsh -n` and `fish --no-execute` for the
 * others. Their OSC id and nonce descriptor are the constants ptyhub parses them with.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  NONCE_FD,
  OSC_MARK_ID,
  VERDICT_CHANNEL_LINE,
  VERDICT_FD,
  VERDICT_WAIT_S,
} from "../../src/terminal/shell-scripts.ts";

const DIR = join(import.meta.dir, "../../src/terminal/shells");
const SCRIPTS = readdirSync(DIR).filter((f) => /\.(bash|sh|zsh|fish)$/.test(f));
/** In CI every checker must be there (.ci/run installs them); elsewhere a missing one skips. */
const REQUIRED = process.env.CI === "true";

/**
 * SC1091: the scripts source the user's own rc files, which are not there to follow when checking
 * (and are the user's, not ours to lint).
 */
const SHELLCHECK_EXCLUDED = "SC1091";
/**
 * Warnings and errors fail; shellcheck's notes do not: the scripts compare against and print text
 * with a literal `$` in single quotes on purpose (SC2016), a note that would be noise here.
 */
const SHELLCHECK_SEVERITY = "warning";

function checker(file: string): string[] | null {
  const path = join(DIR, file);
  const shellcheck = ["shellcheck", "-S", SHELLCHECK_SEVERITY, "-e", SHELLCHECK_EXCLUDED];
  if (file.endsWith(".bash")) return [...shellcheck, "-s", "bash", path];
  if (file.endsWith(".sh")) return [...shellcheck, "-s", "sh", path];
  if (file.endsWith(".zsh")) return ["zsh", "-n", path];
  if (file.endsWith(".fish")) return ["fish", "--no-execute", path];
  return null;
}

describe("shell-integration script files", () => {
  test("there is one per shell family", () => {
    expect(SCRIPTS.sort()).toEqual(["integration.bash", "integration.fish", "markers.sh", "zshenv.zsh", "zshrc.zsh"]);
  });

  for (const file of SCRIPTS) {
    const argv = checker(file)!;
    const present = Bun.which(argv[0]!) !== null;
    test.skipIf(!present && !REQUIRED)(`${file}: ${argv[0]} finds nothing wrong`, () => {
      const r = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });
      const said = `${r.stdout.toString()}${r.stderr.toString()}`;
      expect(said).toBe("");
      expect(r.exitCode).toBe(0);
    });
  }

  test("the marks they print use ptyhub's OSC id; the nonce and the verdicts come on their descriptors", () => {
    for (const file of SCRIPTS.filter((f) => f !== "zshenv.zsh")) {
      const text = readFileSync(join(DIR, file), "utf8");
      const ids = [...text.matchAll(/\]([0-9]+);/g)].map((m) => Number(m[1]));
      expect(ids.length).toBeGreaterThan(0);
      expect(new Set(ids)).toEqual(new Set([OSC_MARK_ID]));
    }
    const bash = readFileSync(join(DIR, "integration.bash"), "utf8");
    expect(bash).toContain(`<&${NONCE_FD}`);
    // The guard's verdicts: the channel's line, its descriptor, and how long the shell waits.
    expect(bash).toContain(`"$__ptyhub_chan" = ${VERDICT_CHANNEL_LINE}`);
    expect(bash).toContain(`-u ${VERDICT_FD} `);
    expect(bash).toContain(`-t ${VERDICT_WAIT_S} -u ${VERDICT_FD}`);
  });
});
