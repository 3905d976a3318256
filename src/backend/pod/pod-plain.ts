/**
 * A pod session on a plain exec TTY (`pod.persist: false`, or where no ptyhub can be placed):
 * the exec's WebSocket is the terminal, resize goes over its resize channel, the exit code comes
 * on its status channel. Shell integration comes from the same setup as containers and SSH
 * (exec-launch.ts's plan, run through a pod exec). Like a Docker exec, a pods/exec whose client
 * went away cannot be re-attached, so close() ends the shell inside: a second exec hangs up the
 * shell's process group by the pid the exec announced (pid-announce.ts), then kills it if it lingers.
 */
import { podSiteFiles } from "./site-files.ts";
import { logger } from "../../log.ts";
import { BackendSinks, type Backend, type CloseSignal, type ExitInfo, type TtyModes } from "../backend.ts";
import { SETUP_PROGRAM } from "../ssh/remote-shell.ts";
import { planExecShell } from "../container/exec-launch.ts";
import { closeExecShell, SIGNAL_GROUP } from "../container/exec-backend.ts";
import { PidAnnouncement } from "../container/pid-announce.ts";
import type { KubeTarget } from "./kubeconfig.ts";
import { podTarget, type PodInfo } from "./pod-api.ts";
import { startPodExec, type PodExecEnd, type PodExecStream } from "./pod-exec.ts";
import { runPodExec } from "./pod-run.ts";
import { POD_EXEC_USER, type PodOpened, type PodOpenRequest } from "./pod-opened.ts";

const log = logger("pod-exec");

/** Bound on the small exec that signals the shell from inside. */
const SIGNAL_EXEC_MS = 10_000;
/** ptyhub's terminal type, as its emulator understands it (a Docker exec gets it as its env). */
const TERM_EXPORT = "TERM=xterm-256color; export TERM;";
class PodExecBackend implements Backend {
  readonly kind = "pod" as const;
  readonly pid = null;
  private readonly sinks = new BackendSinks();
  private readonly announcement = new PidAnnouncement();
  private exitInfo: ExitInfo | null = null;
  private closing: Promise<ExitInfo> | null = null;
  private closedByUs = false;
  private readonly exited: Promise<ExitInfo>;
  private resolveExited!: (info: ExitInfo) => void;

  constructor(
    private readonly k: KubeTarget,
    private readonly pod: PodInfo,
    private readonly stream: PodExecStream,
  ) {
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    stream.onData((bytes) => {
      const output = this.announcement.take(bytes);
      if (output.length > 0) this.sinks.data(output);
    });
    stream.onClose((end) => void this.streamEnded(end));
  }

  onData(sink: (data: Uint8Array) => void): void {
    this.sinks.onData(sink);
  }

  onExit(sink: (info: ExitInfo) => void): void {
    this.sinks.onExit(sink);
  }

  write(data: string | Uint8Array): void {
    if (this.exitInfo) return;
    this.stream.write(typeof data === "string" ? new TextEncoder().encode(data) : data.slice());
  }

  /** The resize channel shares the socket with stdin, so keys typed after it see the new size. */
  resize(cols: number, rows: number): void {
    if (!this.exitInfo) this.stream.resize(cols, rows);
  }

  ttyModes(): TtyModes | null {
    return null;
  }

  close(signal: CloseSignal = "HUP"): Promise<ExitInfo> {
    if (this.closing) return this.closing;
    this.closing = (async () => {
      if (this.exitInfo) return this.exitInfo;
      this.closedByUs = true;
      const signalGroup = (s: CloseSignal) => this.signalGroup(s);
      return closeExecShell(signal, { signalGroup, exited: this.exited, cutStream: () => this.stream.close() });
    })();
    return this.closing;
  }

  /** Sends `signal` to the shell's group from inside the pod. */
  private async signalGroup(signal: CloseSignal): Promise<void> {
    const pid = this.announcement.pid;
    if (pid === null) {
      this.stream.close();
      return;
    }
    const argv = ["/bin/sh", "-c", SIGNAL_GROUP, String(pid), signal];
    await runPodExec(this.k, this.pod, argv, { timeoutMs: SIGNAL_EXEC_MS }).catch((err: Error) =>
      log.debug(`signalling the shell (pid ${pid}) in ${podTarget(this.pod)}: ${err.message}`),
    );
  }

  private async streamEnded(end: PodExecEnd): Promise<void> {
    if (this.exitInfo) return;
    const held = this.announcement.rest();
    if (held.length > 0) this.sinks.data(held);
    let info: ExitInfo;
    if (end.exitCode !== null) {
      const reason = this.closedByUs ? "closed (the shell in the pod ended)" : `exited with code ${end.exitCode}`;
      info = { exitCode: end.exitCode, signal: null, reason };
    } else if (this.closedByUs) {
      info = { exitCode: null, signal: null, reason: "closed (the shell in the pod ended)" };
    } else {
      // No status: the connection dropped, not the shell. It cannot be re-attached, so end it rather than leave it.
      await this.signalGroup("HUP");
      const why = end.message ? ` (${end.message})` : "";
      info = {
        exitCode: null,
        signal: null,
        reason:
          `the API connection dropped${why}; an exec cannot be re-attached, so its shell was ended ` +
          "(pod.persist keeps sessions across dropped connections)",
      };
    }
    this.exitInfo = info;
    this.sinks.exited(info);
    this.resolveExited(info);
  }
}

/** Opens a plain exec TTY in the pod; `note` says why it is not persistent, in the target. */
export async function openPodPlain(k: KubeTarget, pod: PodInfo, req: PodOpenRequest, note: string): Promise<PodOpened> {
  const { argv, boot } = await planExecShell(req, POD_EXEC_USER, (script) =>
    runPodExec(k, pod, ["/bin/sh", "-c", SETUP_PROGRAM], { stdin: script, timeoutMs: req.setupTimeoutMs }),
  );
  // pods/exec sets no environment: the terminal type goes in front of the announcing script.
  const [sh, dashC, script, ...rest] = argv;
  const withTerm = [sh ?? "/bin/sh", dashC ?? "-c", `${TERM_EXPORT} ${script ?? ""}`, ...rest];
  const stream = await startPodExec(k, pod, withTerm, { tty: true });
  stream.resize(req.cols, req.rows);
  const target = podTarget(pod);
  return {
    backend: new PodExecBackend(k, pod, stream),
    target: `${target}${note}`,
    ...boot,
    description: `exec ${boot.program} in ${target}`,
    files: podSiteFiles(k, pod),
  };
}
