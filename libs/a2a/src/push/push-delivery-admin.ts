/** What operators do with push deliveries: read and redeliver dead letters, see where each config stands. */
import { redactUrl } from '../net/redact-url.js';
import type { TaskScope } from '../tasks/task-store.js';
import type { PushConfigStore } from './push-config-store.js';
import type { PushDeadLetter, PushDeadLetters } from './push-dead-letters.js';
import type { PushDeliveryQueue } from './push-delivery-queue.js';
import type { FailedAttempt, RedisPushOutbox } from './push-outbox.js';

/** Where one config of a task stands. @publicApi */
export interface PushConfigDeliveryState {
  readonly configId: string;
  /** The webhook URL, redacted. */
  readonly url: string;
  /** The last event delivered to it or given up (a dead letter); its starting point before any. */
  readonly delivered: number;
  /** The task's last event waiting to be pushed to its configs (0: none waits). */
  readonly pendingThrough: number;
  /** The last failed attempt at its next event, while that event waits for another attempt. */
  readonly failing?: FailedAttempt;
}

/**
 * Dead letters (list, inspect, redeliver) and per-config delivery state. Injectable when push is on
 * (`@Inject(PushDeliveryAdmin)`); the command line's `push` commands do the same from outside the app.
 * @publicApi
 */
export class PushDeliveryAdmin {
  constructor(
    private readonly deadLetters: PushDeadLetters,
    private readonly configs: PushConfigStore,
    private readonly outbox: Pick<RedisPushOutbox, 'cursors' | 'due' | 'failedAttempts'>,
    private readonly queue: Pick<PushDeliveryQueue, 'add'>,
  ) {}

  /** The newest dead letters first, at most `limit` (default 100). */
  listDeadLetters(limit = 100): Promise<PushDeadLetter[]> {
    return this.deadLetters.list(limit);
  }

  /** One dead letter, by the notification's `webhook-id`. */
  getDeadLetter(webhookId: string): Promise<PushDeadLetter | undefined> {
    return this.deadLetters.get(webhookId);
  }

  /**
   * Sends a dead letter's notification again (the same `webhook-id`, the event read from the log, the
   * config as it is now), on the retry schedule, outside the config's order: the events after it went
   * on when it was given up. Its record goes; should it fail again, a new one is written.
   * @returns false when there is no such dead letter
   */
  async redeliver(webhookId: string): Promise<boolean> {
    const letter = await this.deadLetters.get(webhookId);
    if (!letter) return false;
    const { scope, taskId, seq, configId } = letter;
    await this.queue.add([
      {
        // a job id of its own: the given-up job may still be kept under the webhook-id
        id: `${webhookId}.redelivery.${Date.now()}`,
        data: { scope: { agent: scope.agent, tenant: scope.tenant, subject: scope.subject }, taskId, seq, configId, redelivery: true },
        delayMs: 0,
      },
    ]);
    await this.deadLetters.remove(webhookId);
    return true;
  }

  /** Where each config of a task stands (none: the task has no configs, or belongs to another scope). */
  async deliveryState(scope: TaskScope, taskId: string): Promise<PushConfigDeliveryState[]> {
    const [configs, cursors, due, failing] = await Promise.all([
      this.configs.list(scope, taskId),
      this.outbox.cursors(scope, taskId),
      this.outbox.due(taskId),
      this.outbox.failedAttempts(scope, taskId),
    ]);
    return configs.map((config) => {
      const attempt = failing.get(config.id);
      return {
        configId: config.id,
        url: redactUrl(config.url),
        delivered: cursors.get(config.id) ?? config.afterSeq ?? 0,
        pendingThrough: due?.seq ?? 0,
        ...(attempt ? { failing: attempt } : {}),
      };
    });
  }
}
