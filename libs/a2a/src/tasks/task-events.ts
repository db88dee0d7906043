/** Who hears of every event appended to a task's log (push notifications, metrics). */
import type { LoggedEvent } from './event-log.js';
import type { TaskScope } from './task-store.js';

/**
 * Called by the task's single writer once per commit, after its events are in the log and the
 * snapshot saved: `events` in log order (one commit often carries several, e.g. a quick task's
 * whole lifecycle). A listener that fails fails the write that triggered it (the events stay
 * logged): make it durable-but-quick (enqueue, don't deliver).
 * @publicApi
 */
export interface TaskEventListener {
  onAppended(scope: TaskScope, taskId: string, events: readonly LoggedEvent[]): Promise<void>;
}

/** Injection token of the listeners (a multi-provider array). @publicApi */
export const TASK_EVENT_LISTENERS = Symbol('A2A:TaskEventListeners');
