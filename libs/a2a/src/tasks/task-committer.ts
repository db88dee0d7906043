/** How one event becomes durable: appended to the task's log, and the snapshot it folds into saved. */
import type { StreamResponse, Task } from '../protocol/types.js';
import type { EventLog } from './event-log.js';
import type { StoredTask, TaskScope, TaskStore } from './task-store.js';

/** @publicApi */
export interface TaskCommitter {
  /**
   * Appends `events` (in order) after `current.seq` (0 for a new task) and saves `next`, the
   * task they fold into, as the snapshot. With `claims` (see below) and `takeClaim`, the same
   * write takes this instance's claim on the task; a write that ends the task drops it.
   * @throws ConcurrentTaskUpdateError when another writer got there first (nothing is written)
   */
  commit(scope: TaskScope, current: StoredTask | undefined, events: readonly StreamResponse[], next: Task, takeClaim?: boolean): Promise<StoredTask>;
  /**
   * The committer takes and drops claims inside its writes (one round trip less each way). Then
   * a new task's claim travels with its first write and a finished task's claim goes with its last.
   */
  readonly claims?: boolean;
}

/**
 * The log first (it refuses a stale writer, so no event is ever orphaned), then the snapshot.
 * Backends that can do both in one atomic step (Redis) implement TaskCommitter themselves.
 */
export class SequentialTaskCommitter implements TaskCommitter {
  constructor(
    private readonly store: TaskStore,
    private readonly log: EventLog,
  ) {}

  async commit(scope: TaskScope, current: StoredTask | undefined, events: readonly StreamResponse[], next: Task): Promise<StoredTask> {
    let seq = current?.seq ?? 0;
    for (const event of events) seq = await this.log.append(next.id, event, seq);
    return this.store.save(scope, next, seq, current?.version ?? 0);
  }
}
