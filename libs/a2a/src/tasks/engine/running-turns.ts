/**
 * The turns running on one instance, oldest first, and the executor deadline they share.
 *
 * Every executor gets the same time from its turn's start (`executorTimeoutMs`), so the oldest
 * running turn is always the next whose time runs out: one timer, set for the oldest, serves them
 * all. A timer per turn was set and cleared by every Message answer, as was an entry by task id,
 * though a Message answer has no task to look up (issue 14, bench/README): here a turn is linked
 * in and out, on links it carries itself.
 */

/** What the list keeps on a turn, its links, and reads of it, so that a turn costs it no object of its own. */
export interface RunningTurn<T> {
  /** The list's: the turns started just before and just after this one. */
  older?: T;
  newer?: T;
  /** When the turn started (`performance.now()`'s clock): its executor's time runs from then. */
  readonly startedAt: number;
  /** The executor's time has run out: stop it. Called again for a turn still running at a later deadline. */
  overdue(): void;
}

export class RunningTurns<T extends RunningTurn<T>> {
  private oldest: T | undefined;
  private newest: T | undefined;
  private count = 0;
  /** Set for the oldest turn's deadline at the time (an older one's, so never after any later turn's). */
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly timeoutMs: number) {}

  get size(): number {
    return this.count;
  }

  /** A turn starts (just now: the list is in the order of the turns' starts). */
  add(turn: T): void {
    turn.older = this.newest;
    turn.newer = undefined;
    if (this.newest === undefined) this.oldest = turn;
    else this.newest.newer = turn;
    this.newest = turn;
    this.count++;
    this.timer ??= this.arm(this.timeoutMs);
  }

  /** A turn is over (nothing when it is not in the list). */
  delete(turn: T): void {
    if (turn.older === undefined && this.oldest !== turn) return;
    if (turn.older === undefined) this.oldest = turn.newer;
    else turn.older.newer = turn.newer;
    if (turn.newer === undefined) this.newest = turn.older;
    else turn.newer.older = turn.older;
    turn.older = turn.newer = undefined;
    this.count--;
  }

  /** The turns running now, oldest first. */
  values(): T[] {
    const turns: T[] = [];
    for (let turn = this.oldest; turn !== undefined; turn = turn.newer) turns.push(turn);
    return turns;
  }

  /** No deadline is kept any more (shutdown): the timer goes. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): NodeJS.Timeout {
    return setTimeout(this.sweep, Math.max(1, Math.ceil(ms))).unref();
  }

  /** Tells every turn whose time has run out, then sets the timer for the next deadline, if any. */
  private readonly sweep = (): void => {
    this.timer = undefined;
    const now = performance.now();
    for (let turn = this.oldest; turn !== undefined; ) {
      const deadline = turn.startedAt + this.timeoutMs;
      if (deadline > now) {
        this.timer = this.arm(deadline - now);
        return;
      }
      const next = turn.newer;
      turn.overdue();
      turn = next;
    }
  };
}
