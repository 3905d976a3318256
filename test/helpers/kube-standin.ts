/**
 * A stand-in for the Kubernetes API server, for the pod tests where no real cluster can run: a
 * loopback HTTPS server (its own CA, and client certificates required, as kind's API server
 * does) that speaks exactly the parts ptyhub's client uses — GET a pod, and the
 * `pods/exec` WebSocket upgrade (subprotocol v5.channel.k8s.io: channels 0 stdin, 1 stdout,
 * 2 stderr, 3 the final Status, 4 resize, 255 close) — and whose exec is a REAL Docker exec in
 * the private dockerd (test/helpers/dockerd.ts): a pod name maps to a container there, a TTY exec
 * is a TTY exec, a resize is the engine's resize. Only the API layer is stood in; the terminal
 * is real. Pods named in `forbidden` answer 403 (as RBAC would), and so does every request that
 * impersonates a user (the kubeconfig's `as`), as for a user with no rights; unknown pods 404.
 *
 * The Engine API is driven with ptyhub's own Engine client (its container tests check it against
 * the docker CLI), so nothing here shells out.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run, scratchDir } from "../ssh/sshd.ts";
import type { ServerWebSocket } from "bun";
import { EngineClient } from "../../src/backend/container/engine-client.ts";
import type { ExecStream } from "../../src/backend/container/exec-stream.ts";
import { settledExecState } from "../../src/backend/container/exec-run.ts";
import { StdcopyDemuxer } from "../../src/backend/container/stdcopy.ts";

const V5 = "v5.channel.k8s.io";
const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const STATUS = 3;
const RESIZE = 4;
const CLOSE = 255;
/** A normal WebSocket close, after the Status (what the API server sends). */
const WS_NORMAL = 1000;

export interface StandinPod {
  namespace: string;
  name: string;
  /** The containers the pod says it has; the first is its default. */
  containers: string[];
  /** The Docker container each of the pod's containers is. */
  docker: Record<string, string>;
}

/** The stand-in's TLS: a CA, the server's certificate for 127.0.0.1, and a client certificate. */
interface StandinPki {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

async function openssl(args: string[]): Promise<void> {
  const r = await run(["openssl", ...args]);
  if (r.code !== 0) throw new Error(`openssl ${args.join(" ")} failed (${r.code}): ${r.err}`);
}

/** A throwaway PKI made with the openssl CLI, as a cluster's (kind's) own CA signs its server and users. */
async function makePki(): Promise<StandinPki> {
  const dir = scratchDir("kube-pki-");
  const f = (name: string) => join(dir, name);
  const days = ["-days", "2"];
  await openssl(
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f("ca.key"), "-out", f("ca.crt")].concat(days, [
      "-subj",
      "/CN=ptyhub-standin-ca",
    ]),
  );
  writeFileSync(f("san.ext"), "subjectAltName=IP:127.0.0.1\n");
  for (const [name, subject] of [
    ["server", "/CN=127.0.0.1"],
    ["client", "/CN=ptyhub-test/O=system:masters"],
  ] as const) {
    await openssl(
      ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", f(`${name}.key`), "-out", f(`${name}.csr`)].concat([
        "-subj",
        subject,
      ]),
    );
    const ext = name === "server" ? ["-extfile", f("san.ext")] : [];
    await openssl(
      ["x509", "-req", "-in", f(`${name}.csr`), "-CA", f("ca.crt"), "-CAkey", f("ca.key")].concat([
        "-CAcreateserial",
        "-out",
        f(`${name}.crt`),
        ...days,
        ...ext,
      ]),
    );
  }
  const read = (name: string) => readFileSync(f(name), "utf8");
  return {
    ca: read("ca.crt"),
    serverCert: read("server.crt"),
    serverKey: read("server.key"),
    clientCert: read("client.crt"),
    clientKey: read("client.key"),
  };
}

