/**
 * Push as a projection of the task's log, in order per (task, config): a config has a cursor (the
 * last event delivered or given up) and at most one job, the one for the event after its cursor, so a
 * receiver gets a task's events in sequence order. The job reads its event from the log, the config
 * again, and sends it; once the event is delivered or given up (a dead letter) the cursor moves on and
 * the job for the next event is enqueued. A 410 deletes the config: nothing more is sent to it.
 *
 * Every step is idempotent, so an instance may die anywhere: a job whose instance died is attempted
 * again (the same `webhook-id`), a cursor moves only from where the job found it, and a chain broken
 * between moving the cursor and enqueueing the next job is mended by the relay, which enqueues the
 * next job of every lagging config of a due task.
 */
import { Logger } from '@nestjs/common';
import { encode } from '../protocol/codec.js';
import { StreamResponseSchema } from '../protocol/schemas.js';
import type { StreamResponse } from '../protocol/types.js';
import { isV03Version } from '../protocol/v03/constants.js';
import { v03PushNotificationBody } from '../protocol/v03/push-notification.js';
import type { EventLog } from '../tasks/event-log.js';
import type { TaskStore } from '../tasks/task-store.js';
import type { StoredPushConfig } from './push-config-store.js';
import type { PushConfigStore } from './push-config-store.js';
import type { DeliverySlots } from './delivery-slots.js';
import { DeliveryDeferredError, type PushDeliveryQueue, type PushJob, type PushJobProcessor, type PushJobRun } from './push-delivery-queue.js';
import { webhookIdOf, type PushJobData, type PushJobOutcome } from './push-job.js';
import type { ResolvedPushOptions } from './push-options.js';
import type { RedisPushOutbox } from './push-outbox.js';
import { jittered } from './retry-schedule.js';
import { DeliveryAttemptError, DeliveryFailedError, notificationOf, type Notification, type WebhookDeliveryProcessor } from './webhook-delivery.processor.js';

/** A job that finds no delivery slot free steps aside for this long, up to twice (spread, so they do not come back together). */
const DEFER_MS = 200;

/**
 * A run that cannot reach Redis steps aside for this long (spread), no attempt counted: it decided
 * nothing, and counting it would use up the schedule of an event that was never sent.
 */
const UNREACHABLE_MS = 1_000;

/** How long reading one event through `follow` may take (a log without `read`). */
const FOLLOW_READ_MS = 2_000;

export interface OrderedPushDeliveryDeps {
  readonly configs: PushConfigStore;
  readonly outbox: Pick<RedisPushOutbox, 'cursor' | 'advance' | 'forget' | 'recordFailedAttempt'>;
  readonly log: EventLog;
  /** Where the task is read for a config registered over A2A 0.3, whose notifications carry the whole task. */
  readonly tasks?: Pick<TaskStore, 'get'>;
  readonly webhooks: Pick<WebhookDeliveryProcessor, 'process' | 'dropped' | 'nextDelay' | 'close'>;
  readonly queue: Pick<PushDeliveryQueue, 'add'>;
  readonly slots: Pick<DeliverySlots, 'take'>;
  readonly options: Pick<ResolvedPushOptions, 'retrySchedule' | 'jitter'>;
  readonly random?: () => number;
}

/** The job that sends event `seq` of a task to one config: its id is the notification's `webhook-id`. */
export function pushJobFor(data: Omit<PushJobData, 'redelivery'>, options: Pick<ResolvedPushOptions, 'retrySchedule' | 'jitter'>, random: () => number = Math.random): PushJob {
  const { scope, taskId, seq, configId, trace } = data;
  return {
    id: webhookIdOf(taskId, seq, configId),
    data: { scope: { agent: scope.agent, tenant: scope.tenant, subject: scope.subject }, taskId, seq, configId, ...(trace && { trace }) },
    delayMs: jittered(options.retrySchedule[0], options.jitter, random),
  };
}

/** The receiver host a delivery counts against (`host:port`). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The caller a delivery counts against: its task's tenant and subject. */
function callerOf(scope: PushJobData['scope']): string {
  return JSON.stringify([scope.tenant, scope.subject]);
}

/** @internal */
export class OrderedPushDelivery implements PushJobProcessor {
  private readonly logger = new Logger('A2A');
  private readonly random: () => number;
  private lastUnreachable = 0;

  constructor(private readonly deps: OrderedPushDeliveryDeps) {
    this.random = deps.random ?? Math.random;
  }

  /**
   * One run of a job. Only the receiver's verdict counts as an attempt: a run that cannot read or
   * write Redis, before the POST or after it, throws DeliveryDeferredError (counted by nobody) and is
   * run again once Redis answers. Otherwise an outage would count attempts never made, and an event
   * could be judged given up at its first real attempt, or its job failed before its cursor moved.
   */
  async process(job: PushJobRun, signal: AbortSignal): Promise<PushJobOutcome> {
    try {
      return await this.attempt(job, signal);
    } catch (error) {
      if (error instanceof DeliveryAttemptError || error instanceof DeliveryFailedError || error instanceof DeliveryDeferredError) throw error;
      // shutting down (the job is attempted again later), or a reply error: a defect, not an outage
      if (signal.aborted || (error as Error)?.name === 'ReplyError') throw error;
      if (Date.now() - this.lastUnreachable >= 60_000) {
        // once a minute: an outage fails every run alike
        this.lastUnreachable = Date.now();
        this.logger.warn(`Push delivery: Redis unavailable (${String((error as Error)?.message ?? error).split('\n')[0].slice(0, 200)}); the job is run again later, no attempt counted`);
      }
      throw new DeliveryDeferredError(UNREACHABLE_MS + Math.floor(this.random() * UNREACHABLE_MS));
    }
  }

