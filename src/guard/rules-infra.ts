/**
 * The `infra-destroy` rule: commands that tear down infrastructure others depend on, which no
 * undo brings back — a Kubernetes namespace or everything of a kind, a Terraform/OpenTofu/Pulumi
 * stack, a cloud bucket's contents, a cloud resource, a Helm release, Docker's volumes.
 */
import type { Rule } from "./rule-types.ts";
import type { SimpleCommand } from "./parse.ts";
import { options } from "./options.ts";

/** kubectl resource kinds whose deletion takes everything inside with it. */
const KUBE_WHOLE =
  /^(namespaces?|ns|projects?|nodes?|no|persistentvolumes?|pv|customresourcedefinitions?|crds?)(\/.*)?$/i;
/** Kinds that hold data or credentials: deleting one loses what it stored, in any namespace. */
const KUBE_DATA = /^(statefulsets?|sts|persistentvolumeclaims?|pvc|secrets?|cronjobs?|cj)(\/.*)?$/i;
/** Namespaces that serve users: anything deleted there is an outage. */
const PROD_NAMESPACE = /^(prod|production|prd|live)([-_].*)?$/i;
/** kubectl's global options that take a value: skipped to find the verb. */
const KUBE_VALUED = new Set([
  "-n",
  "--namespace",
  "--context",
  "--kubeconfig",
  "--cluster",
  "-s",
  "--server",
  "--user",
]);
/** Infrastructure-as-code tools and the verbs that destroy a whole stack. */
const STACK_DESTROY: Record<string, RegExp> = {
  terraform: /^destroy$/,
  tofu: /^destroy$/,
  terragrunt: /^(destroy|run-all)$/,
  pulumi: /^(destroy|down)$/,
  cdk: /^destroy$/,
  cdktf: /^destroy$/,
  serverless: /^remove$/,
  sls: /^remove$/,
  sam: /^delete$/,
};
/** Cloud CLIs whose `… delete` verbs delete a resource (gcloud, az, doctl, …). */
const CLOUD_DELETERS = new Set([
  ...["gcloud", "az", "doctl", "linode-cli", "hcloud", "scw", "exo", "ibmcloud", "openstack", "oci", "eksctl"],
  ...["heroku", "fly", "flyctl", "vultr-cli", "civo", "influx", "firebase"],
]);
/** A cloud CLI's verbs that delete: `delete`, `destroy`, `apps:destroy`, `delete-batch`, `purge`. */
const CLOUD_DELETE_VERB = /^(delete|destroy|delete-batch|purge|[\w-]+:(destroy|delete|reset))$/;
/** aws's global options that take a value. */
const AWS_VALUED = new Set(["--profile", "--region", "--output", "--endpoint-url", "--query", "--ca-bundle"]);
/** Helm's verbs that remove a release (and what it installed). */
const HELM_REMOVE = /^(uninstall|delete|del|un)$/;

function words(args: string[]): string[] {
  return args.filter((a) => !a.startsWith("-"));
}

/** The verb and its arguments of a kubectl-like command, past global options. */
function kubeVerb(args: string[]): { verb: string; rest: string[] } | null {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) i += KUBE_VALUED.has(args[i]!) ? 2 : 1;
  return i < args.length ? { verb: args[i]!, rest: args.slice(i + 1) } : null;
}

/** The namespace a kubectl command names (`-n prod`, `--namespace=prod`, before or after the verb). */
function kubeNamespace(args: string[]): string | null {
  for (const [i, a] of args.entries()) {
    if (a === "-n" || a === "--namespace") return args[i + 1] ?? null;
    const joined = /^(-n|--namespace=)(.+)$/.exec(a);
    if (joined) return joined[2]!;
  }
  return null;
}

