/**
 * A TCP proxy on 127.0.0.1 between ptyhub and sshd (or a container engine's unix socket) whose
 * connections the test controls: `cut()`
 * drops every connection at once (as a network failure would); `freeze()` silently stops carrying
 * the current connections' bytes without closing them (a dead link only keepalives can notice);
 * while `block()` is on, new connections are accepted and closed at once (the host is unreachable),
 * so the test can watch the session reconnecting before it lets it through again.
 */
import type { Socket, SocketHandler, TCPSocketListener } from "bun";

export interface Proxy {
  port: number;
  /** Connections currently carried. */
  open(): number;
  cut(): void;
  freeze(): void;
  block(on: boolean): void;
  stop(): void;
}

interface Side {
  peer: Socket<Side> | null;
  /** Bytes that arrived before the other side was connected, or that it did not take yet. */
  pending: Uint8Array[];
  /** This side sent its FIN (half-close): the peer's sending side is shut once `pending` is written. */
  ended?: boolean;
}

function forward(from: Side, to: Socket<Side> | null, data: Uint8Array): void {
  if (!to || from.pending.length > 0) {
    from.pending.push(data.slice());
    return;
  }
  const n = to.write(data);
  if (n < data.length) from.pending.push(data.slice(Math.max(n, 0)));
}

function flush(side: Side, to: Socket<Side>): void {
  while (side.pending.length > 0) {
    const head = side.pending[0]!;
    const n = to.write(head);
    if (n < head.length) {
      side.pending[0] = head.slice(Math.max(n, 0));
      return;
    }
    side.pending.shift();
  }
  if (side.ended) to.shutdown();
}

/** A side's FIN, passed on once what it sent is through (only with halfClose). */
function halfClose(side: Side, to: Socket<Side> | null): void {
  side.ended = true;
  if (to) flush(side, to);
}

export interface ProxyOptions {
  /**
   * Pass a half-close on (one side's FIN shuts only the other's sending side), as a container
   * engine's exec expects: the end of an exec's stdin is a half-close.
   */
  halfClose?: boolean;
}

/** Where the proxy carries connections to: a port on 127.0.0.1, or a unix socket (an engine's API). */
export type ProxyTarget = number | { unix: string };

export function startProxy(target: ProxyTarget, opts: ProxyOptions = {}): Proxy {
  const allowHalfOpen = opts.halfClose === true;
  const sockets = new Set<Socket<Side>>();
  const frozen = new Set<Socket<Side>>();
  let blocked = false;
  const listener: TCPSocketListener<Side> = Bun.listen<Side>({
    hostname: "127.0.0.1",
    port: 0,
    allowHalfOpen,
    socket: {
      open(client) {
        if (blocked) {
          client.terminate();
          return;
        }
        const clientSide: Side = { peer: null, pending: [] };
        client.data = clientSide;
        sockets.add(client);
        const toTarget: SocketHandler<Side> = {
          open(upstream) {
            const upSide: Side = { peer: client, pending: [] };
            upstream.data = upSide;
            sockets.add(upstream);
            clientSide.peer = upstream;
            flush(clientSide, upstream);
          },
          data(upstream, data) {
            if (!frozen.has(upstream)) forward(upstream.data, client, data);
          },
          drain(upstream) {
            flush(clientSide, upstream);
          },
          close(upstream) {
            sockets.delete(upstream);
            client.end();
          },
          end(upstream) {
            if (allowHalfOpen) halfClose(upstream.data, client);
          },
          error() {},
        };
        const connecting =
          typeof target === "number"
            ? Bun.connect<Side>({ hostname: "127.0.0.1", port: target, socket: toTarget, allowHalfOpen })
            : Bun.connect<Side>({ unix: target.unix, socket: toTarget, allowHalfOpen });
        void connecting.catch(() => client.terminate());
      },
      data(client, data) {
        if (!frozen.has(client)) forward(client.data, client.data.peer, data);
      },
      drain(client) {
        const up = client.data.peer;
        if (up) flush(up.data, client);
      },
      close(client) {
        sockets.delete(client);
        client.data?.peer?.end();
      },
      end(client) {
        if (allowHalfOpen) halfClose(client.data, client.data.peer);
      },
      error() {},
    },
  });
  return {
    port: listener.port,
    open: () => [...sockets].filter((s) => s.data?.peer !== undefined).length / 2,
    cut() {
      for (const s of [...sockets]) s.terminate();
      sockets.clear();
      frozen.clear();
    },
    freeze() {
      for (const s of sockets) frozen.add(s);
    },
    block(on) {
      blocked = on;
    },
    stop() {
      this.cut();
      listener.stop(true);
    },
  };
}
