/** Where task snapshots live. The snapshot is a fold of the task's event log (see `task-fold.ts`). */
import { TaskNotFoundError, echoed } from '../protocol/errors.js';
import type { Task, TaskState } from '../protocol/types.js';

/**
 * Who a task belongs to. Every read is scoped: a task of another scope is "not found".
 * @publicApi
 */
export interface TaskScope {
  /** The published agent that owns the task. */
  readonly agent: string;
  /** The request's `tenant` ('' when none). */
  readonly tenant: string;
  /** The caller's subject, from the host's authentication. */
  readonly subject: string;
}

export function sameScope(a: TaskScope, b: TaskScope): boolean {
  return a.agent === b.agent && a.tenant === b.tenant && a.subject === b.subject;
}

/**
 * The task, or TaskNotFoundError: a task of another scope is not found, exactly like a missing one.
 * @throws TaskNotFoundError
 */
export async function requireTask(store: TaskStore, scope: TaskScope, taskId: string): Promise<StoredTask> {
  const stored = await store.get(scope, taskId);
  if (!stored) throw new TaskNotFoundError(`Task ${echoed(taskId)} not found`, { taskId: echoed(taskId) });
  return stored;
}

/** @publicApi */
export interface StoredTask {
  readonly task: Task;
  readonly scope: TaskScope;
  /** Sequence number of the last event of the task's log folded into `task`. */
  readonly seq: number;
  /** Optimistic-concurrency version: bumped by every save. */
  readonly version: number;
}

/** @publicApi */
export interface TaskQuery {
  contextId?: string;
  status?: TaskState;
  /** RFC 3339; tasks whose status timestamp is at or after it. */
  statusTimestampAfter?: string;
  pageSize: number;
  pageToken?: string;
}

/** @publicApi */
export interface TaskPage {
  tasks: Task[];
  totalSize: number;
  /** '' on the last page. */
  nextPageToken: string;
}

/**
 * Task snapshots, the store of a {@link TaskBackend} (which writes them with its events through `commit`).
 * @publicApi
 */
export interface TaskStore {
  /** The task, or undefined when it does not exist or belongs to another scope. */
  get(scope: TaskScope, taskId: string): Promise<StoredTask | undefined>;
  /**
   * Writes a snapshot. `expectedVersion` 0 creates; otherwise it must equal the stored version.
   * @throws ConcurrentTaskUpdateError when another writer got there first
   */
  save(scope: TaskScope, task: Task, seq: number, expectedVersion: number): Promise<StoredTask>;
  /** Tasks of `scope` matching `query`, by status timestamp, newest first; cursor-paginated. */
  list(scope: TaskScope, query: TaskQuery): Promise<TaskPage>;
}

/** Two writers raced on one task; the loser must re-read and retry, or give up. @publicApi */
export class ConcurrentTaskUpdateError extends Error {
  constructor(readonly taskId: string) {
    super(`Task ${taskId} was updated concurrently`);
    this.name = 'ConcurrentTaskUpdateError';
  }
}
