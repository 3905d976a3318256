/**
 * One `pods/exec` over WebSocket, through the official client's handler (it applies the
 * kubeconfig's TLS and credentials, and asks for `v5.channel.k8s.io` first). Every message is a
 * channel byte and a payload: 0 stdin, 1 stdout, 2 stderr, 3 the exec's final Status (its exit
 * code), 4 resize ({"Width","Height"}), 255 closes a channel (v5: the end of stdin, which the
 * bridge and a piped upload need). The client's own Exec would want Node streams and ends stdout
 * on the status; this speaks the channels directly and keeps their order.
 */
import { PassThrough } from "node:stream";
import querystring from "node:querystring";
// Not re-exported by the package index; its Exec would hand it this process's own stdio.
import { WebSocketHandler } from "@kubernetes/client-node/dist/web-socket-handler.js";
import type { AppError } from "../../api/errors.ts";
import type { KubeTarget } from "./kubeconfig.ts";
import type { PodInfo } from "./pod-api.ts";
import { apiRefused, apiUnreachable, forbidden, noSuchPod } from "./pod-errors.ts";

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const STATUS = 3;
const RESIZE = 4;
const CLOSE = 255;
const V5 = "v5.channel.k8s.io";

/** How an exec ended, from its Status on channel 3; null exit code: no Status came (the link dropped). */
export interface PodExecEnd {
  exitCode: number | null;
  /** The Status's message when it failed other than by an exit code. */
  message?: string;
}

export interface PodExecStream {
  write(bytes: Uint8Array): void;
  /** The exec's stdin sees EOF (v5's close of channel 0; older protocols cannot, so the socket closes). */
  endInput(): void;
  /** Drops the connection at once. */
  close(): void;
  resize(cols: number, rows: number): void;
  onData(listener: (bytes: Uint8Array) => void): void;
  onStderr(listener: (bytes: Uint8Array) => void): void;
  /** Called once when the connection ends. */
  onClose(listener: (end: PodExecEnd) => void): void;
  /** Bytes accepted but not yet sent (for pacing a large upload). */
  buffered(): number;
}

/** The exit code in a final Status: Success is 0, NonZeroExitCode carries it as an ExitCode cause. */
export function execEnd(status: unknown): PodExecEnd {
  const s = status as {
    status?: string;
    message?: string;
    details?: { causes?: { reason?: string; message?: string }[] };
  };
  if (s?.status === "Success") return { exitCode: 0 };
  const cause = s?.details?.causes?.find((c) => c.reason === "ExitCode");
  const code = Number(cause?.message);
  if (cause && Number.isInteger(code)) return { exitCode: code };
  return { exitCode: null, message: s?.message ?? "the exec failed" };
}

/** Unused stream ends for the handler, which would otherwise end this process's own stdio on a close frame. */
function quietStreams() {
  return { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() };
}

function frame(channel: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(payload.length + 1);
  out[0] = channel;
  out.set(payload, 1);
  return out;
}

/** A failed upgrade, as the WebSocket reports it: the HTTP status is in its message when there was one. */
function connectError(k: KubeTarget, pod: PodInfo, err: unknown): AppError {
  const text = String((err as { message?: unknown })?.message ?? (err as { error?: unknown })?.error ?? err);
  const status = Number(/\b([1-5]\d\d)\b/.exec(text)?.[1] ?? 0);
  const what = `exec in pod ${pod.namespace}/${pod.name}`;
  if (status === 403 || status === 401) return forbidden(what, text);
  if (status === 404) return noSuchPod(pod.namespace, pod.name);
  if (status > 0) return apiRefused(what, status, text);
  return apiUnreachable(k.server, text);
}

export async function startPodExec(
  k: KubeTarget,
  pod: PodInfo,
  command: string[],
  opts: { tty: boolean },
): Promise<PodExecStream> {
  const query = querystring.stringify({
    stdout: true,
    stderr: !opts.tty,
    stdin: true,
    tty: opts.tty,
    command,
    container: pod.container,
  });
  const ns = encodeURIComponent(pod.namespace);
  const path = `/api/v1/namespaces/${ns}/pods/${encodeURIComponent(pod.name)}/exec?${query}`;
  const dataListeners: Array<(b: Uint8Array) => void> = [];
  const errListeners: Array<(b: Uint8Array) => void> = [];
  const closeListeners: Array<(end: PodExecEnd) => void> = [];
  // Output can come before anyone listens (the first bytes with the upgrade): kept until then.
  const early: Uint8Array[] = [];
  let end: PodExecEnd | null = null;
  let status: PodExecEnd | null = null;
  const handler = new WebSocketHandler(k.config, undefined, quietStreams());
  let socket: Awaited<ReturnType<WebSocketHandler["connect"]>>;
  try {
    socket = await handler.connect(path, null, (channel: number, payload: Buffer) => {
      const bytes = new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);
      if (channel === STDOUT) {
        if (dataListeners.length === 0) early.push(bytes.slice());
        for (const l of dataListeners) l(bytes);
      } else if (channel === STDERR) for (const l of errListeners) l(bytes);
      else if (channel === STATUS) {
        try {
          status = execEnd(JSON.parse(new TextDecoder().decode(bytes)));
        } catch {
          status = { exitCode: null, message: "an unreadable exec status" };
        }
      }
      return true;
    });
  } catch (err) {
    throw connectError(k, pod, err);
  }
  const finished = () => {
    if (end) return;
    end = status ?? { exitCode: null };
    for (const l of closeListeners.splice(0)) l(end);
  };
  socket.onclose = finished;
  let inputEnded = false;
  return {
    write(bytes) {
      if (end || inputEnded || bytes.length === 0) return;
      socket.send(frame(STDIN, bytes));
    },
    endInput() {
      if (end || inputEnded) return;
      inputEnded = true;
      if (socket.protocol === V5) socket.send(new Uint8Array([CLOSE, STDIN]));
      else socket.close();
    },
    close() {
      socket.close();
      finished();
    },
    resize(cols, rows) {
      if (end) return;
      socket.send(frame(RESIZE, new TextEncoder().encode(JSON.stringify({ Width: cols, Height: rows }))));
    },
    onData(listener) {
      dataListeners.push(listener);
      for (const b of early.splice(0)) listener(b);
    },
    onStderr(listener) {
      errListeners.push(listener);
    },
    onClose(listener) {
      if (end) listener(end);
      else closeListeners.push(listener);
    },
    buffered: () => socket.bufferedAmount ?? 0,
  };
}