function kubectl(program: string, args: string[]): string | null {
  const k = kubeVerb(args);
  // `kubectl drain --force --delete-emptydir-data` evicts every pod and deletes their scratch data.
  if (k?.verb === "drain" && args.some((a) => /^--(force|delete-(emptydir|local)-data)$/.test(a))) {
    return `${program} drain --force evicts every pod of the node and deletes their local data`;
  }
  // `kubectl scale deploy --all --replicas=0`, or to zero in a production namespace: nothing serves.
  const toZero = args.some((a, i) => a === "--replicas=0" || (a === "--replicas" && args[i + 1] === "0"));
  if (k?.verb === "scale" && toZero) {
    const ns = kubeNamespace(args);
    if (args.includes("--all") || (ns !== null && PROD_NAMESPACE.test(ns))) {
      return `${program} scale --replicas=0 stops every pod it names${ns ? ` in ${ns}` : ""}`;
    }
  }
  // `kubectl patch deploy api -p '{"spec":{"replicas":0}}'`: scaled to nothing by a patch.
  if (k?.verb === "patch" && args.some((a) => /"replicas"\s*:\s*0\b/.test(a))) {
    return `${program} patch sets replicas to 0: nothing serves`;
  }
  if (k?.verb !== "delete") return null;
  // `--dry-run=client|server` only shows what would be deleted.
  if (args.some((a) => /^--dry-run(=(client|server))?$/.test(a))) return null;
  const o = options(k.rest);
  if (o.long.has("all") || k.rest.includes("-A") || o.long.has("all-namespaces")) {
    return `${program} delete --all deletes every resource of that kind`;
  }
  const kind = o.operands.find((w) => KUBE_WHOLE.test(w) || KUBE_DATA.test(w));
  if (kind) return `${program} delete ${kind} deletes it and what it holds`;
  // A whole directory of manifests (`-f dir -R`) or a kustomization (`-k`): everything they describe.
  if (o.short.has("R") || o.long.has("recursive") || o.short.has("k") || o.long.has("kustomize")) {
    return `${program} delete of a whole set of manifests deletes everything they describe`;
  }
  const ns = kubeNamespace(args);
  return ns && PROD_NAMESPACE.test(ns) ? `${program} delete in the ${ns} namespace takes down what serves users` : null;
}

/** `docker ps -aq`, `docker images -q`, `docker volume ls -q`: a listing of every container, image or volume. */
function listsEverything(argv: string[]): boolean {
  const w = words(argv.slice(1));
  return /^(docker|podman|nerdctl)$/.test(argv[0] ?? "") && /^(ps|images|ls)$/.test(w[w.length - 1] ?? w[0] ?? "");
}

function docker(program: string, args: string[], source: SimpleCommand, remote: boolean): string | null {
  const [group, verb] = words(args);
  // `ssh prod 'docker stop $(docker ps -q)'`: every container of a server stopped.
  const listed = source.nested.some((line) => line.pipelines.some((p) => p.some((c) => listsEverything(c.argv))));
  if (remote && listed && /^(stop|kill|pause)$/.test(group ?? "")) {
    return `${program} ${group} of every container on a remote host: an outage`;
  }
  // `docker rm -f $(docker ps -aq)`: every container (or image, volume) the listing printed.
  const removes = /^(rm|rmi)$/.test(group ?? "") || (/^(container|image|volume)$/.test(group ?? "") && verb === "rm");
  const everything = source.nested.some((line) => line.pipelines.some((p) => p.some((c) => listsEverything(c.argv))));
  if (removes && everything) return `${program} ${group} of everything a listing printed deletes them all`;
  const o = options(args);
  if (group === "system" && verb === "reset")
    return `${program} system reset deletes every container, image and volume`;
  if (group === "system" && verb === "prune" && o.long.has("volumes")) {
    return `${program} system prune --volumes deletes every unused volume and its data`;
  }
  if (group === "swarm" && verb === "leave" && o.long.has("force")) {
    return `${program} swarm leave --force takes the node (a manager too) out of the swarm`;
  }
  if (group === "stack" && /^(rm|remove|down)$/.test(verb ?? ""))
    return `${program} stack rm removes every service of the stack`;
  if (group === "volume" && (verb === "prune" || verb === "rm" || verb === "remove")) {
    return `${program} volume ${verb} deletes volumes and their data`;
  }
  const compose = group === "compose" || program === "docker-compose";
  const down = compose && words(args).includes("down");
  if (down && (o.short.has("v") || o.long.has("volumes"))) return `${program} compose down -v deletes the volumes`;
  return null;
}

function cloud(program: string, args: string[]): string | null {
  const w = words(args);
  const o = options(args);
  if (program === "aws") {
    // Global options' values (`--profile prod`) are not the service.
    const [service, op] = words(args.filter((_a, i) => !AWS_VALUED.has(args[i - 1] ?? "")));
    if (service === "s3" && op === "rm" && o.long.has("recursive"))
      return "aws s3 rm --recursive deletes a whole prefix";
    if (service === "s3" && op === "rb" && o.long.has("force"))
      return "aws s3 rb --force deletes a bucket and its objects";
    if (service === "s3" && op === "sync" && o.long.has("delete"))
      return "aws s3 sync --delete deletes what the source lacks";
    // `aws ecs update-service --desired-count 0`, an autoscaling group to 0: nothing left running.
    const zero = args.some((a, i) => /^--desired-(count|capacity)$/.test(a) && args[i + 1] === "0");
    if (zero) return `aws ${service} ${op} scales to zero: nothing left running`;
    if (/^(delete|terminate|remove|deregister|batch-delete)-|^schedule-key-deletion$/.test(op ?? "")) {
      return `aws ${service} ${op} deletes a cloud resource`;
    }
    return null;
  }
  if (program === "gsutil") {
    const verb = w[0];
    if (verb === "rm" && (o.short.has("r") || o.short.has("R") || o.short.has("a")))
      return "gsutil rm -r deletes a whole prefix";
    if (verb === "rb") return "gsutil rb deletes a bucket";
    return null;
  }
  if (CLOUD_DELETERS.has(program)) {
    const recursive = w.includes("rm") && (o.short.has("r") || o.long.has("recursive"));
    if (recursive) return `${program} … rm --recursive deletes a whole prefix`;
    const verb = w.find((x) => CLOUD_DELETE_VERB.test(x));
    return verb ? `${program} ${w.slice(0, w.indexOf(verb) + 1).join(" ")} deletes a cloud resource` : null;
  }
  return null;
}

