/**
 * The sessions of one host (this process now; the daemon later): creation with validation and
 * limits, lookup, the default `main` session, idle expiry, and ending them all on shutdown.
 */
import { AppError } from "../errors.ts";
import type { Config } from "../config.ts";
import { openBackend, type BackendSpec } from "../backend/index.ts";
import type { SshParams } from "../backend/ssh.ts";
import type { Elicit } from "../elicit.ts";
import type { CloseSignal } from "../backend/backend.ts";
import { killSessionsNow } from "../backend/process-tree.ts";
import { newNonce } from "../terminal/shell-integration.ts";
import { render, type Truncation } from "../terminal/render.ts";
import { logger } from "../log.ts";
import { Session } from "./session.ts";
import { waitFor } from "./wait.ts";
import { region } from "./output.ts";
import { PROMPT_QUIET_MS, SETTLE_QUIET_MS, NOTHING_SETTLE_MS } from "./send.ts";
import { looksLikePrompt } from "../terminal/classify.ts";
import { waitForPromptDrawn } from "./ready.ts";
import type { HostEvent } from "./host.ts";
import { Emitter } from "../util/emitter.ts";

const log = logger("manager");

export const SESSION_ID_RE = /^[A-Za-z0-9._-]{1,64}$/;
export const DEFAULT_SESSION = "main";
/** How often idle sessions are looked for (the timeout itself is configurable). */
const IDLE_SWEEP_MS = 30_000;
/** Read cursors of clients not seen for this long are forgotten (the latest one is always kept). */
const CURSOR_IDLE_MS = 10 * 60_000;
/** How many closed session ids are remembered so that closing them again succeeds. */
const CLOSED_MEMORY = 256;
/** At open, the first prompt's B mark usually follows its A mark within microseconds. */
const PROMPT_DRAW_AT_OPEN_MS = 300;
/** Output budget of term_open's start-up output. */
const OPEN_OUTPUT_TOKENS = 2000;

export interface OpenParams {
  command?: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  name?: string;
  cols?: number;
  rows?: number;
  persistent?: boolean;
  /** Open over SSH: command/args/cwd/env then apply on the remote host. */
  ssh?: SshParams;
}

export interface OpenResult {
  session: string;
  kind: string;
  target: string;
  pid: number | null;
  cols: number;
  rows: number;
  persistent: boolean;
  shell_integration: boolean;
  attach: string | null;
  state: string;
  via: string;
  output: string;
  truncated: Truncation | null;
}

export interface SessionInfo {
  session: string;
  kind: string;
  target: string;
  state: string;
  alive: boolean;
  exit_code: number | null;
  persistent: boolean;
  idle_ms: number;
  created_at: string;
  cols: number;
  rows: number;
  attached: boolean;
  pid: number | null;
  cwd: string | null;
}

export function validateSessionId(id: string): void {
  if (!SESSION_ID_RE.test(id)) {
    throw new AppError("INVALID_ARGUMENT", `invalid session id '${id.length > 80 ? id.slice(0, 80) + "…" : id}'`, "Session ids are 1–64 characters of letters, digits, '.', '_' and '-'.");
  }
}

