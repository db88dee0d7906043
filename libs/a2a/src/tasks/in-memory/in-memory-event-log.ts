/** Event logs in process memory: the zero-setup default. Logs of terminal tasks are kept bounded. */
import type { StreamResponse } from '../../protocol/types.js';
import { isTerminalEvent, type EventLog, type LoggedEvent } from '../event-log.js';
import { ConcurrentTaskUpdateError } from '../task-store.js';
import { DEFAULT_RETENTION, TerminalRetention, type RetentionOptions } from '../retention.js';
import { END, EventLogFollower, WAIT } from '../event-log-follower.js';
import { IdTable } from '../id-table.js';

interface Log {
  /** The task's id as the log was made with it: its followers hold this one string, not one of their own each (issue 14). */
  readonly taskId: string;
  readonly events: LoggedEvent[];
  /** Followers waiting for the next append; none while nobody waits (a log kept after its task ended holds no set). */
  waiters?: Set<LogFollower>;
  /** The task was dropped (expired, evicted): its followers stop. */
  dropped?: boolean;
}

/** @publicApi */
export class InMemoryEventLog implements EventLog {
  /** An IdTable, not a Map: a log comes and goes with each task. */
  private readonly logs = new IdTable<Log>();
  /** None when the log's owner lets each log go with its task. */
  private readonly retention?: TerminalRetention;

  /** `options` bound the logs of finished tasks; `'kept-by-owner'`: logs stay until {@link drop}. */
  constructor(options: RetentionOptions | 'kept-by-owner' = DEFAULT_RETENTION) {
    if (options !== 'kept-by-owner') this.retention = new TerminalRetention(options, (id) => this.drop(id));
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
    if (ends) this.retention?.finished(taskId);
    return seq;
  }

  async read(taskId: string, fromSeq: number, toSeq: number): Promise<LoggedEvent[]> {
    return (this.logs.get(taskId)?.events ?? []).slice(Math.max(1, fromSeq) - 1, Math.max(0, toSeq));
  }

  /** Its followers are {@link EventLogFollower}s: `return()` ends one at once. */
  readonly followEndsOnReturn = true;

  /** A {@link LogFollower} ({@link EventLogFollower}: no generator frame per open stream). */
  follow(taskId: string, afterSeq: number, signal?: AbortSignal): AsyncIterableIterator<LoggedEvent> {
    return new LogFollower(this, this.logs.get(taskId)?.taskId ?? taskId, Math.max(0, afterSeq), signal);
  }

  /** @internal The log of `taskId`, made empty when there is none yet (a follower waits for its first append). */
  logOf(taskId: string): Log {
    return this.log(taskId);
  }

  /** @internal A follower has stopped: a log that never started must not stay behind for it. */
  followerLeft(taskId: string): void {
    const log = this.logs.get(taskId);
    if (log && log.events.length === 0 && !log.waiters?.size) this.logs.delete(taskId);
  }

  /** Forgets a task's log (its snapshot was dropped); whoever follows it stops. */
  drop(taskId: string): void {
    const log = this.logs.get(taskId);
    if (!log) return;
    this.logs.delete(taskId);
    this.retention?.forget(taskId);
    log.dropped = true;
    wakeFollowers(log);
  }

  close(): void {
    this.retention?.close();
  }

  /** Followers waiting for an append, over every log: 0 once every stream has ended (diagnostics, leak tests). */
  get waitingFollowers(): number {
    let waiting = 0;
    for (const log of this.logs.values()) waiting += log.waiters?.size ?? 0;
    return waiting;
  }

  private log(taskId: string): Log {
    let log = this.logs.get(taskId);
    if (!log) {
      log = { taskId, events: [] };
      this.logs.set(taskId, log);
    }
    return log;
  }
}

/** Resumes every follower waiting for `log`'s next event. */
function wakeFollowers(log: Log): void {
  const waiters = log.waiters;
  if (waiters === undefined) return; // the usual append: nobody follows
  // taken off the log: a follower that waits again joins a new set, and a kept log holds none
  log.waiters = undefined;
  waiters.forEach((follower) => follower.wake());
}

/** One `follow()` of an in-memory log: it waits in its log's waiters. */
class LogFollower extends EventLogFollower {
  /** The log it waits on, while it waits. */
  private waitingOn?: Log;

  constructor(
    private readonly logs: InMemoryEventLog,
    private readonly taskId: string,
    /** Index of the next event to yield (seq - 1). */
    private index: number,
    signal: AbortSignal | undefined,
  ) {
    super(signal);
    this.start();
  }

  protected take(): IteratorResult<LoggedEvent> | typeof WAIT | typeof END {
    const waitedOn = this.waitingOn;
    if (waitedOn) {
      this.stopWaiting(waitedOn);
      // the log it waited on was dropped (expired, evicted): it stops, even if the task's id has a new log by now
      if (waitedOn.dropped) return END;
    }
    const log = this.logs.logOf(this.taskId);
    if (log.dropped) return END;
    if (this.index < log.events.length) return { done: false, value: log.events[this.index++] };
    this.waitingOn = log;
    (log.waiters ??= new Set()).add(this);
    return WAIT;
  }

  protected stop(): void {
    if (this.waitingOn) this.stopWaiting(this.waitingOn);
    this.logs.followerLeft(this.taskId);
  }

  private stopWaiting(log: Log): void {
    this.waitingOn = undefined;
    if (log.waiters?.delete(this) && log.waiters.size === 0) log.waiters = undefined;
  }
}
