/** One delivery job: one event of one task for one of its configs. */
import type { TaskScope } from '../tasks/task-store.js';

/**
 * What a job carries: which notification, never its body nor the config. The event is read from the
 * task's log when it is sent (a big event is stored once, however many configs hear it), and the
 * config (URL, credentials) again before every attempt, so a deleted config gets nothing more and a
 * rotated credential is used at once.
 */
export interface PushJobData {
  readonly scope: TaskScope;
  readonly taskId: string;
  readonly seq: number;
  readonly configId: string;
  /** The W3C trace context (`traceparent`, `tracestate`) of the commit that made the task due, when it was traced. */
  readonly trace?: Readonly<Record<string, string>>;
  /**
   * Attempts at this event made before the job existed: a run that went on to this event from an
   * earlier one made its first attempt, and this job makes the rest of the schedule.
   */
  readonly attemptsBefore?: number;
  /** An operator's redelivery of a dead letter: sent whatever the config's cursor says, and the cursor left as it is. */
  readonly redelivery?: boolean;
}

/** What a job ended with (its BullMQ return value). */
export type PushJobOutcome = 'delivered' | 'disabled' | 'dropped' | 'duplicate';

/**
 * The job id, which is also the notification's `webhook-id`: stable for one (task, event, config),
 * so enqueueing twice is a no-op and receivers can deduplicate retries. BullMQ refuses most ids
 * with a colon, hence the dots; the ids are percent-encoded (a config id is chosen by the client).
 */
export function webhookIdOf(taskId: string, seq: number, configId: string): string {
  return `${encodeURIComponent(taskId)}.${seq}.${encodeURIComponent(configId)}`;
}
