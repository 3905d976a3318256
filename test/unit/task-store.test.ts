/** Task bookkeeping: snapshots, ended tasks never change, expiry after ttlMs (a clock under test control). */
import { describe, expect, test } from "bun:test";
import { Task, TaskStore } from "../../src/mcp/tasks/task-store.ts";

const TIMING = { ttlMs: 1000, pollIntervalMs: 500 };

describe("TaskStore", () => {
  test("an ended task is forgotten ttlMs after its last change; a working one is kept", () => {
    let now = 0;
    const store = new TaskStore(() => now);
    const working = new Task(TIMING, "runs");
    const ended = new Task(TIMING, "runs");
    store.add(working);
    store.add(ended);
    ended.update({ status: "completed", result: { content: [] } });
    now = ended.lastUpdatedAt + TIMING.ttlMs;
    expect(store.get(ended.id)).toBe(ended);
    now += 1;
    expect(store.get(ended.id)).toBeUndefined();
    now += 10 * TIMING.ttlMs;
    expect(store.get(working.id)).toBe(working);
  });

  test("a task waiting for input expires too", () => {
    let now = 0;
    const store = new TaskStore(() => now);
    const t = new Task(TIMING, "runs");
    store.add(t);
    t.update({ status: "input_required", inputRequests: {} });
    now = t.lastUpdatedAt + TIMING.ttlMs + 1;
    expect(store.size).toBe(0);
  });

  test("an ended task keeps its outcome: a late completion after a cancel is dropped", () => {
    const t = new Task(TIMING, "runs");
    expect(t.update({ status: "cancelled", statusMessage: "cancelled" })).toBe(true);
    expect(t.update({ status: "completed", result: { content: [] } })).toBe(false);
    expect(t.snapshot()).toMatchObject({ status: "cancelled", statusMessage: "cancelled" });
    expect(t.snapshot()).not.toHaveProperty("result");
  });

  test("a snapshot shows the result only when completed, the questions only while asking", () => {
    const t = new Task(TIMING, "runs");
    const q = {
      method: "elicitation/create" as const,
      params: { mode: "form" as const, message: "?", requestedSchema: {} },
    };
    t.update({ status: "input_required", inputRequests: { answer: q } });
    expect(t.snapshot().inputRequests).toEqual({ answer: q });
    t.update({ status: "working" });
    expect(t.snapshot()).not.toHaveProperty("inputRequests");
    t.update({ status: "completed", result: { content: [{ type: "text", text: "ok" }] } });
    const s = t.snapshot();
    expect(s.result?.content).toEqual([{ type: "text", text: "ok" }]);
    expect(typeof s.createdAt).toBe("string");
    expect(s).toMatchObject({ ttlMs: 1000, pollIntervalMs: 500 });
  });
});