export interface KubeStandin {
  /** https://127.0.0.1:PORT */
  server: string;
  /** Pods answered with 403 on every request, as for a user without RBAC rights. */
  forbidden: Set<string>;
  addPod(pod: StandinPod): void;
  /** Forgets a pod: from now on it is answered 404, as a deleted one. */
  removePod(namespace: string, name: string): void;
  /** Writes a kubeconfig for this server (context `standin`) into `dir`; `as` impersonates a user. */
  writeKubeconfig(dir: string, namespace?: string, as?: string): string;
  /** Execs opened so far, by their command (for tests that want to see which ran). */
  execs: string[][];
  /** Drops every exec's connection at once, as a network cut or an API server restart would. */
  cut(): void;
  stop(): void;
}

interface ExecData {
  docker: string;
  command: string[];
  tty: boolean;
  stream: ExecStream | null;
  execId: string | null;
  /** Messages that came before the Docker exec was ready (a resize sent right after connecting). */
  pending: Uint8Array[];
  closed: boolean;
}

function status(code: number, reason: string, message: string): Response {
  const body = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
  return Response.json(body, { status: code });
}

function exitStatus(code: number | null): string {
  if (code === 0) return JSON.stringify({ metadata: {}, status: "Success" });
  return JSON.stringify({
    metadata: {},
    status: "Failure",
    message: `command terminated with non-zero exit code: ${code}`,
    reason: "NonZeroExitCode",
    details: { causes: [{ reason: "ExitCode", message: String(code) }] },
  });
}

function frame(channel: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(payload.length + 1);
  out[0] = channel;
  out.set(payload, 1);
  return out;
}

