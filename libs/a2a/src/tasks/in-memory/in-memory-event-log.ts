/** Event logs in process memory: the zero-setup default. Logs of terminal tasks are kept bounded. */
import type { StreamResponse } from '../../protocol/types.js';
import { isTerminalEvent, type EventLog, type LoggedEvent } from '../event-log.js';
import { ConcurrentTaskUpdateError } from '../task-store.js';
import { DEFAULT_RETENTION, TerminalRetention, type RetentionOptions } from '../retention.js';

interface Log {
  readonly events: LoggedEvent[];
  /** Followers waiting for the next append. */
  readonly waiters: Set<() => void>;
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

  async *follow(taskId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<LoggedEvent> {
    let next = Math.max(0, afterSeq); // index of the next event to yield (seq - 1)
    try {
      while (!signal.aborted) {
        const log = this.log(taskId);
        if (log.dropped) return;
        while (next < log.events.length) {
          yield log.events[next++];
          if (signal.aborted) return;
        }
        await new Promise<void>((resolve) => {
          const wake = () => {
            signal.removeEventListener('abort', wake);
            log.waiters.delete(wake);
            resolve();
          };
          log.waiters.add(wake);
          signal.addEventListener('abort', wake, { once: true });
        });
        if (log.dropped) return;
      }
    } finally {
      // a follower of a log that never started must not leave an empty log behind
      const log = this.logs.get(taskId);
      if (log && log.events.length === 0 && log.waiters.size === 0) this.logs.delete(taskId);
    }
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
  waiters.forEach((wake) => wake());
}
