/**
 * A TCP proxy on 127.0.0.1 between ptyhub and sshd whose connections the test controls: `cut()`
 * drops every connection at once (as a network failure would); `freeze()` silently stops carrying
 * the current connections' bytes without closing them (a dead link only keepalives can notice);
 * while `block()` is on, new connections are accepted and closed at once (the host is unreachable),
 * so the test can watch the session reconnecting before it lets it through again.
 */
import type { Socket, TCPSocketListener } from "bun";

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
}

export function startProxy(targetPort: number): Proxy {
  const sockets = new Set<Socket<Side>>();
  const frozen = new Set<Socket<Side>>();
  let blocked = false;
  const listener: TCPSocketListener<Side> = Bun.listen<Side>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        if (blocked) {
          client.terminate();
          return;
        }
        const clientSide: Side = { peer: null, pending: [] };
        client.data = clientSide;
        sockets.add(client);
        void Bun.connect<Side>({
          hostname: "127.0.0.1",
          port: targetPort,
          socket: {
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
            error() {},
          },
        }).catch(() => client.terminate());
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
