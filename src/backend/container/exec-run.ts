/**
 * One short exec without a TTY, run to its end: its stdin given whole, its stdout and stderr
 * demultiplexed (stdcopy.ts), its exit code read from the engine. For the setup script, the
 * close of a shell, the checks around placing the binary.
 */
import { AppError } from "../../api/errors.ts";
import type { EngineClient, ExecState } from "./engine-client.ts";
import { StdcopyDemuxer } from "./stdcopy.ts";

/** Bound on how long the engine may take to say an exec whose stream ended has finished. */
const EXIT_SETTLE_MS = 5_000;
/** Between looks at an exec that ended its stream but is still said to run. */
const EXIT_POLL_MS = 20;

export interface ExecRunResult {
  out: string;
  err: string;
  code: number | null;
}

export interface ExecRunOptions {
  user?: string;
  workdir?: string;
  env?: string[];
  stdin?: string;
  timeoutMs: number;
}

/**
 * The state of an exec whose stream ended: the engine records its end a moment after the stream
 * closes, so it is asked again for a while; still running after that means only the stream ended.
 */
export async function settledExecState(engine: EngineClient, execId: string): Promise<ExecState> {
  const deadline = Date.now() + EXIT_SETTLE_MS;
  for (;;) {
    const state = await engine.inspectExec(execId);
    if (!state.running || Date.now() > deadline) return state;
    await Bun.sleep(EXIT_POLL_MS);
  }
}

export async function runExec(
  engine: EngineClient,
  containerId: string,
  cmd: string[],
  o: ExecRunOptions,
): Promise<ExecRunResult> {
  const execId = await engine.createExec(containerId, {
    cmd,
    tty: false,
    user: o.user,
    workdir: o.workdir,
    env: o.env,
  });
  const stream = await engine.startExec(execId, false);
  const decoder = { out: new TextDecoder(), err: new TextDecoder() };
  let out = "";
  let err = "";
  const demux = new StdcopyDemuxer((which, payload) => {
    if (which === "stdout") out += decoder.out.decode(payload, { stream: true });
    else err += decoder.err.decode(payload, { stream: true });
  });
  stream.onData((bytes) => demux.push(bytes));
  const ended = new Promise<void>((resolve) => stream.onClose(resolve));
  if (o.stdin !== undefined) stream.write(new TextEncoder().encode(o.stdin));
  stream.endInput();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), o.timeoutMs)));
  const r = await Promise.race([ended, timedOut]);
  clearTimeout(timer);
  if (r === "timeout") {
    stream.close();
    throw new AppError(
      "CONTAINER_UNAVAILABLE",
      `the container did not finish \`${cmd.join(" ").slice(0, 60)}\` within ${o.timeoutMs} ms`,
      "Check the container's load and retry.",
      true,
    );
  }
  return { out, err, code: (await settledExecState(engine, execId)).exitCode };
}
