/**
 * Tasks of one MCP client (SEP-2663, the `io.modelcontextprotocol/tasks` extension): what
 * `tasks/get` reports for each id, and when a task is forgotten. A task that still holds a running
 * command never expires (the command is bounded by its own timeout_ms); once it has ended, or while
 * it waits for the human, it is kept `ttlMs` after its last change, then forgotten: a poll for it
 * gets "unknown task".
 */
import { randomUUID } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A question for the human, as `inputRequests` carries it (an elicitation form, MRTR style). */
export interface InputRequest {
  method: "elicitation/create";
  params:
    | { mode: "form"; message: string; requestedSchema: Record<string, unknown> }
    | { mode: "url"; message: string; url: string; elicitationId: string };
}

/** What `tasks/get` shows of a task (timestamps as ISO strings, as Claude Code reads them). */
export interface TaskSnapshot {
  taskId: string;
  status: TaskStatus;
  statusMessage: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  result?: CallToolResult;
  error?: { code: number; message: string };
  inputRequests?: Record<string, InputRequest>;
}

export interface TaskTiming {
  ttlMs: number;
  pollIntervalMs: number;
}

export class Task {
  readonly id = randomUUID();
  readonly createdAt = Date.now();
  lastUpdatedAt = this.createdAt;
  status: TaskStatus = "working";
  statusMessage: string;
  result?: CallToolResult;
  error?: { code: number; message: string };
  inputRequests?: Record<string, InputRequest>;

  constructor(
    readonly timing: TaskTiming,
    statusMessage: string,
  ) {
    this.statusMessage = statusMessage;
  }

  get ended(): boolean {
    return this.status === "completed" || this.status === "failed" || this.status === "cancelled";
  }

  /** Moves the task on; an ended task never changes again (a late outcome after a cancel is dropped). */
  update(change: Partial<Pick<Task, "status" | "statusMessage" | "result" | "error" | "inputRequests">>): boolean {
    if (this.ended) return false;
    Object.assign(this, change);
    if (change.status !== undefined && change.status !== "input_required") this.inputRequests = undefined;
    this.lastUpdatedAt = Date.now();
    return true;
  }

  snapshot(): TaskSnapshot {
    return {
      taskId: this.id,
      status: this.status,
      statusMessage: this.statusMessage,
      createdAt: new Date(this.createdAt).toISOString(),
      lastUpdatedAt: new Date(this.lastUpdatedAt).toISOString(),
      ttlMs: this.timing.ttlMs,
      pollIntervalMs: this.timing.pollIntervalMs,
      ...(this.status === "completed" && this.result ? { result: this.result } : {}),
      ...(this.status === "failed" && this.error ? { error: this.error } : {}),
      ...(this.status === "input_required" && this.inputRequests ? { inputRequests: this.inputRequests } : {}),
    };
  }
}

/** The tasks of one client, by id. */
export class TaskStore {
  private readonly tasks = new Map<string, Task>();

  constructor(private readonly now: () => number = Date.now) {}

  add(task: Task): void {
    this.sweep();
    this.tasks.set(task.id, task);
  }

  get(id: string): Task | undefined {
    this.sweep();
    return this.tasks.get(id);
  }

  get size(): number {
    this.sweep();
    return this.tasks.size;
  }

  /** Forgets the tasks whose ttl ran out; a working task holds a live command and is kept. */
  private sweep(): void {
    const now = this.now();
    for (const [id, t] of this.tasks) {
      if (t.status !== "working" && now - t.lastUpdatedAt > t.timing.ttlMs) this.tasks.delete(id);
    }
  }
}
