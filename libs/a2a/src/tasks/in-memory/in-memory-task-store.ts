/**
 * Task snapshots in process memory: the in-memory backend's store. Bounded three ways: finished tasks
 * are kept for a while and up to a count, interrupted ones for a while, and all of them within a byte
 * budget (overall and per caller), finished ones giving way first.
 */
import { jsonSizeOf } from '../../protocol/json-value.js';
import { isInterruptedState, isTerminalState, type Task } from '../../protocol/types.js';
import { compareNewestFirst, decodeCursor, encodeCursor, sortKeyOf } from '../list-cursor.js';
import { DEFAULT_INTERRUPTED_TTL_MS, DEFAULT_RETENTION, TerminalRetention, type RetentionOptions } from '../retention.js';
import { ConcurrentTaskUpdateError, sameScope, type StoredTask, type TaskPage, type TaskQuery, type TaskScope, type TaskStore } from '../task-store.js';
import { DEFAULT_STORAGE_BUDGET, storageBudgetExhausted, type StorageBudgetOptions } from '../storage-budget.js';
import { StorageBudget, ownerOf } from './storage-budget.js';
import { IdTable } from '../id-table.js';

/** @publicApi */
export interface InMemoryTaskStoreOptions extends RetentionOptions {
  /** Bytes of stored tasks kept at most. Default 256 MiB overall, 64 MiB per caller. */
  budget?: StorageBudgetOptions;
}

/** @publicApi */
export class InMemoryTaskStore implements TaskStore {
  /** IdTables, not Maps: kept tasks come and go at the rate of messages (one finished in, the oldest out), the churn that kept a Map's passing entries alive past the young-generation collections (see IdTable). */
  private readonly tasks = new IdTable<StoredTask>();
  /**
   * Task ids by scope and contextId: ListTasks by contextId (what `ctx.conversation()` reads) walks its
   * context only. Keyed by the scope too, so one caller's tasks in a context never slow another's list.
   * A context of one task (the usual: a message that names no context starts one) holds its id alone,
   * not a Set: a Set and its table are ~200 bytes more per kept task, made and collected per task.
   */
  private readonly contexts = new IdTable<string | Set<string>>();
  private readonly finished: TerminalRetention;
  private readonly interrupted: TerminalRetention;
  private readonly budget: StorageBudget;
  private readonly dropListeners: Array<(taskId: string) => void> = [];

  constructor(options: InMemoryTaskStoreOptions = DEFAULT_RETENTION) {
    this.finished = new TerminalRetention(options, (id) => this.drop(id));
    this.interrupted = new TerminalRetention(
      { ttlMs: options.interruptedTtlMs ?? DEFAULT_INTERRUPTED_TTL_MS, maxTerminalTasks: Number.POSITIVE_INFINITY },
      (id) => this.drop(id),
    );
    this.budget = new StorageBudget(options.budget ?? DEFAULT_STORAGE_BUDGET);
  }

  async get(scope: TaskScope, taskId: string): Promise<StoredTask | undefined> {
    const stored = this.tasks.get(taskId);
    return stored && sameScope(stored.scope, scope) ? stored : undefined;
  }

  async save(scope: TaskScope, task: Task, seq: number, expectedVersion: number): Promise<StoredTask> {
    return this.put(scope, task, seq, expectedVersion);
  }

  /** Would a save of `taskId` in `scope` expecting `expectedVersion` be taken? */
  accepts(scope: TaskScope, taskId: string, expectedVersion: number): boolean {
    const current = this.tasks.get(taskId);
    return (current?.version ?? 0) === expectedVersion && (current === undefined || sameScope(current.scope, scope));
  }

  /** {@link save}, synchronously: the in-memory backend's commit runs it right after the log's append, nothing in between. */
  put(scope: TaskScope, task: Task, seq: number, expectedVersion: number): StoredTask {
    if (!this.accepts(scope, task.id, expectedVersion)) throw new ConcurrentTaskUpdateError(task.id);
    const current = this.tasks.get(task.id);
    const stored: StoredTask = { task, scope, seq, version: expectedVersion + 1 };
    this.tasks.set(task.id, stored);
    if (current?.task.contextId !== task.contextId) {
      if (current) this.unindex(current);
      this.index(stored);
    }
    const owner = ownerOf(scope);
    this.budget.set(owner, task.id, jsonSizeOf(task));
    const state = task.status.state;
    if (isTerminalState(state)) {
      this.interrupted.forget(task.id);
      this.finished.finished(task.id);
    } else if (isInterruptedState(state)) {
      // the clock runs from when the task was interrupted, not from its latest write
      if (!current || !isInterruptedState(current.task.status.state)) this.interrupted.finished(task.id);
    } else {
      this.interrupted.forget(task.id);
    }
    // what an agent writes is stored; finished tasks give way when that goes over a budget
    this.makeRoom(owner, 0, task.id);
    return stored;
  }

