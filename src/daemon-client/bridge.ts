/**
 * `ptyhub bridge [--no-start]`: the remote end of a persistent SSH session. Run by the local
 * ptyhub over an SSH exec channel, it makes sure this user's daemon runs (starting it, unless
 * `--no-start`), then pipes its stdin to the daemon's socket and the socket to its stdout. The
 * local ptyhub speaks the ordinary daemon protocol through it: the bridge adds nothing to the wire,
 * so the daemon's peer check, protocol check and per-reader cursors apply unchanged.
 */
import type { Socket } from "bun";
import { DaemonConnectError } from "./client.ts";
import { daemonPaths } from "./daemon-paths.ts";
import { reachDaemon } from "./start.ts";
import { BRIDGE_NO_DAEMON_LINE } from "./protocol.ts";
import { logger } from "../log.ts";
import { parseVerbArgs } from "../util/verb-args.ts";

const log = logger("bridge");

/** Exit status when `--no-start` finds no daemon: the local side reports the sessions as gone. */
export const BRIDGE_NO_DAEMON = 3;

const BRIDGE_ARGS = {
  verb: "bridge",
  usage:
    "Usage: ptyhub bridge [--no-start]\n\nUsed over SSH by a remote ptyhub: pipes stdio to this user's daemon.\n" +
    "  --no-start  exit 3 instead of starting a daemon when none runs\n",
  options: { "no-start": { type: "boolean" } },
} as const;

export async function runBridge(args: string[]): Promise<number> {
  const parsed = parseVerbArgs(BRIDGE_ARGS, args);
  if (!parsed) return 0;
  const start = parsed.values["no-start"] !== true;
  try {
    (await reachDaemon({ role: "bridge", start })).close();
  } catch (err) {
    if (err instanceof DaemonConnectError && err.notRunning && !start) {
      process.stderr.write(`${BRIDGE_NO_DAEMON_LINE}\n`);
      return BRIDGE_NO_DAEMON;
    }
    throw err;
  }
  return pipe(daemonPaths().socket);
}

/** Copies stdin → socket and socket → stdout until either side ends; resolves with the exit status. */
function pipe(socketPath: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    // Bytes the socket did not take yet (Bun's write is non-blocking and may take only part).
    const queue: Uint8Array[] = [];
    let sock: Socket<undefined> | null = null;
    let stdinEnded = false;
    const flush = () => {
      while (sock && queue.length > 0) {
        const head = queue[0]!;
        const n = sock.write(head);
        if (n < 0) return;
        if (n < head.length) {
          queue[0] = head.subarray(n);
          process.stdin.pause();
          return;
        }
        queue.shift();
      }
      if (sock && stdinEnded) sock.end();
      else process.stdin.resume();
    };
    Bun.connect({
      unix: socketPath,
      socket: {
        open(s) {
          sock = s;
          flush();
        },
        data(_s, data) {
          process.stdout.write(data);
        },
        drain() {
          flush();
        },
        close() {
          // The daemon hung up (it stopped, or died): done, once stdout is written. Reading stdin
          // would keep this process (and so the SSH channel) alive: stop it, so the far end sees the close.
          process.stdin.destroy();
          process.stdout.end(() => resolve(0));
        },
        error(_s, err) {
          log.debug(`socket error: ${err.message}`);
        },
      },
    }).catch(reject);
    process.stdin.on("data", (chunk: Buffer) => {
      queue.push(new Uint8Array(chunk));
      flush();
    });
    process.stdin.on("end", () => {
      stdinEnded = true;
      flush();
    });
  });
}
