/**
 * Something that happens once, such as a link being lost: it is told to its listeners the first
 * time it fires (later fires change nothing), and a listener added after that is told at once.
 */
export class OnceEvent {
  private happened = false;
  private readonly listeners: Array<() => void> = [];

  /** Fires the event; a bound method, so it can be handed on as a callback. */
  readonly fire = (): void => {
    if (this.happened) return;
    this.happened = true;
    for (const listener of this.listeners) listener();
  };

  on(listener: () => void): void {
    if (this.happened) listener();
    else this.listeners.push(listener);
  }
}
