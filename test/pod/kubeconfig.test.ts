/**
 * The kubeconfig read as kubectl reads it (pod.kubeconfig, then $KUBECONFIG's list, then
 * ~/.kube/config; the context's namespace, else `default`), its errors, and the exec Status's
 * exit code: deterministic logic over files written here, no server.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "../../src/api/errors.ts";
import { kubeTarget } from "../../src/backend/pod/kubeconfig.ts";
import { execEnd } from "../../src/backend/pod/pod-exec.ts";
import { scratchDir } from "../ssh/sshd.ts";

function kubeconfig(dir: string, file: string, contexts: { name: string; server: string; namespace?: string }[]) {
  const path = join(dir, file);
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: contexts.map((c) => ({ name: c.name, cluster: { server: c.server } })),
    users: [{ name: "u", user: { token: "t" } }],
    contexts: contexts.map((c) => ({
      name: c.name,
      context: { cluster: c.name, user: "u", ...(c.namespace ? { namespace: c.namespace } : {}) },
    })),
    "current-context": contexts[0]?.name,
  };
  writeFileSync(path, JSON.stringify(config));
  return path;
}

function failure(f: () => unknown): AppError {
  try {
    f();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("expected an AppError");
}

describe("kubeconfig as kubectl reads it", () => {
  test("~/.kube/config when KUBECONFIG is unset; the context's namespace; pod.namespace over it", () => {
    const home = scratchDir("home-");
    mkdirSync(join(home, ".kube"));
    kubeconfig(join(home, ".kube"), "config", [{ name: "a", server: "https://a.example:6443", namespace: "team" }]);
    const t = kubeTarget({ name: "p" }, { HOME: home });
    expect(t).toMatchObject({ server: "https://a.example:6443", namespace: "team" });
    expect(kubeTarget({ name: "p", namespace: "other" }, { HOME: home }).namespace).toBe("other");
  });

  test("KUBECONFIG's files merged, the first one's current context wins; missing files skipped; pod.context", () => {
    const dir = scratchDir("kube-");
    const first = kubeconfig(dir, "one", [{ name: "one", server: "https://one.example" }]);
    const second = kubeconfig(dir, "two", [{ name: "two", server: "https://two.example", namespace: "ns2" }]);
    const env = { HOME: dir, KUBECONFIG: [join(dir, "absent"), first, second].join(":") };
    expect(kubeTarget({ name: "p" }, env)).toMatchObject({ server: "https://one.example", namespace: "default" });
    expect(kubeTarget({ name: "p", context: "two" }, env)).toMatchObject({
      server: "https://two.example",
      namespace: "ns2",
    });
    const unknown = failure(() => kubeTarget({ name: "p", context: "three" }, env));
    expect(unknown.code).toBe("CONTAINER_UNAVAILABLE");
    expect(unknown.message).toContain("one, two");
  });

  test("no kubeconfig anywhere, or a pod.kubeconfig that is not there: CONTAINER_UNAVAILABLE with a hint", () => {
    const empty = scratchDir("home-");
    const none = failure(() => kubeTarget({ name: "p" }, { HOME: empty }));
    expect(none.code).toBe("CONTAINER_UNAVAILABLE");
    expect(none.hint).toContain("KUBECONFIG");
    const absent = failure(() => kubeTarget({ name: "p", kubeconfig: join(empty, "nope") }, { HOME: empty }));
    expect(absent.message).toContain("does not exist");
    expect(failure(() => kubeTarget({ name: "p", kubeconfig: "kube/config" }, { HOME: empty })).code).toBe(
      "INVALID_ARGUMENT",
    );
    const allMissing = failure(() => kubeTarget({ name: "p" }, { HOME: empty, KUBECONFIG: join(empty, "x") }));
    expect(allMissing.message).toContain("none of KUBECONFIG's files");
  });
});

describe("the exec Status (channel 3)", () => {
  test("Success is 0; NonZeroExitCode carries the code; any other failure has none, with its message", () => {
    expect(execEnd({ status: "Success" })).toEqual({ exitCode: 0 });
    const failed = {
      status: "Failure",
      reason: "NonZeroExitCode",
      details: { causes: [{ reason: "ExitCode", message: "42" }] },
    };
    expect(execEnd(failed)).toEqual({ exitCode: 42 });
    expect(execEnd({ status: "Failure", message: "container not found" })).toEqual({
      exitCode: null,
      message: "container not found",
    });
  });
});
