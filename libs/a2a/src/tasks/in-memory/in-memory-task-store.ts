/** Task snapshots in process memory: the zero-setup default. Terminal tasks are kept bounded. */
import { isTerminalState, type Task } from '../../protocol/types.js';
import { compareNewestFirst, decodeCursor, encodeCursor, sortKeyOf } from '../list-cursor.js';
import { DEFAULT_RETENTION, TerminalRetention, type RetentionOptions } from '../retention.js';
import { ConcurrentTaskUpdateError, sameScope, type StoredTask, type TaskPage, type TaskQuery, type TaskScope, type TaskStore } from '../task-store.js';

/** @publicApi */
export class InMemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, StoredTask>();
  private readonly retention: TerminalRetention;

  constructor(options: RetentionOptions = DEFAULT_RETENTION) {
    this.retention = new TerminalRetention(options, (id) => this.tasks.delete(id));
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
    const stored: StoredTask = { task, scope, seq, version: expectedVersion + 1 };
    this.tasks.set(task.id, stored);
    if (isTerminalState(task.status.state)) this.retention.finished(task.id);
    return stored;
  }

  async list(scope: TaskScope, query: TaskQuery): Promise<TaskPage> {
    const after = query.statusTimestampAfter ? Date.parse(query.statusTimestampAfter) : undefined;
    const matching = [...this.tasks.values()]
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

  /** Stops the retention timer. */
  close(): void {
    this.retention.close();
  }
}
