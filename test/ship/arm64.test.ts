/**
 * The linux-arm64 release binary, run here under qemu-user: what a Graviton server, a Raspberry Pi
 * or an arm64 container gets. Its PTY path (ptmx, ioctl numbers, termios layout through bun:ffi)
 * and the Landlock syscalls are exactly where an architecture difference would bite; the shells
 * and programs it starts are this machine's own (qemu-user emulates only ptyhub itself).
 *
 * Needs qemu-aarch64-static and the aarch64 C library (Debian: qemu-user-static,
 * libc6-arm64-cross, libstdc++6-arm64-cross). Without them the file skips, unless
 * PTYHUB_REQUIRE_ARM64=1 (CI sets it), when a missing tool is a failure.
 *
 * ptyhub starts itself (the daemon, the controlling-terminal step, the sandbox launcher): with no
 * binfmt_misc registration the kernel cannot exec an aarch64 binary, so PTYHUB_SELF_WRAPPER puts
 * the emulator in front of those commands (src/daemon-client/start.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { findTarget } from "../../scripts/release-targets.ts";
import { startMcp, type StdioMcp } from "../helpers/mcp-client.ts";
import { shellLine, type Line } from "../serial/helpers.ts";
import { BUILD_TIMEOUT_MS, VERSION, isolatedEnv, makeTempDir, runProcess, targetBuild } from "./helpers.ts";

const QEMU = Bun.which("qemu-aarch64-static");
const AARCH64_SYSROOT = "/usr/aarch64-linux-gnu";
const available = QEMU !== null && existsSync(join(AARCH64_SYSROOT, "lib", "ld-linux-aarch64.so.1"));
if (!available && process.env.PTYHUB_REQUIRE_ARM64 === "1") {
  throw new Error(`PTYHUB_REQUIRE_ARM64=1 but qemu-aarch64-static or ${AARCH64_SYSROOT} is missing`);
}

/** Everything is 5–20× slower under the emulator: one call may take seconds. */
/** The ELF machine number of aarch64. */
const EM_AARCH64 = 183;
const CALL_TIMEOUT_MS = 120_000;
const TEST_TIMEOUT_MS = 240_000;

const target = findTarget("bun-linux-arm64");
if (!target) throw new Error("linux-arm64 is no longer a release target");

let sandbox: string;
let binary: string;
let baseEnv: Record<string, string>;
let emulator: string[];

function emulated(extra: Record<string, string> = {}): {
  command: string;
  args: string[];
  env: Record<string, string>;
} {
  return {
    command: emulator[0]!,
    args: [...emulator.slice(1), binary],
    env: { ...baseEnv, PTYHUB_SELF_WRAPPER: emulator.join(" "), ...extra },
  };
}

async function server(extra: Record<string, string> = {}): Promise<StdioMcp> {
  const { command, args, env } = emulated(extra);
  return startMcp({ command, args, env });
}

