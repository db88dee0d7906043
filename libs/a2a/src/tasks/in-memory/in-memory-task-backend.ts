/**
 * Tasks in process memory: the zero-setup backend, one instance. What it keeps is bounded: finished
 * tasks by time and count, interrupted ones by time, all of them by a byte budget (overall and per
 * caller) that also admits or refuses each turn; a task the store lets go takes its log with it.
 */
import { isTerminalState } from '../../protocol/types.js';
import { DEFAULT_RETENTION } from '../retention.js';
import type { TaskBackend, TaskWrite } from '../task-backend.js';
import { ConcurrentTaskUpdateError, type StoredTask, type TaskScope } from '../task-store.js';
import { InMemoryEventLog } from './in-memory-event-log.js';
import { InMemoryTaskStore, type InMemoryTaskStoreOptions } from './in-memory-task-store.js';
import { LocalTaskCoordinator } from './local-task-coordinator.js';

/** @publicApi */
export class InMemoryTaskBackend implements TaskBackend {
  readonly store: InMemoryTaskStore;
  readonly log: InMemoryEventLog;
  readonly coordinator = new LocalTaskCoordinator();

  constructor(options: InMemoryTaskStoreOptions = DEFAULT_RETENTION) {
    this.store = new InMemoryTaskStore(options);
    // the store keeps tasks (by time, count and bytes) and a task it lets go takes its log with it:
    // the log needs no retention of its own, which would only track every task a second time
    this.log = new InMemoryEventLog('kept-by-owner');
    this.store.onDrop((taskId) => this.log.drop(taskId));
  }

  /** Atomic because nothing else runs in between: both expectations are checked before the first write. */
  async commit({ scope, current, events, next }: TaskWrite): Promise<StoredTask> {
    const expectedVersion = current?.version ?? 0;
    if (!this.store.accepts(scope, next.id, expectedVersion)) throw new ConcurrentTaskUpdateError(next.id);
    const seq = this.log.appendAll(next.id, events, current?.seq ?? 0);
    const stored = this.store.put(scope, next, seq, expectedVersion);
    if (isTerminalState(next.status.state)) this.coordinator.drop(next.id);
    else if (current === undefined) this.coordinator.adopt(next.id);
    return stored;
  }

  /** Room in the store's byte budget: finished tasks give way first; refused (429) when unfinished ones fill it. */
  admit(scope: TaskScope, bytes: number): Promise<void> {
    return this.store.admit(scope, bytes);
  }

  async close(): Promise<void> {
    this.store.close();
    this.log.close();
    this.coordinator.close();
  }
}
