/**
 * At-least-once reading across a reader's sudden death (issue #21). A read cursor that a call
 * moves is only a proposal until the call's answer is known to have reached its client: an MCP
 * server killed with SIGKILL after the daemon answered, but before it wrote the answer out, would
 * otherwise take that output with it (the next server starts where the dead one "read" up to).
 *
 * The daemon runs each call inside a `DeliveryTicket` (AsyncLocalStorage carries it through every
 * await of the call, so the session code needs no extra parameter); a cursor moved under a ticket
 * is committed when the ticket is confirmed, which the daemon does when the client acknowledges
 * the answer (an `ack` frame, sent once the MCP server wrote the answer to its client). Calls made
 * without a ticket (an in-process host: the answer cannot outlive the cursor) commit at once.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export class DeliveryTicket {
  private confirmed = false;
  private readonly onConfirm: Array<() => void> = [];

  /** Whether anything waits on this ticket (a call that moved no cursor needs no acknowledgement). */
  get wanted(): boolean {
    return this.onConfirm.length > 0;
  }

  /** Runs `commit` when the answer is confirmed delivered (at once if it already is). */
  whenConfirmed(commit: () => void): void {
    if (this.confirmed) commit();
    else this.onConfirm.push(commit);
  }

  confirm(): void {
    if (this.confirmed) return;
    this.confirmed = true;
    for (const commit of this.onConfirm.splice(0)) commit();
  }
}

const current = new AsyncLocalStorage<DeliveryTicket>();

/** Runs a call under `ticket`: cursors it moves wait for the ticket's confirmation. */
export function withTicket<T>(ticket: DeliveryTicket, run: () => T): T {
  return current.run(ticket, run);
}

/** The ticket of the call running now, if it has one. */
export function currentTicket(): DeliveryTicket | undefined {
  return current.getStore();
}

/** The line said before output that may repeat (`term_read mode:new` after an unconfirmed answer). */
export function repeatNotice(fromLine: number, toLine: number): string {
  const lines = fromLine === toLine ? `line ${fromLine}` : `lines ${fromLine}–${toLine}`;
  return (
    `[… ${lines} may repeat: an earlier answer that held them was not confirmed delivered ` +
    `(its reader went away), so they come again …]`
  );
}
