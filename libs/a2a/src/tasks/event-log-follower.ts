/**
 * What the event logs' followers share: `follow()` as an iterator object rather than an async
 * generator, since an open stream waits in its follower for as long as its task runs. A generator
 * keeps a suspended frame, its request queue and promises per follower; this keeps one pending
 * promise while it waits, and is its signal's listener itself (`handleEvent`): no closure (issue 14).
 * `return()` ends a waiting follower at once, where a generator would wait for the next event.
 */
import type { LoggedEvent } from './event-log.js';

export const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };
/** {@link EventLogFollower.take}: nothing to take yet; `wake()` comes when there may be. */
export const WAIT = Symbol('wait');
/** {@link EventLogFollower.take}: the follower is done (its log is gone). */
export const END = Symbol('end');

/** @internal */
export abstract class EventLogFollower implements AsyncIterableIterator<LoggedEvent> {
  /** Resolves the `next()` that waits. */
  private resolve?: (result: IteratorResult<LoggedEvent> | Promise<IteratorResult<LoggedEvent>>) => void;
  /** The `next()` in progress (waiting, or reading): one at a time, another asked meanwhile comes after it. */
  private busy?: Promise<IteratorResult<LoggedEvent>>;
  private finished = false;

  /** `signal` may be left out: the follower then ends on `return()` (or its log closing) only. */
  protected constructor(private readonly signal: AbortSignal | undefined) {}

  /**
   * The next event if there is one now; a promise to look again after (a read); {@link WAIT}; or {@link END}.
   * Not called once the signal aborted or {@link closed}.
   */
  protected abstract take(): IteratorResult<LoggedEvent> | Promise<void> | typeof WAIT | typeof END;

  /** Lets go of what the follower holds in its log (it is done). */
  protected abstract stop(): void;

  /** Has the log itself closed (its followers end)? */
  protected closed(): boolean {
    return false;
  }

  /** Starts listening to the signal, or ends at once when it has aborted already; true when following. */
  protected start(): boolean {
    if (this.signal?.aborted || this.closed()) {
      this.finished = true;
      return false;
    }
    this.signal?.addEventListener('abort', this, { once: true });
    return true;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<LoggedEvent>> {
    const busy = this.busy;
    if (busy) {
      return busy.then(
        () => this.next(),
        () => this.next(),
      );
    }
    const stepped = this.step();
    return stepped instanceof Promise ? stepped : Promise.resolve(stepped);
  }

  /**
   * The next event if there is one now, else a promise of it (then `busy`). A waiting `next()` is
   * resolved with this directly, so an event that is there costs no promise of its own (fan-out).
   */
  private step(): IteratorResult<LoggedEvent> | Promise<IteratorResult<LoggedEvent>> {
    if (this.finished) return DONE;
    const taken = this.signal?.aborted || this.closed() ? END : this.take();
    if (taken === END) {
      this.finish();
      return DONE;
    }
    if (taken === WAIT) return (this.busy = new Promise((resolve) => (this.resolve = resolve)));
    if (!(taken instanceof Promise)) return taken;
    return (this.busy = taken.then(
      () => {
        this.busy = undefined;
        return this.next();
      },
      (error: unknown) => {
        this.busy = undefined;
        this.finish();
        throw error;
      },
    ));
  }

  async return(): Promise<IteratorResult<LoggedEvent>> {
    this.finish();
    return DONE;
  }

  /** The signal aborted. */
  handleEvent(): void {
    this.wake();
  }

  /** Something changed (an event, an abort, a close): a waiting `next()` looks again. */
  wake(): void {
    const resolve = this.resolve;
    if (!resolve) return;
    this.resolve = undefined;
    this.busy = undefined;
    resolve(this.step());
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.signal?.removeEventListener('abort', this);
    this.stop();
    const resolve = this.resolve;
    this.resolve = undefined;
    this.busy = undefined;
    resolve?.(DONE);
  }
}
