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

/**
 * Takes an iterator's results as they come: a consumer that waits as itself, with no promise, reaction
 * or closure of its own while it waits (issue 14: an open stream waits for as long as its task runs).
 * @internal
 */
export interface ResultReceiver<T> {
  receive(result: IteratorResult<T>): void;
  fail(error: unknown): void;
}

/** An async iterator that also hands its next result to a {@link ResultReceiver}. @internal */
export interface ReceivingIterator<T> extends AsyncIterator<T> {
  /** The next result if it is there now; otherwise undefined, and `receiver` is given it later (once, never from within this call). */
  nextTo(receiver: ResultReceiver<T>): IteratorResult<T> | undefined;
}

/** `iterator`'s next result now, or undefined and `receiver` is given it later: through `nextTo` where the iterator has it, else `next()`. @internal */
export function nextTo<T>(iterator: AsyncIterator<T>, receiver: ResultReceiver<T>): IteratorResult<T> | undefined {
  if ('nextTo' in iterator) return (iterator as ReceivingIterator<T>).nextTo(receiver);
  whenSettled(iterator.next(), receiver);
  return undefined;
}

/** Hands `result` to `receiver` once it settles. @internal */
export function whenSettled<T>(result: Promise<IteratorResult<T>>, receiver: ResultReceiver<T>): void {
  result.then(
    (settled) => receiver.receive(settled),
    (error: unknown) => receiver.fail(error),
  );
}

/** @internal */
export abstract class EventLogFollower implements AsyncIterableIterator<LoggedEvent>, ReceivingIterator<LoggedEvent> {
  /** Resolves the `next()` that waits. */
  private resolve?: (result: IteratorResult<LoggedEvent> | Promise<IteratorResult<LoggedEvent>>) => void;
  /** The receiver that waits ({@link nextTo}) instead of a `next()`: the follower holds it, and no promise. */
  private receiver?: ResultReceiver<LoggedEvent>;
  /** The `next()` in progress (waiting, or reading): one at a time, another asked meanwhile comes after it. */
  private busy?: Promise<unknown>;
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
    const busy = this.busy ?? (this.receiver && this.afterReceiver());
    if (busy) {
      return busy.then(
        () => this.next(),
        () => this.next(),
      );
    }
    const stepped = this.step();
    return stepped instanceof Promise ? stepped : Promise.resolve(stepped!);
  }

  nextTo(receiver: ResultReceiver<LoggedEvent>): IteratorResult<LoggedEvent> | undefined {
    if (this.busy || this.receiver) {
      whenSettled(this.next(), receiver); // one at a time, as next()
      return undefined;
    }
    const stepped = this.step(receiver);
    if (!(stepped instanceof Promise)) return stepped;
    whenSettled(stepped, receiver);
    return undefined;
  }

  /**
   * The next event if there is one now, else a promise of it (then `busy`), or with `receiver`,
   * undefined: the receiver waits. A waiting `next()` is resolved with this directly, so an event
   * that is there costs no promise of its own (fan-out).
   */
  private step(receiver?: ResultReceiver<LoggedEvent>): IteratorResult<LoggedEvent> | Promise<IteratorResult<LoggedEvent>> | undefined {
    if (this.finished) return DONE;
    const taken = this.signal?.aborted || this.closed() ? END : this.take();
    if (taken === END) {
      this.finish();
      return DONE;
    }
    if (taken === WAIT) {
      if (!receiver) {
        const waiting = new Promise<IteratorResult<LoggedEvent>>((resolve) => (this.resolve = resolve));
        this.busy = waiting;
        return waiting;
      }
      this.receiver = receiver;
      return undefined;
    }
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
    const receiver = this.receiver;
    if (receiver) {
      this.receiver = undefined;
      // in a microtask, as a promise's reaction would be: never from within the log's append or read
      queueMicrotask(() => this.serve(receiver));
      return;
    }
    const resolve = this.resolve;
    if (!resolve) return;
    this.resolve = undefined;
    this.busy = undefined;
    resolve(this.step()!);
  }

  /** A woken receiver looks again: it is given the next event, or waits again. */
  private serve(receiver: ResultReceiver<LoggedEvent>): void {
    let result: IteratorResult<LoggedEvent> | undefined;
    try {
      result = this.nextTo(receiver);
    } catch (error) {
      return receiver.fail(error);
    }
    if (result) receiver.receive(result);
  }

  /** Settles once the waiting receiver was given its result: a `next()` asked meanwhile comes after it. */
  private afterReceiver(): Promise<void> {
    const waiting = this.receiver!;
    return new Promise<void>((served) => {
      this.receiver = {
        receive(result) {
          served();
          waiting.receive(result);
        },
        fail(error) {
          served();
          waiting.fail(error);
        },
      };
    });
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
    const receiver = this.receiver;
    this.receiver = undefined;
    if (receiver) queueMicrotask(() => receiver.receive(DONE));
  }
}
