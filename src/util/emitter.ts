/** A minimal event emitter: one listener failing never stops the others (nor the caller). */
import { logger } from "../log.ts";

const log = logger("emitter");

export class Emitter<T> {
  private readonly listeners = new Set<(value: T) => void>();

  /** Adds a listener; returns the function that removes it. */
  on(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether anyone listens. */
  get listened(): boolean {
    return this.listeners.size > 0;
  }

  emit(value: T): void {
    for (const listener of this.listeners) {
      try {
        listener(value);
      } catch (err) {
        log.error("listener failed", err);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
