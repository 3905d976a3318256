/**
 * The pod a session opens in, through the API server (GET pod, with the official client): it
 * exists, this user may read it, it runs, and which of its containers is meant (pod.container,
 * else the one its `kubectl.kubernetes.io/default-container` annotation names, else the first,
 * as kubectl exec picks it). Each way this fails is CONTAINER_UNAVAILABLE with a hint.
 */
import { ApiException, CoreV1Api, type V1Pod } from "@kubernetes/client-node";
import type { KubeTarget } from "./kubeconfig.ts";
import { apiRefused, apiUnreachable, forbidden, noSuchContainer, noSuchPod, notRunning } from "./pod-errors.ts";

const DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container";
const HTTP_FORBIDDEN = 403;
const HTTP_NOT_FOUND = 404;
const HTTP_UNAUTHORIZED = 401;

export interface PodInfo {
  namespace: string;
  name: string;
  container: string;
}

/** `pod:NAMESPACE/NAME/CONTAINER`: what term_list and term_open show. */
export function podTarget(pod: PodInfo): string {
  return `pod:${pod.namespace}/${pod.name}/${pod.container}`;
}

/** The API server's own message in an error body (a Status), else the exception's first line. */
function statusMessage(err: ApiException<unknown>): string {
  const body = err.body;
  if (typeof body === "string") {
    try {
      const parsed = JSON.parse(body) as { message?: unknown };
      if (typeof parsed.message === "string") return parsed.message;
    } catch {
      return body.slice(0, 300);
    }
  }
  if (body && typeof body === "object" && "message" in body && typeof body.message === "string") return body.message;
  return err.message.split("\n")[0] ?? "";
}

/** Reads the pod, bounded by `timeoutMs` (an API server that never answers is an unreachable one). */
async function readPod(k: KubeTarget, name: string, timeoutMs: number): Promise<V1Pod> {
  const api = k.config.makeApiClient(CoreV1Api);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([api.readNamespacedPod({ name, namespace: k.namespace }), timedOut]);
  } catch (err) {
    const where = `${k.namespace}/${name}`;
    if (err instanceof ApiException) {
      if (err.code === HTTP_NOT_FOUND) throw noSuchPod(k.namespace, name);
      if (err.code === HTTP_FORBIDDEN || err.code === HTTP_UNAUTHORIZED) {
        throw forbidden(`read pod ${where}`, statusMessage(err));
      }
      throw apiRefused(`read pod ${where}`, err.code, statusMessage(err));
    }
    const cause = (err as Error & { cause?: Error }).cause;
    throw apiUnreachable(k.server, cause?.message ?? (err as Error).message);
  } finally {
    clearTimeout(timer);
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
