/** Tasks in process memory: the zero-setup backend. One instance; finished tasks are kept bounded. */
import { isTerminalState } from '../../protocol/types.js';
import { DEFAULT_RETENTION, type RetentionOptions } from '../retention.js';
import type { TaskBackend, TaskWrite } from '../task-backend.js';
import { ConcurrentTaskUpdateError, type StoredTask } from '../task-store.js';
import { InMemoryEventLog } from './in-memory-event-log.js';
import { InMemoryTaskStore } from './in-memory-task-store.js';
import { LocalTaskCoordinator } from './local-task-coordinator.js';

/** @publicApi */
export class InMemoryTaskBackend implements TaskBackend {
  readonly store: InMemoryTaskStore;
  readonly log: InMemoryEventLog;
  readonly coordinator = new LocalTaskCoordinator();

  constructor(retention: RetentionOptions = DEFAULT_RETENTION) {
    this.store = new InMemoryTaskStore(retention);
    this.log = new InMemoryEventLog(retention);
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

  async close(): Promise<void> {
    this.store.close();
    this.log.close();
    this.coordinator.close();
  }
}
