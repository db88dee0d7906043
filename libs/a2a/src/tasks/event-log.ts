/** The per-task event log: the single ordered record every consumer projects from. */
import { isTerminalState, type StreamResponse } from '../protocol/types.js';

/** @publicApi */
export interface LoggedEvent {
  /** Gapless, starting at 1 for each task. */
  readonly seq: number;
  readonly event: StreamResponse;
}

/**
 * The log of a {@link TaskBackend} (which appends to it with the snapshot through `commit`).
 * @publicApi
 */
export interface EventLog {
  /**
   * Appends one event after `expectedSeq` (the last sequence number the writer knows; 0 for a new
   * log) and returns its sequence number, `expectedSeq + 1`.
   * @throws ConcurrentTaskUpdateError when the log has moved past `expectedSeq`
   */
  append(taskId: string, event: StreamResponse, expectedSeq: number): Promise<number>;
  /**
   * The events after `afterSeq`, then every event appended later, in order, until `signal`
   * aborts (then the iteration ends quietly) or the iterator's `return()` is called. Waits for a
   * log that does not exist yet. `signal` is left out only when {@link followEndsOnReturn} is set.
   */
  follow(taskId: string, afterSeq: number, signal?: AbortSignal): AsyncIterable<LoggedEvent>;
  /**
   * Set when `return()` on a follow's iterator ends it at once, even while its `next()` waits for
   * an event (that `next()` then resolves done, and the follower lets go of what it held). Open
   * streams then follow without an `AbortSignal` of their own (about 0.8 KB an open stream, issue
   * 14) and stop through `return()` when their client leaves. Leave it unset for a `follow`
   * written as an async generator: a generator answers `return()` only after its pending `next()`,
   * i.e. at the task's next event, so such a log is given a signal that aborts when the client leaves.
   */
  readonly followEndsOnReturn?: boolean;
  /**
   * The stored events from `fromSeq` to `toSeq` (both included), in order, at once, without waiting:
   * a prefix of them when the log ends sooner or the backend reads in pages (Redis: 100), none when
   * the log does not exist (any more). Optional: push notifications
   * read the event they send with it, and fall back to `follow` for a log without it.
   */
  read?(taskId: string, fromSeq: number, toSeq: number): Promise<LoggedEvent[]>;
}

/** Does this event end its task? Then its log is kept for the retention time only. */
export function isTerminalEvent(event: StreamResponse): boolean {
  if ('statusUpdate' in event) return isTerminalState(event.statusUpdate.status.state);
  if ('task' in event) return isTerminalState(event.task.status.state);
  return false;
}
