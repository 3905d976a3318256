/**
 * How ptyhub runs itself (the daemon, the controlling-terminal step, the sandbox launcher): one
 * definition at the bottom of the tree, so the backends that re-exec us import nothing above them.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * PTYHUB_SELF_WRAPPER: words put before our own command whenever ptyhub starts itself (the daemon,
 * the controlling-terminal step, the sandbox launcher). For a binary run by a user-mode emulator,
 * e.g. "qemu-aarch64-static -L /usr/aarch64-linux-gnu": without binfmt_misc registered, the kernel
 * cannot exec the foreign binary itself. Split on whitespace; the variable is the user's own.
 */
export const SELF_WRAPPER_ENV = "PTYHUB_SELF_WRAPPER";

/** How to run ourselves: the compiled binary, or bun with our entry script (from source). */
export function selfCommand(env: Record<string, string | undefined> = process.env): string[] {
  const wrapper = (env[SELF_WRAPPER_ENV] ?? "").split(/\s+/).filter((word) => word.length > 0);
  const main = Bun.main;
  if (main.startsWith("/$bunfs/") || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(main)) return [...wrapper, process.execPath];
  const cli = fileURLToPath(new URL("./cli.ts", import.meta.url));
  if (existsSync(cli)) return [...wrapper, process.execPath, cli];
  return [...wrapper, process.execPath, main];
}
