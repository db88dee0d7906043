/** Event logs in process memory: the zero-setup default. Logs of terminal tasks are kept bounded. */
import type { StreamResponse } from '../../protocol/types.js';
import { isTerminalEvent, type EventLog, type LoggedEvent } from '../event-log.js';
import { ConcurrentTaskUpdateError } from '../task-store.js';
import { DEFAULT_RETENTION, TerminalRetention, type RetentionOptions } from '../retention.js';

interface Log {
  readonly events: LoggedEvent[];
  /** Followers waiting for the next append. */
  readonly waiters: Set<LogFollower>;
  /** The task was dropped (expired, evicted): its followers stop. */
  dropped?: boolean;
}

/** @publicApi */
export class InMemoryEventLog implements EventLog {
  private readonly logs = new Map<string, Log>();
  private readonly retention: TerminalRetention;

  constructor(options: RetentionOptions = DEFAULT_RETENTION) {
    this.retention = new TerminalRetention(options, (id) => this.drop(id));
  }

  async append(taskId: string, event: StreamResponse, expectedSeq: number): Promise<number> {
    return this.appendAll(taskId, [event], expectedSeq);
  }

  /**
   * {@link append} for several events, synchronously: the in-memory backend's commit appends a
   * batch with it. Returns the last sequence number.
   * @throws ConcurrentTaskUpdateError when the log has moved past `expectedSeq` (nothing is appended)
   */
  appendAll(taskId: string, events: readonly StreamResponse[], expectedSeq: number): number {
    if ((this.logs.get(taskId)?.events.length ?? 0) !== expectedSeq) throw new ConcurrentTaskUpdateError(taskId);
    const log = this.log(taskId);
    let seq = expectedSeq;
    let ends = false;
    for (const event of events) {
      log.events.push({ seq: ++seq, event });
      ends ||= isTerminalEvent(event);
    }
    wakeFollowers(log);
    if (ends) this.retention.finished(taskId);
    return seq;
  }

  async read(taskId: string, fromSeq: number, toSeq: number): Promise<LoggedEvent[]> {
    return (this.logs.get(taskId)?.events ?? []).slice(Math.max(1, fromSeq) - 1, Math.max(0, toSeq));
  }

  /**
   * A {@link LogFollower}: an iterator object, not a generator, since an open stream waits in it for
   * as long as its task runs (a generator would keep a suspended frame per stream; issue 14).
   */
  follow(taskId: string, afterSeq: number, signal: AbortSignal): AsyncIterableIterator<LoggedEvent> {
    return new LogFollower(this, taskId, Math.max(0, afterSeq), signal);
  }

  /** @internal The log of `taskId`, made empty when there is none yet (a follower waits for its first append). */
  logOf(taskId: string): Log {
    return this.log(taskId);
  }

  /** @internal A follower has stopped: a log that never started must not stay behind for it. */
  followerLeft(taskId: string): void {
    const log = this.logs.get(taskId);
    if (log && log.events.length === 0 && log.waiters.size === 0) this.logs.delete(taskId);
  }

  /** Forgets a task's log (its snapshot was dropped); whoever follows it stops. */
  drop(taskId: string): void {
    const log = this.logs.get(taskId);
    if (!log) return;
    this.logs.delete(taskId);
    this.retention.forget(taskId);
    log.dropped = true;
    wakeFollowers(log);
  }

  close(): void {
    this.retention.close();
  }

  /** Followers waiting for an append, over every log: 0 once every stream has ended (diagnostics, leak tests). */
  get waitingFollowers(): number {
    let waiting = 0;
    for (const log of this.logs.values()) waiting += log.waiters.size;
    return waiting;
  }

  private log(taskId: string): Log {
    let log = this.logs.get(taskId);
    if (!log) {
      log = { events: [], waiters: new Set() };
      this.logs.set(taskId, log);
    }
    return log;
  }
}

/** Resumes every follower waiting for `log`'s next event. */
function wakeFollowers(log: Log): void {
  const waiters = [...log.waiters];
  log.waiters.clear();
  waiters.forEach((follower) => follower.wake());
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * One `follow()`: the events after `next`, then each one appended, until the signal aborts, the log
 * is dropped, or `return()`. While it waits it is in its log's waiters and, as its own listener
 * (`handleEvent`), in the signal's: no closure, no frame.
 */
class LogFollower implements AsyncIterableIterator<LoggedEvent> {
  /** Resolves the `next()` that waits for an append. */
  private resolve?: (result: Promise<IteratorResult<LoggedEvent>> | IteratorResult<LoggedEvent>) => void;
  /** That `next()`'s answer. */
  private waiting?: Promise<IteratorResult<LoggedEvent>>;
  private waitingOn?: Log;
  private finished = false;

  constructor(
    private readonly logs: InMemoryEventLog,
    private readonly taskId: string,
    /** Index of the next event to yield (seq - 1). */
    private index: number,
    private readonly signal: AbortSignal,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<LoggedEvent>> {
    // a `next()` while one waits (no `for await` does that) comes after it, as a generator would queue it
    const waiting = this.waiting;
    if (waiting) return waiting.then(() => this.next());
    return this.step();
  }

  async return(): Promise<IteratorResult<LoggedEvent>> {
    this.finish();
    return DONE;
  }

  /** The signal aborted. */
  handleEvent(): void {
    this.wake();
  }

  /** An append, a drop or an abort: the waiting `next()` looks again. */
  wake(): void {
    const resolve = this.resolve;
    if (!resolve) return;
    // the log it waited on was dropped (expired, evicted): it stops, even if the task's id has a new log by now
    const dropped = this.waitingOn?.dropped === true;
    this.stopWaiting();
    if (dropped) this.finish();
    resolve(dropped ? DONE : this.step());
  }

  private step(): Promise<IteratorResult<LoggedEvent>> {
    if (this.finished) return Promise.resolve(DONE);
    const log = this.signal.aborted ? undefined : this.logs.logOf(this.taskId);
    if (!log || log.dropped) {
      this.finish();
      return Promise.resolve(DONE);
    }
    if (this.index < log.events.length) return Promise.resolve({ done: false, value: log.events[this.index++] });
    this.waiting = new Promise((resolve) => {
      this.resolve = resolve;
      this.waitingOn = log;
      log.waiters.add(this);
      this.signal.addEventListener('abort', this, { once: true });
    });
    return this.waiting;
  }

  private stopWaiting(): void {
    this.resolve = undefined;
    this.waiting = undefined;
    this.waitingOn?.waiters.delete(this);
    this.waitingOn = undefined;
    this.signal.removeEventListener('abort', this);
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    const resolve = this.resolve;
    this.stopWaiting();
    resolve?.(DONE);
    this.logs.followerLeft(this.taskId);
  }
}
