/** Bounded keeping of finished tasks for the in-memory store and log: at most N, at most T ms. */

/** @publicApi */
export interface RetentionOptions {
  /** How long a terminal task (and its log) is kept. */
  ttlMs: number;
  /** How many terminal tasks are kept at most; the oldest go first. */
  maxTerminalTasks: number;
}

export const DEFAULT_RETENTION: RetentionOptions = { ttlMs: 60 * 60 * 1000, maxTerminalTasks: 10_000 };

/** Tracks finished keys in finishing order and tells its owner which to drop. */
export class TerminalRetention {
  private readonly finishedAt = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly options: RetentionOptions,
    private readonly drop: (key: string) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.timer = setInterval(() => this.sweep(), Math.min(options.ttlMs, 60_000));
    this.timer.unref();
  }

  /** `key` reached a terminal state: keep it for the TTL, within the count limit. */
  finished(key: string): void {
    this.finishedAt.delete(key);
    this.finishedAt.set(key, this.now());
    while (this.finishedAt.size > this.options.maxTerminalTasks) this.evictOldest();
    this.sweep();
  }

  /** Drops every key past its TTL. */
  sweep(): void {
    const cutoff = this.now() - this.options.ttlMs;
    for (const [key, at] of this.finishedAt) {
      if (at > cutoff) break; // insertion order is finishing order
      this.finishedAt.delete(key);
      this.drop(key);
    }
  }

  close(): void {
    clearInterval(this.timer);
  }

  private evictOldest(): void {
    const oldest = this.finishedAt.keys().next().value as string;
    this.finishedAt.delete(oldest);
    this.drop(oldest);
  }
}