export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  private readonly opening = new Set<string>();
  private defaultOpening: Promise<Session> | null = null;
  private readonly sweeper: ReturnType<typeof setInterval>;
  private nextAuto = 1;
  private readonly events = new Emitter<HostEvent>();
  /** Recently closed sessions and their exit codes: closing one again succeeds. */
  private readonly closed = new Map<string, number | null>();

  constructor(
    private readonly config: Config,
    /** Whether sessions opened here survive the MCP server (true inside the daemon). */
    private readonly persistentHost = false,
  ) {
    this.sweeper = setInterval(() => void this.closeIdle(), IDLE_SWEEP_MS);
    this.sweeper.unref?.();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Sessions opened, closed, finishing commands or exiting. */
  subscribeEvents(listener: (event: HostEvent) => void): () => void {
    return this.events.on(listener);
  }

  get(id: string): Session {
    validateSessionId(id);
    const s = this.sessions.get(id);
    if (!s) {
      const known = [...this.sessions.keys()].slice(0, 10).join(", ") || "none";
      throw new AppError("SESSION_NOT_FOUND", `no session '${id}'`, `Open it with term_open, or pick one from term_list (sessions: ${known}).`);
    }
    s.touch();
    return s;
  }

  /** The default shell session: opened on first use, and again if it has exited. */
  async defaultSession(signal?: AbortSignal): Promise<Session> {
    const existing = this.sessions.get(DEFAULT_SESSION);
    if (existing && !existing.exit) return existing;
    if (!this.defaultOpening) {
      this.defaultOpening = (async () => {
        if (existing) await this.close(DEFAULT_SESSION).catch(() => undefined);
        await this.open({ name: DEFAULT_SESSION }, "internal", signal);
        return this.sessions.get(DEFAULT_SESSION)!;
      })().finally(() => {
        this.defaultOpening = null;
      });
    }
    return this.defaultOpening;
  }

  /** `elicit` asks the human (SSH passphrases and passwords); absent when the client cannot. */
  async open(p: OpenParams, clientId: string, signal?: AbortSignal, elicit?: Elicit): Promise<OpenResult> {
    const id = p.name ?? this.autoName();
    validateSessionId(id);
    this.closed.delete(id);
    if (this.sessions.has(id) || this.opening.has(id)) {
      throw new AppError("SESSION_EXISTS", `session '${id}' already exists`, "Use it as it is, close it with term_close first, or pick another name.");
    }
    if (this.sessions.size + this.opening.size >= this.config.max_sessions) {
      throw new AppError("SESSION_LIMIT", `session limit reached (${this.config.max_sessions})`, "Close sessions you no longer need (term_list, term_close), or raise PTYHUB_MAX_SESSIONS.");
    }
    const cols = p.cols ?? this.config.cols;
    const rows = p.rows ?? this.config.rows;
    const program = { command: p.command, args: p.args, cwd: p.cwd, env: p.env, sessionId: id, nonce: newNonce(), cols, rows };
    const spec: BackendSpec = p.ssh ? { kind: "ssh", ssh: p.ssh, ...program } : { kind: "local", ...program };
    this.opening.add(id);
    let session: Session;
    let description: string;
    try {
      const started = await openBackend(spec, { elicit, signal, config: this.config });
      description = started.description;
      session = new Session({
        id,
        kind: started.kind,
        target: started.target,
        backend: started.backend,
        cols,
        rows,
        integration: started.integration,
        family: started.family,
        nonce: program.nonce,
        persistent: this.persistentHost,
      });
      session.cwd = started.cwd;
      this.sessions.set(id, session);
      session.onEvent((kind) => this.events.emit({ session: id, kind }));
      this.events.emit({ session: id, kind: "opened" });
    } finally {
      this.opening.delete(id);
    }
    log.info(`opened ${id}: ${description}`);

    const start = { row: 0, col: 0, prefix: "", lineNo: 1 };
    const via = await this.waitUntilReady(session, signal);
    await waitForPromptDrawn(session, PROMPT_DRAW_AT_OPEN_MS, signal, true);
    const rendered = render(region(session, start, null).items, OPEN_OUTPUT_TOKENS, (t) => session.redact(t));
    session.setCursor(clientId, session.emulator.cursorPos());
    return {
      session: id,
      kind: session.kind,
      target: session.target,
      pid: session.pid,
      cols,
      rows,
      persistent: session.persistent,
      shell_integration: session.integration === "shell",
      attach: session.persistent ? `ptyhub attach ${id}` : null,
      state: session.state(),
      via,
      output: rendered.output,
      truncated: rendered.truncated,
    };
  }

  /** Until the first prompt (shells), a prompt-looking pause or a settle (programs), or exit. */
  private async waitUntilReady(session: Session, signal?: AbortSignal): Promise<string> {
    const started = Date.now();
    const outcome = await waitFor<string>(
      session,
      () => {
        if (session.integration !== "none" && session.phase !== "starting") return { done: session.integration === "shell" ? "shell" : "marker" };
        if (session.exit) return { done: "exit" };
        if (session.integration !== "none") return null;
        const quietFor = Date.now() - session.lastOutputAt;
        if (session.emulator.bytesIn === 0) {
          const waited = Date.now() - started;
          return waited >= NOTHING_SETTLE_MS ? { done: "settle" } : { retryInMs: NOTHING_SETTLE_MS - waited };
        }
        if (looksLikePrompt(session.emulator.textBeforeCursor())) {
          return quietFor >= PROMPT_QUIET_MS ? { done: "prompt" } : { retryInMs: PROMPT_QUIET_MS - quietFor };
        }
        return quietFor >= SETTLE_QUIET_MS ? { done: "settle" } : { retryInMs: SETTLE_QUIET_MS - quietFor };
      },
      { timeoutMs: this.config.open_timeout_ms, signal },
    );
    return outcome;
  }

  list(): SessionInfo[] {
    const now = Date.now();
    return [...this.sessions.values()].map((s) => ({
      session: s.id,
      kind: s.kind,
      target: s.target,
      state: s.state(),
      alive: s.alive,
      exit_code: s.exit?.exitCode ?? null,
      persistent: s.persistent,
      idle_ms: now - s.lastActivityAt,
      created_at: new Date(s.createdAt).toISOString(),
      cols: s.cols,
      rows: s.rows,
      attached: s.attached > 0,
      pid: s.pid,
      cwd: s.cwd,
    }));
  }

  async close(id: string, signal?: CloseSignal): Promise<{ session: string; closed: true; exit_code: number | null }> {
    validateSessionId(id);
    if (!this.sessions.has(id) && this.closed.has(id)) return { session: id, closed: true, exit_code: this.closed.get(id) ?? null };
    const s = this.get(id);
    const info = await s.close(signal);
    this.sessions.delete(id);
    this.events.emit({ session: id, kind: "closed" });
    s.dispose();
    this.closed.set(id, info.exitCode);
    if (this.closed.size > CLOSED_MEMORY) this.closed.delete(this.closed.keys().next().value!);
    log.info(`closed ${id}: ${info.reason}`);
    return { session: id, closed: true, exit_code: info.exitCode };
  }

  /** Ends every session (server shutdown): politely, then by force. */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.sessions.keys()];
    await Promise.allSettled(all.map((id) => this.close(id, "HUP")));
  }

  /** Synchronous last resort when the process is about to exit. */
  killAllNow(): void {
    killSessionsNow([...this.sessions.values()].map((s) => s.pid).filter((p): p is number => p !== null));
  }

  /** Closes sessions idle longer than the configured timeout (runs every IDLE_SWEEP_MS). */
  async closeIdle(): Promise<void> {
    const now = Date.now();
    for (const s of [...this.sessions.values()]) {
      s.pruneCursors(CURSOR_IDLE_MS);
      if (now - s.lastActivityAt > this.config.idle_timeout_ms && s.attached === 0 && s.execOwner === null) {
        log.info(`closing idle session ${s.id}`);
        await this.close(s.id).catch((err) => log.warn(`closing idle ${s.id} failed`, err));
      }
    }
  }

  private autoName(): string {
    for (;;) {
      const id = `t${this.nextAuto++}`;
      if (!this.sessions.has(id) && !this.opening.has(id)) return id;
    }
  }
}
