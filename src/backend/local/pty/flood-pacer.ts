/**
 * Pacing a flood while other sessions are live. Yielding after every piece (reader.ts) keeps the
 * event loop turning, but a program that prints without pause still keeps the machine's CPUs busy:
 * itself, the kernel moving its output through the tty, and our parser. On 2 cores, another
 * session's `echo hi` through MCP and the daemon then waited for a CPU at every hop: p95 28–32 ms
 * under a `yes` flood, against 1.5 ms for a bare PTY read by another process.
 *
 * So once a session has printed without a pause for FLOOD_AFTER_MS, and while another session of
 * this process printed within OTHERS_LIVE_MS, reading it pauses after each FLOOD_SLICE_MS of
 * parsing, FLOOD_PAUSE_FACTOR times as long. The program blocks on the full tty meanwhile, as on a
 * slow terminal, and the CPUs go to the others. Measured (8 s of `yes` in A, `echo hi` in B back to
 * back through MCP and the daemon, 2 cores, two or three runs each): B's p50 / p95 3.4–5.9 / 28–32
 * ms unpaced; 2.5–3.0 / 10.8–11.0 ms paced after 200 ms; 2.7–4.3 / 11.6–23 ms paced after 500 ms
 * (the unpaced start is 5 % of those samples); 1.0–3.6 / 7.1–20.6 ms with a factor of 7. A flood
 * with no other session live is read at full speed, and so is a burst shorter than FLOOD_AFTER_MS.
 */

/** Output with no pause this long is a flood. */
export const FLOOD_AFTER_MS = 200;
/** A pause this long between reads ends a flood (a flood's reads come back to back). */
export const FLOOD_GAP_MS = 20;
/** Parsing time after which a paced flood pauses (shorter pauses cost more in timer wake-ups). */
export const FLOOD_SLICE_MS = 2;
/** How many times the parsing time a paced flood pauses: it gets a quarter of the time. */
export const FLOOD_PAUSE_FACTOR = 3;
/** Another session that printed within this long is live (an `echo hi` loop prints every few ms). */
export const OTHERS_LIVE_MS = 250;

/** When each session's reader last got output. */
const lastOutputAt = new Map<FloodPacer, number>();

export class FloodPacer {
  private floodSince = 0;
  private readingSince = Number.NEGATIVE_INFINITY;
  private busyMs = 0;

  /** Output arrived at `now`, after reading resumed at `readingSince` (see resumed). */
  arrived(now: number): void {
    if (now - this.readingSince > FLOOD_GAP_MS) {
      this.floodSince = now;
      this.busyMs = 0;
    }
    lastOutputAt.set(this, now);
  }

  /** A piece took `ms` to parse, up to `now`: how long to pause before reading on (0: no pause). */
  parsed(ms: number, now: number): number {
    if (now - this.floodSince < FLOOD_AFTER_MS || !this.othersLive(now)) {
      this.busyMs = 0;
      return 0;
    }
    this.busyMs += ms;
    if (this.busyMs < FLOOD_SLICE_MS) return 0;
    const pause = this.busyMs * FLOOD_PAUSE_FACTOR;
    this.busyMs = 0;
    return pause;
  }

  /** Reading resumes at `now` (after a pause or a yield): the gap to the next output starts here. */
  resumed(now: number): void {
    this.readingSince = now;
  }

  dispose(): void {
    lastOutputAt.delete(this);
  }

  private othersLive(now: number): boolean {
    for (const [pacer, at] of lastOutputAt) if (pacer !== this && now - at < OTHERS_LIVE_MS) return true;
    return false;
  }
}
