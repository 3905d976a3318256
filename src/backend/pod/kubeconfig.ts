/**
 * The kubeconfig as kubectl reads it: pod.kubeconfig, else $KUBECONFIG (a list of files, merged,
 * the first one's current context winning), else ~/.kube/config, else the pod's own service
 * account when ptyhub runs inside a cluster. The client library would fall back to an
 * unauthenticated localhost:8080 where there is none; that is refused here with a hint instead.
 * The context is pod.context or the current one; the namespace pod.namespace, the context's, else
 * `default`.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import { AppError } from "../../api/errors.ts";
import { KubeConfig } from "@kubernetes/client-node";
import type { PodParams } from "./params.ts";
import { badKubeconfig, noKubeconfig } from "./pod-errors.ts";

/** Where a pod's service account keeps its token: present, ptyhub runs inside a cluster. */
const SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";
const DEFAULT_NAMESPACE = "default";

export interface KubeTarget {
  config: KubeConfig;
  /** The API server's URL, for messages. */
  server: string;
  namespace: string;
}

/** Only the entries whose names are not taken yet. */
function newNames<T extends { name: string }>(have: T[], more: T[]): T[] {
  const taken = new Set(have.map((e) => e.name));
  return more.filter((e) => !taken.has(e.name));
}

/**
 * kubectl's merge of $KUBECONFIG's files: the first file to set a cluster, user, context or the
 * current context wins (the client library's own merge refuses a name seen twice instead).
 */
function mergeFirstWins(config: KubeConfig, more: KubeConfig): void {
  config.loadFromOptions({
    clusters: [...config.clusters, ...newNames(config.clusters, more.clusters)],
    users: [...config.users, ...newNames(config.users, more.users)],
    contexts: [...config.contexts, ...newNames(config.contexts, more.contexts)],
    currentContext: config.currentContext || more.currentContext,
  });
}

function load(p: PodParams, env: NodeJS.ProcessEnv): { config: KubeConfig; source: string } {
  const config = new KubeConfig();
  const fromEnv = (env.KUBECONFIG ?? "").split(delimiter).filter(Boolean);
  const home = join(env.HOME || homedir(), ".kube", "config");
  let source: string;
  if (p.kubeconfig !== undefined) {
    // Read by the daemon, whose cwd is not the client's: a relative path would name another file.
    if (!isAbsolute(p.kubeconfig)) {
      throw new AppError(
        "INVALID_ARGUMENT",
        `pod.kubeconfig must be an absolute path, not '${p.kubeconfig}'`,
        "Pass the file's full path (or set KUBECONFIG where ptyhub runs).",
      );
    }
    if (!existsSync(p.kubeconfig)) throw noKubeconfig(`pod.kubeconfig ${p.kubeconfig} does not exist`);
    source = p.kubeconfig;
  } else if (fromEnv.length > 0) {
    const missing = fromEnv.filter((f) => !existsSync(f));
    // kubectl skips missing files in the list, but not a list with none.
    if (missing.length === fromEnv.length)
      throw noKubeconfig(`none of KUBECONFIG's files exists (${fromEnv.join(delimiter)})`);
    source = fromEnv.filter((f) => existsSync(f)).join(delimiter);
  } else if (existsSync(home)) {
    source = home;
  } else if (existsSync(SERVICE_ACCOUNT_TOKEN)) {
    config.loadFromCluster();
    return { config, source: "the in-cluster service account" };
  } else {
    throw noKubeconfig(`KUBECONFIG is unset and ${home} does not exist`);
  }
  try {
    const [first, ...rest] = source.split(delimiter);
    config.loadFromFile(first ?? source);
    for (const file of rest) {
      const more = new KubeConfig();
      more.loadFromFile(file);
      mergeFirstWins(config, more);
    }
  } catch (err) {
    throw badKubeconfig(source, (err as Error).message);
  }
  return { config, source };
}

export function kubeTarget(p: PodParams, env: NodeJS.ProcessEnv = process.env): KubeTarget {
  const { config, source } = load(p, env);
  if (p.context !== undefined) {
    if (!config.getContextObject(p.context)) {
      const names = config.getContexts().map((c) => c.name);
      throw badKubeconfig(source, `it has no context '${p.context}' (it has: ${names.join(", ") || "none"})`);
    }
    config.setCurrentContext(p.context);
  }
  const cluster = config.getCurrentCluster();
  if (!cluster) throw badKubeconfig(source, `its context '${config.getCurrentContext()}' names no cluster`);
  const namespace = p.namespace ?? config.getContextObject(config.getCurrentContext())?.namespace ?? DEFAULT_NAMESPACE;
  return { config, server: cluster.server, namespace };
}
