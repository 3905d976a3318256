/**
 * The byte stream of a started exec: `POST /exec/{id}/start` with `Connection: Upgrade` /
 * `Upgrade: tcp` on a raw socket; after the engine's `101` (Podman may answer `200`) the same
 * socket carries the exec's stdin one way and its output the other (raw with a TTY, stdcopy
 * frames without). fetch() cannot hand over an upgraded connection, hence the raw socket.
 *
 * Writes are accepted whole and queued while the socket is full, so callers (a daemon Conn, a
 * session's keystrokes) never see a short write.
 */
import type { Socket } from "bun";
import { AppError } from "../../api/errors.ts";
import type { EngineAddress } from "./engine-address.ts";
import { engineUnreachable } from "./engine-errors.ts";

/** Bound on the response head: the engine's is a few hundred bytes; more means this is no engine. */
const MAX_HEAD_BYTES = 16_384;
const HEAD_END = "\r\n\r\n";

export interface ExecStream {
  /** Queues bytes for the exec's stdin; every byte is taken, in order. */
  write(bytes: Uint8Array): void;
  /** Closes our sending side once the queue is written (the exec's stdin sees EOF). */
  endInput(): void;
  /** Drops the connection at once. */
  close(): void;
  onData(listener: (bytes: Uint8Array) => void): void;
  /** Called once when the stream ends (the exec finished, the engine hung up, or close()). */
  onClose(listener: () => void): void;
}

interface State {
  head: string;
  upgraded: boolean;
  queue: Uint8Array[];
  endAfterFlush: boolean;
  closed: boolean;
  dataListeners: Array<(bytes: Uint8Array) => void>;
  closeListeners: Array<() => void>;
  /** Output that arrived before anyone listened (the first bytes can come with the 101). */
  early: Uint8Array[];
}

function request(execId: string, tty: boolean): string {
  const body = JSON.stringify({ Detach: false, Tty: tty });
  return (
    `POST /exec/${encodeURIComponent(execId)}/start HTTP/1.1\r\nHost: docker\r\n` +
    "Content-Type: application/json\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** Starts the exec and resolves once its stream is open. */
export function startExecStream(address: EngineAddress, execId: string, tty: boolean): Promise<ExecStream> {
  const st: State = {
    head: "",
    upgraded: false,
    queue: [],
    endAfterFlush: false,
    closed: false,
    dataListeners: [],
    closeListeners: [],
    early: [],
  };
  let sock: Socket<undefined> | null = null;
  const flush = () => {
    while (sock && st.queue.length > 0) {
      const head = st.queue[0]!;
      const n = sock.write(head);
      if (n < 0) return;
      if (n < head.length) {
        st.queue[0] = head.subarray(n);
        return;
      }
      st.queue.shift();
    }
    if (sock && st.endAfterFlush) sock.shutdown();
  };
  const deliver = (bytes: Uint8Array) => {
    if (bytes.length === 0) return;
    if (st.dataListeners.length === 0) st.early.push(bytes.slice());
    else for (const l of st.dataListeners) l(bytes);
  };
  const closed = () => {
    if (st.closed) return;
    st.closed = true;
    for (const l of st.closeListeners) l();
  };
  const stream: ExecStream = {
    write(bytes) {
      if (st.closed || st.endAfterFlush) return;
      st.queue.push(bytes.slice());
      flush();
    },
    endInput() {
      st.endAfterFlush = true;
      flush();
    },
    close() {
      sock?.end();
      closed();
    },
    onData(listener) {
      st.dataListeners.push(listener);
      for (const b of st.early.splice(0)) listener(b);
    },
    onClose(listener) {
      if (st.closed) listener();
      else st.closeListeners.push(listener);
    },
  };
  return new Promise<ExecStream>((resolve, reject) => {
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      sock?.end();
      reject(err);
    };
    const handlers = {
      open(s: Socket<undefined>) {
        sock = s;
        s.write(request(execId, tty));
      },
      data(_s: Socket<undefined>, data: Buffer) {
        if (st.upgraded) return deliver(new Uint8Array(data));
        // The head is ASCII; what follows it is the exec's output, kept as bytes.
        const bytes = new Uint8Array(data);
        const text = st.head + Buffer.from(bytes).toString("latin1");
        const end = text.indexOf(HEAD_END);
        if (end < 0) {
          st.head = text;
          if (text.length > MAX_HEAD_BYTES) fail(new AppError("INTERNAL", "the engine's exec answer has no end"));
          return;
        }
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
        if (status !== 101 && status !== 200) {
          const body = text.slice(end + HEAD_END.length).trim();
          return fail(
            new AppError(
              "CONTAINER_UNAVAILABLE",
              `the engine refused to start the exec (HTTP ${status}): ${body.slice(0, 300)}`,
              "Check that the container is still running (term_list {containers: true}).",
            ),
          );
        }
        st.upgraded = true;
        settled = true;
        const consumed = end + HEAD_END.length - st.head.length;
        st.head = "";
        resolve(stream);
        deliver(bytes.subarray(consumed));
        flush();
      },
      drain() {
        flush();
      },
      close() {
        if (!settled) fail(new AppError("CONTAINER_UNAVAILABLE", "the engine hung up before the exec started"));
        closed();
      },
      error(_s: Socket<undefined>, err: Error) {
        fail(err);
      },
    };
    const connecting =
      address.kind === "unix"
        ? Bun.connect({ unix: address.path, socket: handlers })
        : Bun.connect({ hostname: address.hostname, port: address.port, socket: handlers });
    connecting.catch((err: Error) => fail(engineUnreachable(address, err)));
  });
}