  private async attempt(job: PushJobRun, signal: AbortSignal): Promise<PushJobOutcome> {
    const { data } = job;
    const { scope, taskId, seq, configId } = data;
    const attempt = { webhookId: webhookIdOf(taskId, seq, configId), data, attemptsMade: job.attemptsMade, maxAttempts: job.maxAttempts, enqueuedAt: job.enqueuedAt };
    // the event is read beside the config and the cursor (one round trip, not two in a row); a config
    // registered over 0.3 is sent the task instead, and a log that can only be followed is read later
    const [config, stored, logged] = await Promise.all([
      this.deps.configs.get(scope, taskId, configId),
      this.deps.outbox.cursor(scope, taskId, configId),
      this.deps.log.read ? this.eventAt(taskId, seq).then((event) => ({ event })) : undefined,
    ]);
    if (!config) {
      await this.deps.outbox.forget(scope, taskId, configId);
      return this.deps.webhooks.dropped(attempt);
    }
    const start = config.afterSeq ?? 0;
    if (!data.redelivery) {
      // only the event right after the cursor is sent
      const cursor = stored ?? start;
      if (cursor !== seq - 1) {
        // done already (an attempt whose instance died after delivering), or not this job's turn
        await this.moveOn(data, cursor, start);
        return 'duplicate';
      }
    }
    const release = this.deps.slots.take(hostOf(config.url), callerOf(scope));
    // its receiver or its caller has as many deliveries in flight as it may: the worker takes another job
    if (!release) throw new DeliveryDeferredError(DEFER_MS + Math.floor(this.random() * DEFER_MS));
    let answered = true;
    try {
      const notification = await this.notification(data, config, logged);
      if (!notification) {
        // the task and its log are gone (retention): nothing left to send
        if (!data.redelivery) await this.moveOn(data, seq - 1, start);
        return this.deps.webhooks.dropped(attempt);
      }
      const outcome = await this.deps.webhooks.process({ ...attempt, config, notification }, signal);
      if (outcome === 'disabled') await this.deps.outbox.forget(scope, taskId, configId);
      else if (!data.redelivery) await this.moveOn(data, seq - 1, start);
      return outcome;
    } catch (error) {
      answered = !(error as { timedOut?: boolean })?.timedOut;
      // what an operator sees of a waiting delivery: without Redis it is lost, the attempt still counts
      if (error instanceof DeliveryAttemptError) await this.recordFailedAttempt(data, attempt.attemptsMade + 1, error).catch(() => undefined);
      // given up: a dead letter; the config's next event follows
      if (error instanceof DeliveryFailedError && !data.redelivery) await this.moveOn(data, seq - 1, start);
      throw error;
    } finally {
      release(answered);
    }
  }

  nextDelay(attemptsMade: number, error: unknown): number {
    return this.deps.webhooks.nextDelay(attemptsMade, error);
  }

  /** Releases the connections of the webhook dispatcher. */
  close(): Promise<void> {
    return this.deps.webhooks.close();
  }

  private async recordFailedAttempt(data: PushJobData, attempts: number, error: DeliveryAttemptError): Promise<void> {
    const { scope, taskId, seq, configId } = data;
    const nextAttemptAt = new Date(Date.now() + error.nextDelayMs).toISOString();
    await this.deps.outbox.recordFailedAttempt(scope, taskId, configId, { seq, attempts, lastError: error.message, ...(error.status === undefined ? {} : { lastStatus: error.status }), nextAttemptAt });
  }

  /** Moves the cursor from `from` to this job's event (if it is still there), then enqueues the next event's job when the log has one. */
  private async moveOn(data: PushJobData, from: number, start: number): Promise<void> {
    const { scope, taskId, seq, configId } = data;
    const { cursor, dueSeq } = await this.deps.outbox.advance(scope, taskId, configId, from, from === seq - 1 ? seq : from, start);
    if (dueSeq > cursor) await this.deps.queue.add([pushJobFor({ scope, taskId, seq: cursor + 1, configId, trace: data.trace }, this.deps.options, this.random)]);
  }

  /**
   * What is POSTed: the job's event (a StreamResponse, 1.0); to a config registered over A2A 0.3, the
   * whole task as it is now, in 0.3's shape, as 0.3 servers sent it. `undefined`: the task is gone.
   * `logged`: the event, when it was read already.
   */
  private async notification(data: PushJobData, config: StoredPushConfig, logged?: { event?: StreamResponse }): Promise<Notification | undefined> {
    if (config.protocolVersion !== undefined && isV03Version(config.protocolVersion)) {
      const task = await this.deps.tasks?.get(data.scope, data.taskId);
      return task && { body: JSON.stringify(v03PushNotificationBody(task.task)), contentType: 'application/json' };
    }
    const event = logged ? logged.event : await this.eventAt(data.taskId, data.seq);
    return event && notificationOf(JSON.stringify(encode(StreamResponseSchema, event)));
  }

  private async eventAt(taskId: string, seq: number): Promise<StreamResponse | undefined> {
    const log = this.deps.log;
    if (log.read) return (await log.read(taskId, seq, seq)).find((logged) => logged.seq === seq)?.event;
    const signal = AbortSignal.timeout(FOLLOW_READ_MS);
    for await (const logged of log.follow(taskId, seq - 1, signal)) return logged.seq === seq ? logged.event : undefined;
    return undefined;
  }
}
