/**
 * Persistent pod sessions: a ptyhub daemon inside the pod's container owns the shell, and this
 * side talks to it through `ptyhub bridge` on a non-TTY `pods/exec`, exactly as containers and
 * SSH remote persistence do (src/backend/bridge: the link, the attach from a byte offset, the
 * reconnect). Only the transport is the pod's: the binary is placed over an exec's stdin
 * (pod-binary.ts) and the bridge's stdio is the exec's stdin and stdout channels. A dropped API
 * connection or a restarted MCP server loses nothing: the daemon inside keeps the shell.
 */
import { podSiteFiles } from "./site-files.ts";
import { OnceEvent } from "../../util/once-event.ts";
import { AppError } from "../../api/errors.ts";
import { linkOver, type BridgeChannel, type LinkTransport, type RemoteLink } from "../bridge/bridge-link.ts";
import { attachRemoteSession } from "../bridge/remote-attach.ts";
import type { LinkReach } from "../bridge/remote-backend.ts";
import { bridgeCommand, execChannel, STDERR_TAIL_CHARS } from "../container/container-persist.ts";
import { NoPlacement } from "../container/container-binary.ts";
import { loginShellFrom, loginShellProbe, PROBE_EXEC_MS } from "../container/login-shell.ts";
import type { KubeTarget } from "./kubeconfig.ts";
import { podTarget, runningPod, type PodInfo } from "./pod-api.ts";
import { podBinary } from "./pod-binary.ts";
import { startPodExec, type PodExecStream } from "./pod-exec.ts";
import { runPodExec } from "./pod-run.ts";
import { POD_EXEC_USER, type PodOpened, type PodOpenRequest } from "./pod-opened.ts";

/** One bridge exec in the pod as a link's transport: the exec's WebSocket is the connection. */
function podTransport(k: KubeTarget, pod: PodInfo): LinkTransport {
  const target = podTarget(pod);
  let stream: PodExecStream | null = null;
  const lost = new OnceEvent();
  return {
    target,
    daemonLog: `~/.local/state/ptyhub/daemon.log inside ${target}`,
    async openBridge({ start, upload }): Promise<BridgeChannel | null> {
      const path = await podBinary(k, pod, { upload });
      if (!path) return null;
      const cmd = bridgeCommand(path, start);
      const s = await startPodExec(k, pod, cmd, { tty: false });
      stream = s;
      s.onClose(lost.fire);
      let stderr = "";
      s.onStderr((b) => (stderr = (stderr + new TextDecoder().decode(b)).slice(-STDERR_TAIL_CHARS)));
      return {
        channel: execChannel(s),
        onData: (l) => s.onData(l),
        onClose: (l) => s.onClose(() => l()),
        stderrTail: () => stderr,
      };
    },
    end: () => stream?.close(),
    onLost(listener) {
      lost.on(listener);
    },
  };
}

/** How a persistent pod session reaches the daemon inside again. */
function podReach(k: KubeTarget, pod: PodInfo, timeoutMs: number): LinkReach {
  const target = podTarget(pod);
  return {
    kind: "pod",
    where: target,
    async open({ start, upload }): Promise<RemoteLink | null> {
      // A pod deleted (or its container stopped) took its daemon, and the session, with it.
      const now = await runningPod(k, pod.name, pod.container, timeoutMs).catch((err: unknown) => {
        if (err instanceof AppError && !err.retryable) return null;
        throw err;
      });
      if (!now) return null;
      return linkOver(podTransport(k, now), { start, upload });
    },
    resumeHint: () => `it ends with the pod; \`kubectl get pod -n ${pod.namespace} ${pod.name}\` shows whether it runs`,
    downCode: "CONTAINER_UNAVAILABLE",
  };
}

/** Opens the session in the pod's daemon; NoPlacement when no ptyhub can run there. */
export async function openPodPersist(k: KubeTarget, pod: PodInfo, req: PodOpenRequest): Promise<PodOpened> {
  const timeoutMs = req.setupTimeoutMs;
  const target = podTarget(pod);
  // Placed (or found) before anything else: a pod where ptyhub cannot run gets a plain exec.
  await podBinary(k, pod, { upload: true });
  const link = await linkOver(podTransport(k, pod), { start: true, upload: true }).catch((err: unknown) => {
    // A daemon that cannot start there (a noexec mount, a missing library) is as good as no binary.
    if (err instanceof AppError && err.code === "SPAWN_FAILED") throw new NoPlacement(err.message);
    throw err;
  });
  if (!link) throw new NoPlacement("the ptyhub placed there did not start");
  try {
    const probe = ["/bin/sh", "-c", loginShellProbe(POD_EXEC_USER)];
    const command = req.command ?? loginShellFrom((await runPodExec(k, pod, probe, { timeoutMs: PROBE_EXEC_MS })).out);
    const program = { command, args: req.args, cwd: req.cwd, env: req.env, cols: req.cols, rows: req.rows };
    const r = await attachRemoteSession(program, link, podReach(k, pod, timeoutMs));
    return {
      backend: r.backend,
      target,
      integration: r.integration,
      family: r.family,
      cwd: null,
      startMark: false,
      nonce: r.nonce,
      description: `${target}: session ${r.target} in the pod's ptyhub daemon`,
      files: podSiteFiles(k, pod),
    };
  } catch (err) {
    link.close();
    throw err;
  }
}
