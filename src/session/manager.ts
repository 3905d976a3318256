/**
 * The sessions of one host (this process now; the daemon later): creation with validation and
 * limits, lookup, the default `main` session, idle expiry, and ending them all on shutdown.
 */
import type { listOutput } from "../api/methods/list.ts";
import type { openOutput } from "../api/methods/open.ts";
import { CLOSE_SIGNALS, type closeOutput } from "../api/methods/close.ts";
import type { z } from "zod";
import { Secrets } from "./redaction.ts";
import { AppError } from "../api/errors.ts";
import type { Config } from "../config/config.ts";
import type { OpenParams } from "../backend/descriptor.ts";
import { kindDescriptor, kindOfParams } from "../backend/registry/kinds.ts";
import { sandboxRefusal } from "../backend/descriptor.ts";
import type { Elicit } from "../api/elicit.ts";
import type { CloseSignal } from "../backend/backend.ts";
import { killSessionsNow } from "../util/process-tree.ts";
import { newNonce } from "../terminal/shell-integration.ts";
import { render } from "../terminal/render.ts";
import { logger } from "../log.ts";
import { Session } from "./session.ts";
import { fetchableFrom, region } from "../terminal/output-region.ts";
import { waitForPromptDrawn } from "./ready.ts";
import { awaitCompletion, viaOf, type Verdict } from "./completion.ts";
import type { HostEvent } from "../api/host.ts";
import { Emitter } from "../util/emitter.ts";
import { AutoNames, DEFAULT_SESSION, sessionNotFound, validateSessionId } from "../api/session-id.ts";

const log = logger("manager");

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

/** Why term_open answered before a silent program printed anything, and how to follow it. */
function silentHint(session: Session, silentMs: number): string {
  return (
    `It printed nothing in ${silentMs} ms and, the kernel says, neither waits for the terminal nor works on a ` +
    `CPU or disk (it sleeps, or waits on something else): it keeps running. term_read session:` +
    `${JSON.stringify(session.id)} waits (wait_ms) for its output; term_send keys:["ctrl+c"] stops it.`
  );
}

/** Where and with what environment the default session starts (the daemon passes its caller's). */
export type SessionDefaults = Pick<OpenParams, "cwd" | "env">;

/** term_open's result: the one definition is its schema (src/api/methods/open.ts). */
export type OpenResult = z.output<typeof openOutput>;

/** term_close's result: the one definition is its schema (src/api/methods/close.ts). */
export type CloseResult = z.output<typeof closeOutput>;

/** One session as term_list shows it: the one definition is its schema (src/api/methods/list.ts). */
export type SessionInfo = z.output<typeof listOutput>["sessions"][number];

