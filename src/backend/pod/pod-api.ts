/**
 * The pod a session opens in, through the API server (GET pod, with the official client's
 * credentials): it exists, this user may read it, it runs, and which of its containers is meant
 * (pod.container, else the one its `kubectl.kubernetes.io/default-container` annotation names,
 * else the first, as kubectl exec picks it). Each way this fails is CONTAINER_UNAVAILABLE with a hint.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { KubeTarget } from "./kubeconfig.ts";
import { apiRefused, apiUnreachable, forbidden, noSuchContainer, noSuchPod, notRunning } from "./pod-errors.ts";

const DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container";
const HTTP_FORBIDDEN = 403;
const HTTP_NOT_FOUND = 404;
const HTTP_UNAUTHORIZED = 401;
/** Characters of an unexpected answer kept for the error. */
const STATUS_BODY_CHARS = 300;

export interface PodInfo {
  namespace: string;
  name: string;
  container: string;
}

/** `pod:NAMESPACE/NAME/CONTAINER`: what term_list and term_open show. */
export function podTarget(pod: PodInfo): string {
  return `pod:${pod.namespace}/${pod.name}/${pod.container}`;
}

/** The API server's own message in an error body (a Status), else the body's start. */
function statusMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    if (typeof parsed.message === "string") return parsed.message;
  } catch {
    // Not a Status: the body as it is.
  }
  return body.slice(0, STATUS_BODY_CHARS);
}

/**
 * GET with the kubeconfig's credentials and TLS (the official client works them out: client
 * certificates, a CA, tokens, exec plugins, impersonation). The request itself is Bun's fetch:
 * the client's generated API sends through undici's fetch with a dispatcher that carries the TLS
 * material, and under Bun that dispatcher is ignored (a cluster's own CA fails verification).
 */
async function kubeGet(k: KubeTarget, path: string, timeoutMs: number): Promise<Response> {
  const opts: { headers?: Record<string, unknown>; ca?: Buffer; cert?: Buffer; key?: Buffer } & {
    rejectUnauthorized?: boolean;
    servername?: string;
  } = {};
  await k.config.applyToHTTPSOptions(opts);
  const headers: Record<string, string> = { Accept: "application/json" };
  for (const [name, value] of Object.entries(opts.headers ?? {})) headers[name] = String(value);
  const tls = {
    ca: opts.ca?.toString(),
    cert: opts.cert?.toString(),
    key: opts.key?.toString(),
    rejectUnauthorized: opts.rejectUnauthorized,
    serverName: opts.servername,
  };
  return fetch(`${k.server.replace(/\/+$/, "")}${path}`, { headers, tls, signal: AbortSignal.timeout(timeoutMs) });
}

/** Reads the pod, bounded by `timeoutMs` (an API server that never answers is an unreachable one). */
async function readPod(k: KubeTarget, name: string, timeoutMs: number): Promise<V1Pod> {
  const where = `${k.namespace}/${name}`;
  const path = `/api/v1/namespaces/${encodeURIComponent(k.namespace)}/pods/${encodeURIComponent(name)}`;
  let r: Response;
  try {
    r = await kubeGet(k, path, timeoutMs);
  } catch (err) {
    throw apiUnreachable(k.server, (err as Error).message);
  }
  const body = await r.text();
  if (r.status === HTTP_NOT_FOUND) throw noSuchPod(k.namespace, name);
  if (r.status === HTTP_FORBIDDEN || r.status === HTTP_UNAUTHORIZED) {
    throw forbidden(`read pod ${where}`, statusMessage(body));
  }
  if (!r.ok) throw apiRefused(`read pod ${where}`, r.status, statusMessage(body));
  try {
    return JSON.parse(body) as V1Pod;
  } catch {
    throw apiRefused(`read pod ${where}`, r.status, `not a pod: ${body.slice(0, STATUS_BODY_CHARS)}`);
  }
}

export async function runningPod(
  k: KubeTarget,
  name: string,
  container: string | undefined,
  timeoutMs: number,
): Promise<PodInfo> {
  const pod = await readPod(k, name, timeoutMs);
  const where = `${k.namespace}/${name}`;
  const have = (pod.spec?.containers ?? []).map((c) => c.name);
  const chosen = container ?? pod.metadata?.annotations?.[DEFAULT_CONTAINER_ANNOTATION] ?? have[0];
  if (chosen === undefined || !have.includes(chosen)) throw noSuchContainer(where, chosen ?? "(none)", have);
  const phase = pod.status?.phase ?? "Unknown";
  if (phase !== "Running") throw notRunning(`pod ${where}`, phase);
  const state = pod.status?.containerStatuses?.find((s) => s.name === chosen)?.state;
  if (!state?.running) {
    const why = state?.waiting?.reason ?? (state?.terminated ? `terminated: ${state.terminated.reason}` : "no status");
    throw notRunning(`container ${chosen} of pod ${where}`, why);
  }
  return { namespace: k.namespace, name, container: chosen };
}
