/**
 * Where tasks live and who may write them, as one unit: the part a deployment swaps (in memory,
 * Redis, or a backend of your own) and the only storage the task engine knows.
 */
import type { StreamResponse, Task } from '../protocol/types.js';
import type { EventLog } from './event-log.js';
import type { TaskCoordinator } from './task-coordinator.js';
import type { StoredTask, TaskScope, TaskStore } from './task-store.js';

/** One write of a task: events appended to its log, and the snapshot they fold into. @publicApi */
export interface TaskWrite {
  readonly scope: TaskScope;
  /** The task as the writer last read or wrote it; undefined when this write creates it. */
  readonly current: StoredTask | undefined;
  /** Appended after `current.seq` (0 for a new task), in this order. */
  readonly events: readonly StreamResponse[];
  /** The snapshot `events` fold `current` into (the writer has folded them: see `applyEvent`). */
  readonly next: Task;
}

/**
 * Storage and coordination of tasks. The engine reads through `store` (get, list) and `log`
 * (follow), coordinates instances through `coordinator`, and writes through `commit` alone;
 * `store.save` and `log.append` are the primitives the contract suites exercise, of which
 * `commit` is the atomic composition.
 *
 * To bring your own, implement this and pass it as the module's `taskBackend` option; run
 * `describeTaskBackendContract` (the `testing` entry) against it: it holds every rule below.
 * @publicApi
 */
export interface TaskBackend {
  readonly store: TaskStore;
  readonly log: EventLog;
  readonly coordinator: TaskCoordinator;
  /**
   * Appends `write.events` to the task's log after `current.seq` and saves `write.next` as its
   * snapshot (`seq` = the last event's, `version` = `current.version + 1`, or 1), atomically:
   * both happen, or nothing does.
   *
   * Claims go with the writes: a commit that creates a task (no `current`) gives this instance the
   * task's claim, for the turn writing it; a commit that ends a task (`next` in a terminal state)
   * drops this instance's claim on it; one that does both leaves no claim.
   *
   * @throws ConcurrentTaskUpdateError when the log has moved past `current.seq`, the snapshot is not
   *   at `current.version` (or is missing, or exists when this write creates the task, or belongs to
   *   another scope): nothing is written.
   */
  commit(write: TaskWrite): Promise<StoredTask>;
  /**
   * Makes room for about `bytes` more of `scope`'s caller before a turn starts (a new task, or a
   * message to an interrupted one), e.g. by letting finished tasks go. Called before anything of the
   * turn is written or claimed. A backend without budgets resolves.
   * @throws ResourceExhaustedError (429, with `retryAfterSeconds`) when the budget for that caller, or overall, is used up
   */
  admit(scope: TaskScope, bytes: number): Promise<void>;
  /** Lets go of what the backend runs (timers, readers, connections it made). Called once, at shutdown. */
  close(): Promise<void>;
  /**
   * Optional: whether each connection or worker the backend runs is usable now, by a name of your
   * choosing (`{ redis: true, eventLogReader: false }`). The module's health indicator reports it;
   * a backend without it is taken as healthy. Should answer within a second, whatever the storage does.
   */
  health?(): Promise<Record<string, boolean>>;
}

/** Injection token of the module's {@link TaskBackend}. @publicApi */
export const TaskBackend = Symbol('A2A:TaskBackend');
