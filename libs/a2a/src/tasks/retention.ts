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

/** One key's entering a state; stale once the key has left it or entered it again. */
interface Entry {
  readonly key: string;
  readonly at: number;
}

/** Entries dropped from the front of the queue before it is compacted. */
const COMPACT_AFTER = 1024;

/** Tracks keys in the order they entered a state (finished, interrupted) and tells its owner which to drop. */
export class TerminalRetention {
  /** Each tracked key's live entry. */
  private readonly entries = new Map<string, Entry>();
  /**
   * Every entry in entering order, stale ones skipped when met. The oldest is found here, not by
   * walking the Map from its front: V8 leaves a deleted Map entry's slot in place until the Map is
   * rehashed, so with keys entering at one end and leaving at the other, every walk from the front
   * stepped over thousands of dead slots (about 20 µs per finished task at 10,000 kept).
   */
  private queue: Entry[] = [];
  private head = 0;
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
    const entry = { key, at: this.now() };
    this.entries.delete(key); // re-entering moves it to the end (keys() is oldest first)
    this.entries.set(key, entry);
    this.queue.push(entry);
    // stale entries behind a live old one (keys that left the state) are not met at the front: bound them here
    if (this.queue.length - this.head > 2 * this.entries.size + COMPACT_AFTER) {
      this.queue = this.queue.slice(this.head).filter((e) => this.entries.get(e.key) === e);
      this.head = 0;
    }
    while (this.entries.size > this.options.maxTerminalTasks) this.evictOldest();
    this.sweep();
  }

  /** `key` left the state (or was dropped by its owner): no longer tracked. */
  forget(key: string): void {
    this.entries.delete(key);
  }

  /** Tracked keys, oldest first. */
  keys(): IterableIterator<string> {
    return this.entries.keys();
  }

  /** Drops every key past its TTL. */
  sweep(): void {
    const cutoff = this.now() - this.options.ttlMs;
    for (let oldest = this.oldest(); oldest !== undefined && oldest.at <= cutoff; oldest = this.oldest()) this.remove(oldest);
  }

  /** Drops the oldest key; false when there is none. */
  evictOldest(): boolean {
    const oldest = this.oldest();
    if (oldest === undefined) return false;
    this.remove(oldest);
    return true;
  }

  close(): void {
    clearInterval(this.timer);
  }

  /** The oldest live entry, stale ones before it thrown away. */
  private oldest(): Entry | undefined {
    while (this.head < this.queue.length) {
      const entry = this.queue[this.head];
      if (this.entries.get(entry.key) === entry) return entry;
      this.head++;
    }
    this.compact();
    return undefined;
  }

  private remove(entry: Entry): void {
    this.entries.delete(entry.key);
    this.head++;
    this.compact();
    this.drop(entry.key);
  }

  private compact(): void {
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head >= COMPACT_AFTER && this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}