/** Per tool, the words (in order) that delete what it hosts: `gh repo delete`, `vault secrets disable`. */
const PLATFORM_DELETES: Record<string, RegExp> = {
  gh: /^(repo|release) delete\b/,
  glab: /^(repo|release) delete\b/,
  vault: /^(secrets disable|kv (metadata delete|destroy|delete)|delete)\b/,
  nomad: /^job stop\b.*\bpurge\b|^(job|namespace) (purge|delete)\b/,
  argocd: /^(app|proj|cluster) delete\b/,
  flux: /^(uninstall|delete)\b/,
  vagrant: /^destroy\b/,
  minikube: /^delete\b/,
  kind: /^delete cluster/,
  k3d: /^cluster delete\b/,
  vercel: /^(remove|rm)\b/,
  netlify: /^sites:delete\b/,
  // Object stores' own clients: a bucket purged or emptied, recursively.
  rclone: /^(purge|delete|deletefile|rmdirs)\b/,
  s3cmd: /^(rb|del|rm)\b.*\b(recursive|force)\b|^rb\b/,
  mc: /^(rb|rm)\b.*\b(recursive|force)\b/,
  wrangler: /^(delete|r2 bucket delete|d1 delete|kv:namespace delete|kv namespace delete)\b/,
  multipass: /^(delete\b.*\bpurge|purge)\b/,
  lxc: /^delete\b/,
  incus: /^delete\b/,
  kubeadm: /^reset\b/,
  // `virsh destroy` pulls the virtual machine's plug: what it had not written is lost.
  virsh: /^(undefine\b.*\bremove-all-storage|vol-delete|pool-delete|destroy)\b/,
};

function platformDelete(program: string, args: string[]): string | null {
  const deletes = PLATFORM_DELETES[program];
  if (!deletes) return null;
  const w = words(args);
  // The verbs are matched without options; `-purge`, `--remove-all-storage` with them.
  const hit = deletes.test(w.join(" ")) || deletes.test(args.join(" "));
  return hit ? `${program} ${w.slice(0, 2).join(" ")} deletes what it hosts` : null;
}

export const INFRA_RULE: Rule = {
  id: "infra-destroy",
  summary:
    "tearing down infrastructure: kubectl delete namespace/--all, terraform/tofu/pulumi destroy, " +
    "aws s3 rm --recursive, gcloud/az … delete, helm uninstall, docker volume/system prune --volumes",
  check({ inv }) {
    const [program = "", ...args] = inv.argv;
    if (program === "kubectl" || program === "oc" || program === "k") return kubectl(program, args);
    if (program === "docker" || program === "podman" || program === "docker-compose" || program === "nerdctl") {
      return docker(program, args, inv.source, inv.remote === true);
    }
    const stack = STACK_DESTROY[program];
    if (stack) {
      const w = words(args);
      const destroys = w.some((x) => stack.test(x)) && (program !== "terragrunt" || w.includes("destroy"));
      const applyDestroy = w[0] === "apply" && args.includes("-destroy");
      if (program === "pulumi" && w[0] === "stack" && w[1] === "rm")
        return "pulumi stack rm deletes the stack and its state";
      // `terraform state rm`, `workspace delete`: the state that tracks real resources is lost.
      if ((w[0] === "state" && w[1] === "rm") || (w[0] === "workspace" && w[1] === "delete")) {
        return `${program} ${w[0]} ${w[1]} forgets resources that still exist`;
      }
      if (destroys || applyDestroy) return `${program} destroy deletes every resource of the stack`;
      return null;
    }
    if (program === "helm" && HELM_REMOVE.test(words(args)[0] ?? "")) {
      return "helm uninstall removes the release and what it installed";
    }
    const platform = platformDelete(program, args);
    if (platform) return platform;
    return cloud(program, args);
  },
};
