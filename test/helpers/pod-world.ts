/**
 * Where the pod tests run their pods: by default against the API-server stand-in
 * (kube-standin.ts) in front of a private dockerd (dockerd.ts), the terminal real and only the API
 * layer stood in; with PTYHUB_TEST_KUBECONFIG set (the GitHub job's kind cluster), against that
 * real cluster, where the tests create their pod with kubectl and delete it after. Either way the
 * tests see one shape: a kubeconfig, a running pod, a kubeconfig whose user is forbidden from it,
 * and a way to run a command inside the pod that is not ptyhub's.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run, scratchDir } from "../ssh/sshd.ts";
import { containerTestsEnabled, importBashImage, importBusyboxImage } from "./container-images.ts";
import { startDockerd } from "./dockerd.ts";
import { startKubeStandin, type KubeStandin } from "./kube-standin.ts";

/** A real cluster's kubeconfig (the kind job sets it); unset: the stand-in. */
export const REAL_KUBECONFIG = process.env.PTYHUB_TEST_KUBECONFIG;
/** The image of the real cluster's test pod: a glibc Debian with a shell, as the stand-in's is. */
const REAL_POD_IMAGE = process.env.PTYHUB_TEST_POD_IMAGE ?? "debian:bookworm-slim";
/** How long a real cluster may take to pull the image and start the pod. */
const POD_READY_S = 300;

export interface PodWorld {
  /** "stand-in" or "cluster", for test names and messages. */
  where: string;
  kubeconfig: string;
  namespace: string;
  /** A running pod with bash (Debian bookworm), its one container named `app`. */
  pod: string;
  /** The stand-in only: a running pod whose container has a read-only root and no home to write (busybox). */
  readOnlyPod: string | null;
  /** A kubeconfig whose user has no rights (it impersonates one): the API server answers 403. */
  forbidden: { kubeconfig: string; pod: string };
  /** The stand-in only: a pod that answers 403 to everyone, as one RBAC keeps from this user. */
  forbiddenPod: string | null;
  /** A second running pod like `pod`, and how to delete it (its container killed with it). */
  extraPod(name: string): Promise<{ delete(): Promise<void> }>;
  /** Runs `sh -c script` in the pod, not through ptyhub (set-up and checks). */
  inside(script: string): Promise<{ code: number; out: string }>;
  /** The stand-in, when that is where the pods are (for the tests only it can do: cutting its connections). */
  standin: KubeStandin | null;
  stop(): Promise<void>;
}

/** Whether the pod tests can run here: a real cluster was given, or the container tests' needs are met. */
export function podTestsEnabled(): boolean {
  return REAL_KUBECONFIG !== undefined || containerTestsEnabled();
}

const POD = "ptyhub-pod";
const FORBIDDEN_POD = "ptyhub-forbidden";
const READ_ONLY_POD = "ptyhub-readonly";
/** The user a forbidden kubeconfig impersonates: one no role is bound to. */
const NOBODY = "ptyhub-test-nobody";

