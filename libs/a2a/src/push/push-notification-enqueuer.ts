/**
 * Hears every commit to a task's log (in order, from the task's single writer) and enqueues one
 * delivery job per event and config of that task, in one add. Durable but quick: nothing is sent here.
 */
import { encode } from '../protocol/codec.js';
import { StreamResponseSchema } from '../protocol/schemas.js';
import { isTerminalState } from '../protocol/types.js';
import { captureTraceContext } from '../telemetry/telemetry-api.js';
import type { LoggedEvent } from '../tasks/event-log.js';
import type { TaskEventListener } from '../tasks/task-events.js';
import type { TaskScope } from '../tasks/task-store.js';
import type { PushConfigStore } from './push-config-store.js';
import type { PushDeliveryQueue } from './push-delivery-queue.js';
import { webhookIdOf } from './push-job.js';
import type { ResolvedPushOptions } from './push-options.js';
import { jittered } from './retry-schedule.js';

/** @internal */
export class PushNotificationEnqueuer implements TaskEventListener {
  constructor(
    private readonly configs: PushConfigStore,
    private readonly queue: Pick<PushDeliveryQueue, 'add'>,
    private readonly options: Pick<ResolvedPushOptions, 'retrySchedule' | 'jitter'>,
    /** How long a finished task's configs are kept. */
    private readonly finishedTaskConfigTtlMs: number,
    private readonly random: () => number = Math.random,
  ) {}

  async onAppended(scope: TaskScope, taskId: string, events: readonly LoggedEvent[]): Promise<void> {
    const configs = await this.configs.list(scope, taskId);
    if (configs.length === 0) return;
    if (events.some(({ event }) => 'statusUpdate' in event && isTerminalState(event.statusUpdate.status.state))) {
      await this.configs.expire(scope, taskId, this.finishedTaskConfigTtlMs);
    }
    const jobScope = { agent: scope.agent, tenant: scope.tenant, subject: scope.subject };
    const trace = captureTraceContext(); // the turn's: each delivery attempt's span is its child
    await this.queue.add(
      events.flatMap(({ seq, event }) => {
        // the body is fixed now, in the HTTP+JSON form, whatever binding the task came through (spec §3.5.1)
        const body = JSON.stringify(encode(StreamResponseSchema, event));
        return configs.map((config) => ({
          id: webhookIdOf(taskId, seq, config.id),
          data: { scope: jobScope, taskId, seq, configId: config.id, body, ...(trace && { trace }) },
          delayMs: jittered(this.options.retrySchedule[0], this.options.jitter, this.random),
        }));
      }),
    );
  }
}