export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  private readonly opening = new Set<string>();
  private defaultOpening: Promise<Session> | null = null;
  private readonly sweeper: ReturnType<typeof setInterval>;
  private readonly autoNames = new AutoNames();
  private readonly events = new Emitter<HostEvent>();
  /** Recently closed sessions, as closing them answered: closing one again succeeds. */
  private readonly closed = new Map<string, CloseResult>();

  /** Secrets typed into any session, masked in all of them (redaction.ts). */
  private readonly secrets = new Secrets();

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
  onSessionEvent(listener: (event: HostEvent) => void): () => void {
    return this.events.on(listener);
  }

  get(id: string): Session {
    validateSessionId(id);
    const s = this.sessions.get(id);
    if (!s) throw sessionNotFound(id, [...this.sessions.keys()]);
    s.touch();
    return s;
  }

  /**
   * The session a term_exec runs in: the named one, or (the default-session rule, here only) the
   * shell session `main`, opened on first use and again if it has exited — in `defaults`' cwd and
   * environment when given (the daemon passes its caller's).
   */
  async execTarget(id: string | undefined, signal?: AbortSignal, defaults: SessionDefaults = {}): Promise<Session> {
    return id === undefined ? this.defaultSession(signal, defaults) : this.get(id);
  }

  /** The default shell session: opened on first use, and again if it has exited. */
  private async defaultSession(signal: AbortSignal | undefined, defaults: SessionDefaults): Promise<Session> {
    const existing = this.sessions.get(DEFAULT_SESSION);
    if (existing && !existing.exit) return existing;
    if (!this.defaultOpening) {
      this.defaultOpening = (async () => {
        if (existing) await this.close(DEFAULT_SESSION).catch(() => undefined);
        const params = { name: DEFAULT_SESSION, cwd: defaults.cwd, env: defaults.env };
        await this.open(params, "internal", signal).catch((err) => {
          // Someone opened `main` by name meanwhile: use theirs.
          const theirs = err instanceof AppError && err.code === "SESSION_EXISTS" && this.sessions.has(DEFAULT_SESSION);
          if (!theirs) throw err;
        });
        return this.get(DEFAULT_SESSION);
      })().finally(() => {
        this.defaultOpening = null;
      });
    }
    return this.defaultOpening;
  }

  /**
   * `elicit` asks the human (SSH passphrases and passwords); absent when the client cannot.
   * `beforeStart` (the guard) runs once the id is settled and before anything starts; it may throw.
   */
  async open(
    p: OpenParams,
    clientId: string,
    signal?: AbortSignal,
    elicit?: Elicit,
    beforeStart?: (id: string) => Promise<void>,
  ): Promise<OpenResult> {
    const id = p.name ?? this.autoName();
    validateSessionId(id);
    this.closed.delete(id);
    if (this.sessions.has(id) || this.opening.has(id)) {
      throw new AppError(
        "SESSION_EXISTS",
        `session '${id}' already exists`,
        "Use it as it is, close it with term_close first, or pick another name.",
      );
    }
    if (this.sessions.size + this.opening.size >= this.config.max_sessions) {
      throw new AppError(
        "SESSION_LIMIT",
        `session limit reached (${this.config.max_sessions})`,
        "Close sessions you no longer need (term_list, term_close), or raise PTYHUB_MAX_SESSIONS.",
      );
    }
    const cols = p.cols ?? this.config.cols;
    const rows = p.rows ?? this.config.rows;
    const program = {
      command: p.command,
      args: p.args,
      cwd: p.cwd,
      env: p.env,
      sessionId: id,
      nonce: newNonce(),
      cols,
      rows,
    };
    // The kind checks its parameters before the id is reserved: bad input changes nothing.
    const kind = kindOfParams(p);
    if (p.sandbox !== undefined && p.sandbox !== "none" && !kind.hostFiles) {
      const refusal = sandboxRefusal(kind.name);
      throw new AppError("INVALID_ARGUMENT", refusal.message, refusal.hint);
    }
    const openPrepared = kind.prepare(p);
    this.opening.add(id);
    try {
      await beforeStart?.(id);
    } catch (err) {
      this.opening.delete(id);
      throw err;
    }
    let session: Session;
    let description: string;
    try {
      const started = await openPrepared(program, { elicit, signal, config: this.config });
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
        nonce: started.nonce ?? program.nonce,
        startMark: started.startMark,
        persistent: this.persistentHost,
        cwd: started.cwd,
        secrets: this.secrets,
        files: started.files,
      });
      this.sessions.set(id, session);
      session.onEvent((kind) => this.events.emit({ session: id, kind }));
      this.events.emit({ session: id, kind: "opened" });
    } finally {
      this.opening.delete(id);
    }
    log.info(`opened ${id}: ${description}`);

    const start = { row: 0, col: 0, prefix: "", lineNo: 1 };
    const verdict = await this.waitUntilReady(session, signal);
    await waitForPromptDrawn(session, PROMPT_DRAW_AT_OPEN_MS, signal, true);
    const rendered = render(
      region(session.emulator, start, null).items,
      OPEN_OUTPUT_TOKENS,
      (t) => session.redact(t),
      fetchableFrom(session.emulator),
    );
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
      via: viaOf(session, verdict),
      output: rendered.output,
      truncated: rendered.truncated,
      ...(verdict.kind === "silent" ? { hint: silentHint(session, verdict.silentMs) } : {}),
    };
  }

  /** Until the first prompt (shells), a prompt-looking pause or a settle (programs), or exit. */
  private waitUntilReady(session: Session, signal?: AbortSignal): Promise<Verdict> {
    const timeoutMs = this.config.open_timeout_ms;
    return awaitCompletion(session, { since: 0, fallback: "open", typed: null, timeoutMs, signal });
  }

  /** Each live local session's program (a session leader): who runs inside the daemon's sessions. */
  localLeaders(): Array<{ id: string; pid: number }> {
    const leaders: Array<{ id: string; pid: number }> = [];
    for (const s of this.sessions.values())
      if (kindDescriptor(s.kind).localProcess && s.pid !== null) leaders.push({ id: s.id, pid: s.pid });
    return leaders;
  }

  list(): SessionInfo[] {
    const now = Date.now();
    // Through redaction like every result: a secret can show up in a cwd, say.
    return [...this.sessions.values()].map((s) =>
      s.redactFields({
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
      }),
    );
  }

  /** `shutdown`: the host is going away; programs that can outlive it are detached, not ended. */
  async close(id: string, signal?: CloseSignal, shutdown = false): Promise<CloseResult> {
    validateSessionId(id);
    const before = this.closed.get(id);
    if (!this.sessions.has(id) && before) return before;
    const s = this.get(id);
    const running = s.alive;
    const info = shutdown ? await s.detach() : await s.close(signal);
    this.sessions.delete(id);
    this.events.emit({ session: id, kind: "closed" });
    s.dispose();
    // The hang-up (or TERM, KILL) that ended it was ours: the exit code says nothing else.
    const sent = running ? CLOSE_SIGNALS.find((name) => info.signal === `SIG${name}`) : undefined;
    const result: CloseResult = { session: id, closed: true, exit_code: info.exitCode, signal: sent ?? null };
    this.closed.set(id, result);
    if (this.closed.size > CLOSED_MEMORY) this.closed.delete(this.closed.keys().next().value!);
    log.info(`closed ${id}: ${info.reason}`);
    return result;
  }

  /** Ends every session (server shutdown): politely, then by force. */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.sessions.keys()];
    await Promise.allSettled(all.map((id) => this.close(id, "HUP", true)));
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
      if (now - s.lastActivityAt > this.config.idle_timeout_ms && s.attached === 0 && !s.execBusy) {
        log.info(`closing idle session ${s.id}`);
        await this.close(s.id).catch((err) => log.warn(`closing idle ${s.id} failed`, err));
      }
    }
  }

  private autoName(): string {
    return this.autoNames.pick((id) => this.sessions.has(id) || this.opening.has(id));
  }
}
