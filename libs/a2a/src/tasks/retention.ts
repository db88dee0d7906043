/** Bounded keeping of tasks for the in-memory store and log: at most N finished, for at most T ms. */

/** @publicApi */
export interface RetentionOptions {
  /** How long a terminal task (and its log) is kept. */
  ttlMs: number;
  /** How many terminal tasks are kept at most; the oldest go first. */
  maxTerminalTasks: number;
  /**
   * How long an interrupted task (INPUT_REQUIRED, AUTH_REQUIRED) is kept without a new message,
   * counted from when it was interrupted; then it is dropped like an expired finished task.
   * Default 24 h.
   */
  interruptedTtlMs?: number;
}

export const DEFAULT_RETENTION: RetentionOptions = { ttlMs: 60 * 60 * 1000, maxTerminalTasks: 10_000 };
export const DEFAULT_INTERRUPTED_TTL_MS = 24 * 60 * 60 * 1000;

/** Tracks keys in the order they entered a state (finished, interrupted) and tells its owner which to drop. */
export class TerminalRetention {
  private readonly enteredAt = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly options: Pick<RetentionOptions, 'ttlMs' | 'maxTerminalTasks'>,
    private readonly drop: (key: string) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.timer = setInterval(() => this.sweep(), Math.min(options.ttlMs, 60_000));
    this.timer.unref();
  }

  /** `key` reached the state: keep it for the TTL, within the count limit. */
  finished(key: string): void {
    this.enteredAt.delete(key);
    this.enteredAt.set(key, this.now());
    while (this.enteredAt.size > this.options.maxTerminalTasks) this.evictOldest();
    this.sweep();
  }

  /** `key` left the state (or was dropped by its owner): no longer tracked. */
  forget(key: string): void {
    this.enteredAt.delete(key);
  }

  /** Tracked keys, oldest first. */
  keys(): IterableIterator<string> {
    return this.enteredAt.keys();
  }

  /** Drops every key past its TTL. */
  sweep(): void {
    const cutoff = this.now() - this.options.ttlMs;
    for (const [key, at] of this.enteredAt) {
      if (at > cutoff) break; // insertion order is entering order
      this.enteredAt.delete(key);
      this.drop(key);
    }
  }

  /** Drops the oldest key; false when there is none. */
  evictOldest(): boolean {
    const oldest = this.enteredAt.keys().next();
    if (oldest.done) return false;
    this.enteredAt.delete(oldest.value);
    this.drop(oldest.value);
    return true;
  }

  close(): void {
    clearInterval(this.timer);
  }
}