describe.skipIf(!available)("linux-arm64 binary under qemu-user", () => {
  beforeAll(async () => {
    const build = await targetBuild(target, process.env.PTYHUB_ARM64_DIST);
    emulator = [QEMU!, "-L", AARCH64_SYSROOT];
    sandbox = makeTempDir("arm64");
    binary = build.binaryPath;
    baseEnv = isolatedEnv(join(sandbox, "home"), { SHELL: Bun.which("bash") ?? "/bin/sh" });
    mkdirSync(join(sandbox, "work"), { recursive: true });
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    if (!sandbox) return;
    const { command, args, env } = emulated();
    await runProcess([command, ...args, "daemon", "--stop"], { env, timeoutMs: CALL_TIMEOUT_MS });
    rmSync(sandbox, { recursive: true, force: true });
  }, CALL_TIMEOUT_MS);

  test("--version runs on the emulated CPU", async () => {
    const { command, args, env } = emulated();
    const result = await runProcess([command, ...args, "--version"], { env });
    expect(result.stdout).toBe(`ptyhub ${VERSION}\n`);
    expect(result.code).toBe(0);
    // What ran is aarch64 code: the ELF header's e_machine (offset 18, little-endian) is EM_AARCH64.
    const header = new DataView(await Bun.file(binary).slice(0, 20).arrayBuffer());
    expect(header.getUint16(18, true)).toBe(EM_AARCH64);
  });

  test(
    "in-process sessions: exit codes in bash and sh, a REPL, resize, ctrl+c, a flood beside an echo",
    async () => {
      const mcp = await server({ PTYHUB_PERSISTENT: "0" });
      try {
        const bash = await mcp.ok("term_open", { name: "b", command: "bash", cwd: join(sandbox, "work") });
        expect(bash.shell_integration).toBe(true);
        const three = await mcp.ok("term_exec", { session: "b", command: "echo arm; (exit 3)" });
        expect(three).toMatchObject({ status: "done", exit_code: 3, output: "arm", via: "shell" });

        await mcp.ok("term_open", { name: "s", command: "sh" });
        const sh = await mcp.ok("term_exec", { session: "s", command: "echo dash; false" });
        expect(sh).toMatchObject({ status: "done", exit_code: 1, output: "dash" });

        const py = await mcp.ok("term_open", { name: "py", command: "python3", args: ["-q"] });
        expect(py.state).toBe("prompt");
        const sum = await mcp.ok("term_send", { session: "py", text: "6*7", until: ">>> " });
        expect(sum.output).toContain("42");

        await mcp.ok("term_resize", { session: "b", cols: 91, rows: 27 });
        const size = await mcp.ok("term_exec", { session: "b", command: "stty size" });
        expect(size).toMatchObject({ status: "done", exit_code: 0, output: "27 91" });

        const slow = await mcp.ok("term_exec", { session: "b", command: "sleep 100", timeout_ms: 1500 });
        expect(slow.status).toBe("running");
        const interrupted = await mcp.ok("term_send", { session: "b", keys: ["ctrl+c"], wait_ms: 20_000 });
        expect(interrupted.state).toBe("prompt");
        const after = await mcp.ok("term_exec", { session: "b", command: "echo back" });
        expect(after).toMatchObject({ status: "done", exit_code: 0, output: "back" });

        const flood = await mcp.ok("term_exec", { session: "b", command: "yes", timeout_ms: 1000 });
        expect(flood.status).toBe("running");
        const echo = await mcp.ok("term_exec", { session: "s", command: "echo beside-the-flood" });
        expect(echo).toMatchObject({ status: "done", exit_code: 0, output: "beside-the-flood" });
        await mcp.ok("term_send", { session: "b", keys: ["ctrl+c"], wait_ms: 20_000 });
        const calm = await mcp.ok("term_exec", { session: "b", command: "echo calm" });
        expect(calm).toMatchObject({ status: "done", exit_code: 0, output: "calm" });
      } finally {
        await mcp.close();
      }
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a serial line on a socat pty pair: termios through bun:ffi",
    async () => {
      let line: Line | undefined;
      const mcp = await server({ PTYHUB_PERSISTENT: "0" });
      try {
        line = await shellLine(sandbox);
        await mcp.ok("term_open", { name: "tty", serial: { path: line.path, baud: 9600, newline: "lf" } });
        const got = await mcp.ok("term_send", {
          session: "tty",
          text: "echo serial-$((40+2))",
          until: "serial-42",
          wait_ms: 30_000,
        });
        expect(got.matched).toBe("serial-42");
      } finally {
        await mcp.close();
        await line?.stop();
      }
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a read-only sandbox confines the session, or is refused with nothing started where qemu lacks Landlock",
    async () => {
      const mcp = await server({ PTYHUB_PERSISTENT: "0" });
      try {
        const work = join(sandbox, "work");
        const opened = await mcp.raw("term_open", { name: "ro", command: "bash", cwd: work, sandbox: "read-only" });
        if (opened.isError) {
          // qemu-user 7.2 (Debian 12) answers the Landlock syscalls with ENOSYS: the binary must say
          // it cannot confine, and start nothing unconfined.
          const error = (opened.structuredContent as { error: { code: string; message: string } }).error;
          expect(error.code).toBe("SPAWN_FAILED");
          expect(error.message).toContain("Landlock");
          expect((await mcp.ok("term_list", {})).sessions).toEqual([]);
          return;
        }
        const denied = await mcp.ok("term_exec", { session: "ro", command: `touch ${join(work, "x")}` });
        expect(denied.status).toBe("done");
        expect(denied.exit_code).not.toBe(0);
        expect(existsSync(join(work, "x"))).toBe(false);
        const reads = await mcp.ok("term_exec", { session: "ro", command: "cat /etc/hostname >/dev/null" });
        expect(reads).toMatchObject({ status: "done", exit_code: 0 });
      } finally {
        await mcp.close();
      }
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "daemon mode: the daemon is started through the emulator and outlives its MCP server",
    async () => {
      const first = await server();
      try {
        const opened = await first.ok("term_open", { name: "keep", command: "bash" });
        expect(opened.persistent).toBe(true);
        await first.ok("term_exec", { session: "keep", command: "export KEPT=arm64-daemon" });
      } finally {
        await first.close();
      }
      const second = await server();
      try {
        const kept = await second.ok("term_exec", { session: "keep", command: 'echo "$KEPT"' });
        expect(kept).toMatchObject({ status: "done", exit_code: 0, output: "arm64-daemon" });
        await second.ok("term_close", { session: "keep" });
      } finally {
        await second.close();
      }
    },
    TEST_TIMEOUT_MS,
  );
});
