/**
 * deploy/kubernetes/ptyhub.yaml without a cluster (none can run here): it parses (Bun's YAML),
 * every document has what kubectl needs (apiVersion, kind, metadata.name, spec), and its parts
 * agree with each other and with deploy/Dockerfile and the server: the probe asks the server's
 * health path on the container's port, the port and state directory are the image's, the token
 * comes from a Secret, the state volume is the claim declared here, the Service is ClusterIP and
 * selects the pod.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { HEALTH_PATH } from "../../src/mcp/http-health.ts";
import { HTTP_TOKEN_ENV } from "../../src/config/http-token.ts";

const DEPLOY = join(import.meta.dir, "..", "..", "deploy");
const MANIFEST = readFileSync(join(DEPLOY, "kubernetes", "ptyhub.yaml"), "utf8");
const DOCKERFILE = readFileSync(join(DEPLOY, "Dockerfile"), "utf8");

const Labels = z.record(z.string(), z.string());
/** What kubectl needs of any object. */
const KubeObject = z.object({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  metadata: z.object({ name: z.string().min(1), labels: Labels.optional() }),
  spec: z.record(z.string(), z.unknown()),
});

const EnvVar = z.object({
  name: z.string(),
  value: z.string().optional(),
  valueFrom: z.object({ secretKeyRef: z.object({ name: z.string(), key: z.string() }) }).optional(),
});
const Probe = z.object({ httpGet: z.object({ path: z.string(), port: z.union([z.string(), z.number()]) }) });
const Container = z.object({
  image: z.string(),
  args: z.array(z.string()),
  env: z.array(EnvVar),
  ports: z.array(z.object({ name: z.string(), containerPort: z.number() })),
  readinessProbe: Probe,
  volumeMounts: z.array(z.object({ name: z.string(), mountPath: z.string() })),
});
const DeploymentSpec = z.object({
  replicas: z.number(),
  selector: z.object({ matchLabels: Labels }),
  template: z.object({
    metadata: z.object({ labels: Labels }),
    spec: z.object({
      securityContext: z.object({ runAsNonRoot: z.literal(true), runAsUser: z.number(), fsGroup: z.number() }),
      containers: z.array(Container).length(1),
      volumes: z.array(
        z.object({
          name: z.string(),
          persistentVolumeClaim: z.object({ claimName: z.string() }).optional(),
          emptyDir: z.object({}).optional(),
        }),
      ),
    }),
  }),
});
const ServiceSpec = z.object({
  type: z.string(),
  selector: Labels,
  ports: z.array(z.object({ port: z.number(), targetPort: z.union([z.string(), z.number()]) })),
});

const docs = z.array(KubeObject).parse(Bun.YAML.parse(MANIFEST));
const byKind = (kind: string) => docs.filter((d) => d.kind === kind);
const deployment = byKind("Deployment")[0]!;
const pod = DeploymentSpec.parse(deployment.spec).template.spec;
const container = pod.containers[0]!;
const envValue = (name: string) => container.env.find((e) => e.name === name)?.value;

/** `NAME=value` from the Dockerfile's ENV lines, or an ARG's default. */
function dockerfileSetting(name: string): string | undefined {
  return new RegExp(`\\b${name}=(\\S+)`).exec(DOCKERFILE)?.[1];
}

/** Whether every label of `selector` is on `labels`. */
function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

test("the manifest parses into a claim, a Deployment and a Service, each with what kubectl needs", () => {
  expect(docs.map((d) => d.kind).sort()).toEqual(["Deployment", "PersistentVolumeClaim", "Service"]);
  const spec = DeploymentSpec.parse(deployment.spec);
  expect(spec.replicas).toBe(1);
  expect(selects(spec.selector.matchLabels, spec.template.metadata.labels)).toBe(true);
});

test("the container serves MCP over HTTP on the image's port, with the token from a Secret", () => {
  expect(container.args.slice(0, 2)).toEqual(["serve", "--http"]);
  const port = container.ports[0]!;
  expect(envValue("PTYHUB_HTTP_PORT")).toBe(String(port.containerPort));
  expect(dockerfileSetting("PTYHUB_HTTP_PORT")).toBe(String(port.containerPort));
  const token = container.env.find((e) => e.name === HTTP_TOKEN_ENV);
  expect(token?.valueFrom?.secretKeyRef.key).toBeTruthy();
  expect(token?.value).toBeUndefined();
  expect(pod.securityContext.runAsUser).toBe(Number(dockerfileSetting("PTYHUB_UID")));
});

test("readiness is the server's health path on the container's port", () => {
  const probe = container.readinessProbe.httpGet;
  expect(probe.path).toBe(HEALTH_PATH);
  const port = container.ports[0]!;
  expect([port.name, port.containerPort]).toContain(probe.port);
});

test("the state directory is on the claim declared here", () => {
  const stateHome = envValue("XDG_STATE_HOME");
  expect(stateHome).toBe(dockerfileSetting("XDG_STATE_HOME"));
  const mount = container.volumeMounts.find((m) => m.mountPath === stateHome);
  const volume = pod.volumes.find((v) => v.name === mount?.name);
  expect(volume?.persistentVolumeClaim?.claimName).toBe(byKind("PersistentVolumeClaim")[0]!.metadata.name);
});

test("the Service is ClusterIP (inside the cluster only) and reaches the pod's MCP port", () => {
  const service = ServiceSpec.parse(byKind("Service")[0]!.spec);
  expect(service.type).toBe("ClusterIP");
  expect(selects(service.selector, DeploymentSpec.parse(deployment.spec).template.metadata.labels)).toBe(true);
  const port = container.ports[0]!;
  expect([port.name, port.containerPort]).toContain(service.ports[0]!.targetPort);
});
