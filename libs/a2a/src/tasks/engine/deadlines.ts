/**
 * Deadlines that all lie the same time after their start, on one timer: they come in the order
 * they were set, so the timer waits for the earliest only. A turn's executor deadline used to be
 * a timer of its own, set and cleared around every turn (a timer-list insert and removal per
 * Message answer, though nearly every executor answers long before it).
 */
export class Deadlines<K> {
  /** When each key's deadline comes (`performance.now()`), in the order they were set. */
  private readonly due = new Map<K, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number,
    private readonly onExpiry: (key: K) => void,
  ) {}

  start(key: K): void {
    this.due.set(key, performance.now() + this.ms);
    this.timer ??= this.arm(this.ms);
  }

  end(key: K): void {
    this.due.delete(key);
  }

  /** Nothing more expires (the timer would otherwise wait for a deadline nobody has any more). */
  clear(): void {
    this.due.clear();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(delay: number): NodeJS.Timeout {
    const timer = setTimeout(() => this.sweep(), delay);
    timer.unref();
    return timer;
  }

  private sweep(): void {
    this.timer = undefined;
    const now = performance.now();
    for (const [key, at] of this.due) {
      if (at > now) {
        this.timer = this.arm(at - now);
        return;
      }
      this.due.delete(key);
      this.onExpiry(key);
    }
  }
}