export async function startKubeStandin(dockerSocket: string): Promise<KubeStandin> {
  const pki = await makePki();
  const engine = new EngineClient({ kind: "unix", path: dockerSocket });
  const pods = new Map<string, StandinPod>();
  const forbidden = new Set<string>();
  const execs: string[][] = [];
  const sockets = new Set<ServerWebSocket<ExecData>>();

  async function podJson(pod: StandinPod): Promise<unknown> {
    const states = await Promise.all(
      pod.containers.map(async (c) => {
        const info = await engine.inspect(pod.docker[c] ?? "");
        return {
          name: c,
          ready: !!info?.running,
          state: info?.running ? { running: {} } : { waiting: { reason: "Stopped" } },
        };
      }),
    );
    return {
      kind: "Pod",
      apiVersion: "v1",
      metadata: { name: pod.name, namespace: pod.namespace },
      spec: { containers: pod.containers.map((name) => ({ name, image: pod.docker[name] })) },
      status: { phase: states.some((s) => s.ready) ? "Running" : "Failed", containerStatuses: states },
    };
  }

  function deliver(ws: ServerWebSocket<ExecData>, msg: Uint8Array): void {
    const d = ws.data;
    const channel = msg[0];
    const payload = msg.subarray(1);
    if (channel === STDIN) d.stream?.write(payload);
    else if (channel === CLOSE && payload[0] === STDIN) d.stream?.endInput();
    else if (channel === RESIZE && d.tty && d.execId) {
      const size = JSON.parse(new TextDecoder().decode(payload)) as { Width: number; Height: number };
      void engine.resizeExec(d.execId, size.Width, size.Height).catch(() => undefined);
    }
  }

  async function startExec(ws: ServerWebSocket<ExecData>): Promise<void> {
    const d = ws.data;
    const execId = await engine.createExec(d.docker, { cmd: d.command, tty: d.tty });
    const stream = await engine.startExec(execId, d.tty);
    d.execId = execId;
    d.stream = stream;
    if (d.closed) return stream.close();
    const demux = new StdcopyDemuxer((which, payload) => ws.send(frame(which === "stdout" ? STDOUT : STDERR, payload)));
    stream.onData((bytes) => (d.tty ? ws.send(frame(STDOUT, bytes)) : demux.push(bytes)));
    stream.onClose(() => {
      if (d.closed) return;
      void settledExecState(engine, execId).then((state) => {
        if (d.closed) return;
        ws.send(frame(STATUS, new TextEncoder().encode(exitStatus(state.exitCode))));
        ws.close(WS_NORMAL);
      });
    });
    for (const msg of d.pending.splice(0)) deliver(ws, msg);
  }

  const server = Bun.serve<ExecData>({
    hostname: "127.0.0.1",
    port: 0,
    // Only a client with a certificate from this CA gets an answer, as with kind's API server.
    tls: { cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, requestCert: true, rejectUnauthorized: true },
    async fetch(req, srv) {
      const url = new URL(req.url);
      const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)(\/exec)?$/.exec(url.pathname);
      if (!m) return status(404, "NotFound", `the server could not find the requested resource (${url.pathname})`);
      const [namespace, name, exec] = [decodeURIComponent(m[1]!), decodeURIComponent(m[2]!), m[3]];
      if (forbidden.has(name) || req.headers.has("impersonate-user")) {
        const verb = exec ? 'create resource "pods/exec"' : 'get resource "pods"';
        const user = req.headers.get("impersonate-user") ?? "ptyhub-test";
        return status(403, "Forbidden", `pods "${name}" is forbidden: User "${user}" cannot ${verb} in "${namespace}"`);
      }
      const pod = pods.get(`${namespace}/${name}`);
      if (!pod) return status(404, "NotFound", `pods "${name}" not found`);
      if (!exec) return Response.json(await podJson(pod));
      const container = url.searchParams.get("container") || pod.containers[0]!;
      const docker = pod.docker[container];
      if (!docker) return status(400, "BadRequest", `container ${container} is not valid for pod ${name}`);
      const offered = (req.headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
      if (!offered.includes(V5)) return status(400, "BadRequest", `this stand-in speaks only ${V5}`);
      const command = url.searchParams.getAll("command");
      execs.push(command);
      const data: ExecData = {
        docker,
        command,
        tty: url.searchParams.get("tty") === "true",
        stream: null,
        execId: null,
        pending: [],
        closed: false,
      };
      if (srv.upgrade(req, { data, headers: { "Sec-WebSocket-Protocol": V5 } })) return undefined;
      return status(400, "BadRequest", "expected a WebSocket upgrade");
    },
    websocket: {
      open(ws) {
        sockets.add(ws);
        startExec(ws).catch((err: Error) => {
          ws.send(frame(STDERR, new TextEncoder().encode(`${err.message}\n`)));
          ws.close(WS_NORMAL);
        });
      },
      message(ws, message) {
        if (typeof message === "string") return;
        const msg = new Uint8Array(message);
        if (ws.data.stream) deliver(ws, msg);
        else ws.data.pending.push(msg);
      },
      close(ws) {
        sockets.delete(ws);
        ws.data.closed = true;
        ws.data.stream?.close();
      },
    },
  });
  const url = `https://127.0.0.1:${server.port}`;
  const b64 = (pem: string) => Buffer.from(pem).toString("base64");
  return {
    server: url,
    forbidden,
    execs,
    addPod(pod) {
      pods.set(`${pod.namespace}/${pod.name}`, pod);
    },
    removePod(namespace, name) {
      pods.delete(`${namespace}/${name}`);
    },
    writeKubeconfig(dir, namespace = "default", as) {
      const path = join(dir, "kubeconfig");
      const config = {
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "standin", cluster: { server: url, "certificate-authority-data": b64(pki.ca) } }],
        users: [
          {
            name: "standin",
            user: {
              "client-certificate-data": b64(pki.clientCert),
              "client-key-data": b64(pki.clientKey),
              ...(as === undefined ? {} : { as }),
            },
          },
        ],
        contexts: [{ name: "standin", context: { cluster: "standin", user: "standin", namespace } }],
        "current-context": "standin",
      };
      // JSON is YAML: the client reads it as a kubeconfig.
      writeFileSync(path, JSON.stringify(config, null, 2));
      return path;
    },
    cut() {
      for (const ws of sockets) ws.terminate();
    },
    stop() {
      for (const ws of sockets) ws.close();
      server.stop(true);
    },
  };
}
