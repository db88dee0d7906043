/** Who hears of every event appended to a task's log (push notifications, metrics). */
import type { StreamResponse } from '../protocol/types.js';
import type { TaskScope } from './task-store.js';

/**
 * Called by the task's single writer after each event is in the log and the snapshot saved, in
 * log order. A listener that fails fails the write that triggered it (the event stays logged):
 * make it durable-but-quick (enqueue, don't deliver).
 * @publicApi
 */
export interface TaskEventListener {
  onAppended(scope: TaskScope, taskId: string, seq: number, event: StreamResponse): Promise<void>;
}

/** Injection token of the listeners (a multi-provider array). @publicApi */
export const TASK_EVENT_LISTENERS = Symbol('A2A:TaskEventListeners');
