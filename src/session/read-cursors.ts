/**
 * The readers' cursors of one session, one per client: where each has surely read up to, what it
 * may have read beyond that in answers not confirmed delivered (at-least-once, labelled), and
 * the head of its unread output that history would evict. A client that replaces another (an MCP
 * server restarted) continues where the last active reader surely stopped.
 */
import type { Emulator, Pos } from "../terminal/emulator.ts";
import type { HeadCapture } from "../terminal/history.ts";
import { currentTicket } from "./delivery.ts";

/** Where a call moved a cursor, not yet known to have reached its client (see delivery.ts). */
interface PendingMove {
  pos: Pos;
  capture: HeadCapture;
  /** The session's newest mark when the call read up to `pos`. */
  markSeq: number;
}

export interface ReadCursor {
  /** Where this client has surely read up to: its answers up to here reached it. */
  pos: Pos;
  /** Keeps the head of unread output that history evicts, and counts what it could not keep. */
  capture: HeadCapture;
  /** Screen rows at this client's last `screen`/`diff` read, for `diff`. */
  screen: string[] | null;
  usedAt: number;
  /** Position in the raw output (RawOutput.total) at this client's last read, for `raw` reads. */
  rawAt: number;
  /** Orders readers by their last use where usedAt (milliseconds) ties: the latest is taken over. */
  usedSeq: number;
  /** The latest move whose answer is not confirmed delivered yet; `pos` moves there on confirmation. */
  pending: PendingMove | null;
  /** Taken over from a reader whose last answers were not confirmed: they may have been read up to here. */
  repeatUntil: Pos | null;
  /**
   * The session's newest mark when this client's read up to `pos` was made: a command that ended
   * after it ended in the unread output (its exit code is news), one that ended before was told.
   */
  markSeq: number;
}

/** Lines a reader may get a second time: an earlier answer with them may or may not have arrived. */
export interface RepeatRange {
  fromLine: number;
  toLine: number;
}

export function after(a: Pos, b: Pos): boolean {
  return a.row > b.row || (a.row === b.row && a.col > b.col);
}

/** Unread rows kept per reader when history evicts them before the reader comes back. */
const CURSOR_CAPTURE_ROWS = 500;

export class ReadCursors {
  private readonly cursors = new Map<string, ReadCursor>();
  private cursorUses = 0;

  constructor(private readonly emulator: Emulator) {}

  /**
   * The client's read cursor; a new client continues where the last active reader surely stopped
   * (what that reader's unconfirmed answers held comes again, labelled: see repeatRange).
   */
  cursor(clientId: string): ReadCursor {
    let c = this.cursors.get(clientId);
    if (!c) {
      const latest = this.latestCursor();
      const pos = latest ? latest.pos : { row: 0, col: 0, prefix: "", lineNo: 1 };
      const capture = this.emulator.capture(pos.row, CURSOR_CAPTURE_ROWS);
      // Take over what the last reader's capture kept (and counted as lost) of the unread output,
      // so a client replacing it (an MCP server restarted, for the daemon) reads exactly that.
      if (latest && latest.capture.startRow === pos.row) {
        capture.rows.push(...latest.capture.rows);
        capture.droppedChars = latest.capture.droppedChars;
      }
      const repeatUntil = latest ? this.unconfirmedUntil(latest) : null;
      const rawAt = latest ? latest.rawAt : 0;
      const markSeq = latest ? latest.markSeq : 0;
      c = {
        pos,
        capture,
        screen: null,
        usedAt: Date.now(),
        usedSeq: ++this.cursorUses,
        pending: null,
        repeatUntil,
        rawAt,
        markSeq,
      };
      this.cursors.set(clientId, c);
    }
    return c;
  }

  /** How far a cursor's reader may have read beyond its confirmed position, if at all. */
  private unconfirmedUntil(c: ReadCursor): Pos | null {
    let until: Pos | null = null;
    for (const p of [c.pending?.pos, c.repeatUntil]) if (p && after(p, c.pos) && (!until || after(p, until))) until = p;
    return until;
  }

  /**
   * The lines a read from this client's cursor may already have delivered (to it, or to the reader
   * it took over from) in an answer never confirmed: at-least-once, so they come again, said so.
   */
  repeatRange(clientId: string): RepeatRange | null {
    const c = this.cursor(clientId);
    const until = this.unconfirmedUntil(c);
    return until ? { fromLine: c.pos.lineNo, toLine: until.col > 0 ? until.lineNo : until.lineNo - 1 } : null;
  }

  /**
   * Forgets readers not seen for `maxIdleMs` (MCP servers that restarted leave theirs behind),
   * always keeping the most recent one: a reader that comes back later continues from there.
   */
  prune(maxIdleMs: number): void {
    const latest = this.latestCursor();
    const cutoff = Date.now() - maxIdleMs;
    for (const [id, c] of this.cursors) {
      if (c !== latest && c.usedAt < cutoff) {
        this.emulator.history.release(c.capture);
        if (c.pending) this.emulator.history.release(c.pending.capture);
        this.cursors.delete(id);
      }
    }
  }

  private latestCursor(): ReadCursor | null {
    let latest: ReadCursor | null = null;
    for (const c of this.cursors.values()) if (!latest || c.usedSeq > latest.usedSeq) latest = c;
    return latest;
  }

  /**
   * Moves the client's cursor to `pos`: at once, or, in a call with a delivery ticket (the
   * daemon's), once the call's answer is confirmed delivered (see delivery.ts).
   */
  move(clientId: string, pos: Pos, rawAt: number, markSeq: number): void {
    const c = this.cursor(clientId);
    c.usedAt = Date.now();
    // Every caller sets the cursor at the end of the output it returned: so is the raw position.
    c.rawAt = rawAt;
    c.usedSeq = ++this.cursorUses;
    if (c.pending) this.emulator.history.release(c.pending.capture);
    const move: PendingMove = {
      pos,
      capture: this.emulator.capture(pos.row, CURSOR_CAPTURE_ROWS),
      markSeq,
    };
    c.pending = move;
    const ticket = currentTicket();
    if (ticket) ticket.whenConfirmed(() => this.commitMove(clientId, c, move));
    else this.commitMove(clientId, c, move);
  }

  private commitMove(clientId: string, c: ReadCursor, move: PendingMove): void {
    // A later move replaced it (its own confirmation commits both), or the cursor was forgotten.
    if (c.pending !== move || this.cursors.get(clientId) !== c) return;
    this.emulator.history.release(c.capture);
    c.capture = move.capture;
    c.pos = move.pos;
    c.markSeq = move.markSeq;
    c.pending = null;
    if (c.repeatUntil && !after(c.repeatUntil, c.pos)) c.repeatUntil = null;
  }
}