async function standinWorld(): Promise<PodWorld> {
  const dockerd = await startDockerd();
  let standin: KubeStandin | null = null;
  try {
    const image = await importBashImage(dockerd);
    const docker = "ptyhub-pod-app";
    await dockerd.dockerOk(["run", "-d", "-i", "--network", "none", "--name", docker, image, "/bin/sh"]);
    const readOnly = "ptyhub-pod-readonly";
    const busybox = await importBusyboxImage(dockerd);
    await dockerd.dockerOk([
      "run",
      "-d",
      "-i",
      "--read-only",
      "--network",
      "none",
      "--name",
      readOnly,
      busybox,
      "/bin/sh",
    ]);
    standin = await startKubeStandin(dockerd.socket);
    standin.addPod({ namespace: "ptyhub", name: POD, containers: ["app"], docker: { app: docker } });
    standin.addPod({ namespace: "ptyhub", name: READ_ONLY_POD, containers: ["app"], docker: { app: readOnly } });
    standin.forbidden.add(FORBIDDEN_POD);
    const kubeconfig = standin.writeKubeconfig(scratchDir("kube-"), "ptyhub");
    const s = standin;
    return {
      where: "stand-in",
      kubeconfig,
      namespace: "ptyhub",
      pod: POD,
      readOnlyPod: READ_ONLY_POD,
      forbidden: { kubeconfig: s.writeKubeconfig(scratchDir("kube-"), "ptyhub", NOBODY), pod: POD },
      forbiddenPod: FORBIDDEN_POD,
      inside: (script) => dockerd.docker(["exec", docker, "sh", "-c", script]),
      async extraPod(name) {
        const backing = `ptyhub-pod-${name}`;
        await dockerd.dockerOk(["run", "-d", "-i", "--network", "none", "--name", backing, image, "/bin/sh"]);
        s.addPod({ namespace: "ptyhub", name, containers: ["app"], docker: { app: backing } });
        return {
          async delete() {
            s.removePod("ptyhub", name);
            await dockerd.dockerOk(["rm", "-f", backing]);
          },
        };
      },
      standin: s,
      async stop() {
        s.stop();
        await dockerd.stop();
      },
    };
  } catch (err) {
    standin?.stop();
    await dockerd.stop();
    throw err;
  }
}

async function kubectl(kubeconfig: string, args: string[], stdin?: string) {
  const r = await run(["kubectl", "--kubeconfig", kubeconfig, ...args], { stdin });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${r.code}): ${r.err}`);
  return r.out;
}

/** Creates a pod of the test image in `default` and waits until it is ready. */
async function createPod(kubeconfig: string, name: string): Promise<void> {
  const manifest = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: {
      terminationGracePeriodSeconds: 0,
      containers: [{ name: "app", image: REAL_POD_IMAGE, command: ["sleep", "infinity"] }],
    },
  };
  await kubectl(kubeconfig, ["apply", "-f", "-"], JSON.stringify(manifest));
  await kubectl(kubeconfig, ["wait", "--for=condition=Ready", `pod/${name}`, `--timeout=${POD_READY_S}s`]);
}

async function clusterWorld(kubeconfig: string): Promise<PodWorld> {
  const namespace = "default";
  await createPod(kubeconfig, POD);
  // A user with no RBAC rights at all, by impersonation (the kubeconfig's `as`): every request is 403.
  const config = JSON.parse(await kubectl(kubeconfig, ["config", "view", "--raw", "--minify", "-o", "json"]));
  for (const u of config.users) u.user.as = NOBODY;
  const forbidden = join(scratchDir("kube-"), "forbidden-kubeconfig");
  writeFileSync(forbidden, JSON.stringify(config));
  return {
    where: "cluster",
    kubeconfig,
    namespace,
    pod: POD,
    readOnlyPod: null,
    forbidden: { kubeconfig: forbidden, pod: POD },
    forbiddenPod: null,
    async inside(script) {
      const r = await run(["kubectl", "--kubeconfig", kubeconfig, "exec", POD, "-c", "app", "--", "sh", "-c", script]);
      return { code: r.code, out: r.out };
    },
    async extraPod(name) {
      await createPod(kubeconfig, name);
      return {
        async delete() {
          await kubectl(kubeconfig, ["delete", "pod", name, "--grace-period=0", "--force", "--wait=false"]);
        },
      };
    },
    standin: null,
    async stop() {
      await kubectl(kubeconfig, ["delete", "pod", POD, "--grace-period=0", "--force", "--wait=false"]);
    },
  };
}

export function startPodWorld(): Promise<PodWorld> {
  if (REAL_KUBECONFIG !== undefined) {
    readFileSync(REAL_KUBECONFIG); // A missing file is this run's mistake: say so at once.
    return clusterWorld(REAL_KUBECONFIG);
  }
  return standinWorld();
}