  /**
   * Room for `bytes` more of `scope`'s caller: finished tasks give way first, oldest first (the
   * caller's own for its budget, anyone's for the overall one).
   * @throws ResourceExhaustedError (429, with Retry-After) when running and interrupted tasks fill the budget
   */
  async admit(scope: TaskScope, bytes: number): Promise<void> {
    const owner = ownerOf(scope);
    this.makeRoom(owner, bytes);
    if (!this.budget.fits(owner, bytes)) throw storageBudgetExhausted();
  }

  async list(scope: TaskScope, query: TaskQuery): Promise<TaskPage> {
    const after = query.statusTimestampAfter ? Date.parse(query.statusTimestampAfter) : undefined;
    const candidates =
      query.contextId === undefined
        ? this.tasks.values()
        : idsOf(this.contexts.get(contextKey(scope, query.contextId))).map((id) => this.tasks.get(id)!);
    const matching = [...candidates]
      .filter(({ scope: s, task }) => {
        if (!sameScope(s, scope)) return false;
        if (query.contextId !== undefined && task.contextId !== query.contextId) return false;
        if (query.status !== undefined && task.status.state !== query.status) return false;
        return after === undefined || sortKeyOf(task).time >= after;
      })
      .map(({ task }) => ({ task, key: sortKeyOf(task) }))
      .sort((a, b) => compareNewestFirst(a.key, b.key));
    const cursor = query.pageToken ? decodeCursor(query.pageToken) : undefined;
    const start = cursor ? matching.findIndex((m) => compareNewestFirst(cursor, m.key) < 0) : 0;
    const page = start < 0 ? [] : matching.slice(start, start + query.pageSize);
    const more = start >= 0 && start + query.pageSize < matching.length;
    return {
      tasks: page.map((m) => m.task),
      totalSize: matching.length,
      nextPageToken: more ? encodeCursor(page[page.length - 1].key) : '',
    };
  }

  /** Bytes of stored tasks, overall or of one caller's scope (an estimate of their JSON). */
  storedBytes(scope?: TaskScope): number {
    return this.budget.used(scope === undefined ? undefined : ownerOf(scope));
  }

  /** Tells `listener` of every task dropped (expired or evicted), e.g. so that its log goes too. */
  onDrop(listener: (taskId: string) => void): void {
    this.dropListeners.push(listener);
  }

  /** Stops the retention timers. */
  close(): void {
    this.finished.close();
    this.interrupted.close();
  }

  /**
   * Until `bytes` more of `owner` fit, drops finished tasks, oldest first: anyone's while the
   * store is over its overall budget, the owner's own while only the owner is over its budget.
   */
  private makeRoom(owner: string, bytes: number, keep?: string): void {
    if (this.budget.fits(owner, bytes)) return;
    for (const id of [...this.finished.keys()]) {
      if (this.budget.fits(owner, bytes)) return;
      if (id === keep) continue;
      const overall = this.budget.used() + bytes > this.budget.options.maxBytes;
      if (overall || ownerOf(this.tasks.get(id)!.scope) === owner) this.drop(id);
    }
  }

  private index({ scope, task }: StoredTask): void {
    if (task.contextId === undefined) return;
    const key = contextKey(scope, task.contextId);
    const ids = this.contexts.get(key);
    if (ids === undefined) this.contexts.set(key, task.id);
    else if (typeof ids !== 'string') ids.add(task.id);
    else if (ids !== task.id) this.contexts.set(key, new Set([ids, task.id]));
  }

  private unindex({ scope, task }: StoredTask): void {
    if (task.contextId === undefined) return;
    const key = contextKey(scope, task.contextId);
    const ids = this.contexts.get(key);
    if (ids === task.id) this.contexts.delete(key);
    else if (typeof ids === 'object' && ids.delete(task.id) && ids.size === 0) this.contexts.delete(key);
  }

  private drop(taskId: string): void {
    const stored = this.tasks.get(taskId);
    if (!stored) return;
    this.tasks.delete(taskId);
    this.unindex(stored);
    this.finished.forget(taskId);
    this.interrupted.forget(taskId);
    this.budget.remove(taskId);
    for (const listener of this.dropListeners) listener(taskId);
  }
}

/** The task ids of a context's entry. */
function idsOf(entry: string | Set<string> | undefined): string[] {
  return entry === undefined ? [] : typeof entry === 'string' ? [entry] : [...entry];
}

/** One key per (scope, contextId), whatever characters they hold: each of the first three is length-prefixed. */
function contextKey(scope: TaskScope, contextId: string): string {
  return `${scope.agent.length}:${scope.agent}${scope.tenant.length}:${scope.tenant}${scope.subject.length}:${scope.subject}${contextId}`;
}
