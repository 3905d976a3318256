/**
 * One short exec in a pod without a TTY, run to its end: its stdin given whole (a script) or
 * streamed (a file, paced by what the socket has not sent yet), its stdout and stderr apart, its
 * exit code from the Status channel. For the setup script, the probes, the placement of the
 * binary and the signal that closes a plain exec's shell.
 */
import { AppError } from "../../api/errors.ts";
import type { KubeTarget } from "./kubeconfig.ts";
import type { PodInfo } from "./pod-api.ts";
import { startPodExec, type PodExecEnd } from "./pod-exec.ts";

/** Bytes the socket may hold unsent before an upload waits: a steady stream, not the whole file in memory. */
const UPLOAD_HIGH_WATER = 4 * 1024 * 1024;
/** Between looks at the socket's unsent bytes while an upload waits. */
const UPLOAD_PACE_MS = 5;

export interface PodRunResult {
  out: string;
  err: string;
  code: number | null;
  /** The Status's message when the exec failed other than by an exit code. */
  message?: string;
}

export interface PodRunOptions {
  stdin?: string | ReadableStream<Uint8Array>;
  timeoutMs: number;
}

export async function runPodExec(k: KubeTarget, pod: PodInfo, cmd: string[], o: PodRunOptions): Promise<PodRunResult> {
  const stream = await startPodExec(k, pod, cmd, { tty: false });
  const decoder = { out: new TextDecoder(), err: new TextDecoder() };
  let out = "";
  let err = "";
  stream.onData((b) => (out += decoder.out.decode(b, { stream: true })));
  stream.onStderr((b) => (err += decoder.err.decode(b, { stream: true })));
  let over = false;
  const ended = new Promise<PodExecEnd>((resolve) =>
    stream.onClose((end) => {
      over = true;
      resolve(end);
    }),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), o.timeoutMs)));
  const feeding = (async () => {
    if (typeof o.stdin === "string") stream.write(new TextEncoder().encode(o.stdin));
    else if (o.stdin) {
      // An exec that ended early (a failed placement) takes no more: the rest of the file is not read.
      for await (const chunk of o.stdin) {
        while (!over && stream.buffered() > UPLOAD_HIGH_WATER) await Bun.sleep(UPLOAD_PACE_MS);
        if (over) break;
        stream.write(chunk);
      }
    }
    stream.endInput();
  })();
  const r = await Promise.race([ended, timedOut]);
  clearTimeout(timer);
  if (r === "timeout") {
    over = true;
    stream.close();
    await feeding.catch(() => undefined);
    throw new AppError(
      "CONTAINER_UNAVAILABLE",
      `the pod did not finish \`${cmd.join(" ").slice(0, 60)}\` within ${o.timeoutMs} ms`,
      "Check the pod's load and the API server's, and retry.",
      true,
    );
  }
  await feeding;
  return { out, err, code: r.exitCode, message: r.message };
}
