/**
 * The load of `bun run test --load`: CPU hogs beside the tests, two per core, at normal priority,
 * as busy as a laptop during a build. A wait that ends on a quiet time instead of a signal, or
 * that times a quiet period from when the call began, fails here where a quiet machine hides it.
 *
 * Each hog is a shell loop that spins only while the runner lives (`kill -0` of the runner's pid
 * every turn): the runner ends them when the tests end, and should the runner itself be killed
 * (even with SIGKILL) they end on their own, so no hog ever outlives its run.
 */
import { availableParallelism, constants } from "node:os";

/** Hogs per core: load twice the cores, like a parallel build (`make -j2N`). */
export const HOGS_PER_CORE = 2;

export interface Load {
  hogs: number;
  stop(): void;
}

export function startLoad(hogsPerCore = HOGS_PER_CORE): Load {
  const count = availableParallelism() * hogsPerCore;
  // The hogs carry the plain environment, not the test run's id: they are the runner's, not leaks.
  const spin = `while kill -0 ${process.pid} 2>/dev/null; do :; done`;
  const hogs = Array.from({ length: count }, () =>
    Bun.spawn(["sh", "-c", spin], { stdin: "ignore", stdout: "ignore", stderr: "ignore" }),
  );
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    for (const hog of hogs) hog.kill("SIGKILL");
  };
  // Ended with the runner however it ends; a SIGKILLed runner's hogs see it gone and stop.
  process.on("exit", stop);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(sig, () => {
      stop();
      process.exit(128 + constants.signals[sig]);
    });
  }
  process.stderr.write(`load: ${count} CPU hogs (${hogsPerCore} per core) beside the tests\n`);
  return { hogs: count, stop };
}
