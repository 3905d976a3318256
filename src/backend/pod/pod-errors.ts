/** The CONTAINER_UNAVAILABLE errors of pod sessions, each with a hint that names what to do. */
import { AppError } from "../../api/errors.ts";

const CHECK_HINT = "`kubectl get pods -n NAMESPACE` lists them; pod.namespace, pod.context and pod.kubeconfig choose.";

export function noKubeconfig(looked: string): AppError {
  return new AppError(
    "CONTAINER_UNAVAILABLE",
    `no kubeconfig: ${looked}`,
    "Set KUBECONFIG or pass pod.kubeconfig (the file kubectl uses), or run inside a cluster with a service account.",
  );
}

export function badKubeconfig(what: string, why: string): AppError {
  return new AppError(
    "CONTAINER_UNAVAILABLE",
    `the kubeconfig ${what} cannot be used: ${why}`,
    "Check it with `kubectl config view`; pod.context picks a context.",
  );
}

export function apiUnreachable(server: string, why: string): AppError {
  return new AppError(
    "CONTAINER_UNAVAILABLE",
    `no Kubernetes API server answers at ${server}: ${why}`,
    "Check that the cluster runs and the kubeconfig's context points at it (`kubectl cluster-info`).",
    true,
  );
}

export function noSuchPod(namespace: string, name: string): AppError {
  return new AppError("CONTAINER_UNAVAILABLE", `no such pod: ${namespace}/${name}`, `Check the name. ${CHECK_HINT}`);
}

export function forbidden(what: string, message: string): AppError {
  return new AppError(
    "CONTAINER_UNAVAILABLE",
    `forbidden to ${what}: ${message}`,
    "The kubeconfig's user lacks the RBAC rights (get pods, create pods/exec); `kubectl auth can-i create " +
      "pods/exec` checks them. Ask for them, or use another context.",
  );
}

export function noSuchContainer(pod: string, container: string, have: string[]): AppError {
  return new AppError(
    "CONTAINER_UNAVAILABLE",
    `pod ${pod} has no container '${container}'`,
    `Its containers: ${have.join(", ") || "none"}; pass one as pod.container.`,
  );
}

export function notRunning(what: string, state: string): AppError {
  return new AppError(
    "CONTAINER_UNAVAILABLE",
    `${what} is not running (${state})`,
    `Wait until it runs (\`kubectl get pod\` shows its phase), then open the session again.`,
  );
}

/** An answer other than the ones expected: the API server's own message is the best explanation. */
export function apiRefused(what: string, status: number, message: string): AppError {
  return new AppError(
    "CONTAINER_UNAVAILABLE",
    `the Kubernetes API server refused to ${what} (HTTP ${status}): ${message}`,
    "Check the pod's state (`kubectl describe pod`) and your rights on it.",
  );
}
