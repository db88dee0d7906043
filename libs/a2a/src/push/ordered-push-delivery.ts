/**
 * Push as a projection of the task's log, in order per (task, config): a config has a cursor (the
 * last event delivered or given up), and one run at a time sends its events, the one holding its
 * lease (`push:run`, see push-outbox.ts). A run is a BullMQ job, whose id is the `webhook-id` of the
 * event it was enqueued for: it takes the lease, sends the event after the cursor, moves the cursor,
 * and goes on with the next event while the log has one due, in the same run (one job for a burst of
 * events, not one per event; the config is read again before each event). A 410 deletes the config:
 * nothing more is sent to it.
 *
 * A run may also start without a job (a direct run, `PushJobRun.direct`): the instance whose commit
 * made the event due starts it at once, in a slot of the worker's (push-relay.ts), and saves the
 * job's three BullMQ scripts. It is the same run under the same lease, held under an id of its own;
 * every event it sends is a later event in what follows, so a failed attempt goes to a job.
 *
 * An event whose attempt failed is handed to a job of its own (same `webhook-id`), delayed by its
 * backoff, and the lease with it, so attempts are counted per event and retried on the schedule as
 * before. A run also hands over at the run limit, at shutdown, and when the schedule delays first
 * attempts.
 *
 * **Only the holder sends, and no event is left with nobody to send it.** A job that finds the lease
 * held by another live run completes at once ('duplicate', no attempt counted); that is safe because:
 * 1. The holder lets go only in the script that moves its cursor, atomically with reading `push:due`,
 *    and only if nothing is due after the cursor. Every commit of events marks `push:due` in the same
 *    atomic step (the commit script). So an event committed before that script is sent by the holder;
 *    one committed after finds the lease free, and the relay (poked by the commit, or its sweep every
 *    second) enqueues the job for the event after the cursor, which takes the lease.
 * 2. A handover writes the lease to the next job's id before adding that job. If the add is lost (the
 *    instance died in between, or the id belonged to a job stepping aside that moment), the lease
 *    lapses `delay + leaseMs` later and the relay's sweep, which leaves leased configs alone until
 *    then, enqueues the job.
 * 3. A holder that dies keeps the lease until it lapses (`attemptTimeoutMs` + 5 s after its last
 *    renewal); its BullMQ job is found stalled and run again under the same id, which takes the lease
 *    back at once and goes on from the cursor; failing that (or for a direct run, which has no job),
 *    the sweep enqueues once the lease lapses.
 * A lease outlives an attempt's deadline and is renewed at every event, so a live holder never loses
 * it mid-attempt: two runs never POST the same event at once.
 *
 * Every step is idempotent, so an instance may die anywhere: an event is attempted again (the same
 * `webhook-id`) until its cursor has moved past it.
 */
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { errorLine } from '../config/error-line.js';
import { encode } from '../protocol/codec.js';
import { StreamResponseSchema } from '../protocol/schemas.js';
import type { StreamResponse } from '../protocol/types.js';
import { withFields } from '../protocol/json-value.js';
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

/** How long a lease outlives an attempt's deadline (renewed at every event a run moves past). */
const LEASE_MARGIN_MS = 5_000;

/** Events one run sends at most before it hands the rest to a new job: a long task keeps no worker slot from others' jobs. */
const RUN_LIMIT = 64;

/** Events read from the log at once. */
const READ_AHEAD = 16;

export interface OrderedPushDeliveryDeps {
  readonly configs: PushConfigStore;
  readonly outbox: Pick<RedisPushOutbox, 'claim' | 'advance' | 'handOver' | 'forget' | 'recordFailedAttempt'>;
  readonly log: EventLog;
  /** Where the task is read for a config registered over A2A 0.3, whose notifications carry the whole task. */
  readonly tasks?: Pick<TaskStore, 'get'>;
  readonly webhooks: Pick<WebhookDeliveryProcessor, 'process' | 'dropped' | 'nextDelay' | 'close'>;
  readonly queue: Pick<PushDeliveryQueue, 'add'>;
  readonly slots: Pick<DeliverySlots, 'take'>;
  readonly options: Pick<ResolvedPushOptions, 'retrySchedule' | 'jitter' | 'attemptTimeoutMs'>;
  readonly random?: () => number;
  /** How long a run's lease lasts without renewal; default `attemptTimeoutMs` + 5 s. */
  readonly leaseMs?: number;
  /**
   * How long a finished task's configs and cursors are kept (the relay's setting): given, a run whose
   * config has caught up clears the task's due entry itself once every config has (see the outbox's ADVANCE).
   */
  readonly finishedTaskConfigTtlMs?: number;
}

/**
 * The job that sends event `seq` of a task to one config: its id is the notification's `webhook-id`.
 * It waits the schedule's first delay, or `delayMs`.
 */
export function pushJobFor(
  data: Omit<PushJobData, 'redelivery'>,
  options: Pick<ResolvedPushOptions, 'retrySchedule' | 'jitter'>,
  random: () => number = Math.random,
  delayMs = jittered(options.retrySchedule[0], options.jitter, random),
): PushJob {
  const { scope, taskId, seq, configId, trace, attemptsBefore } = data;
  return {
    id: webhookIdOf(taskId, seq, configId),
    data: { scope: { agent: scope.agent, tenant: scope.tenant, subject: scope.subject }, taskId, seq, configId, ...(trace && { trace }), ...(attemptsBefore && { attemptsBefore }) },
    delayMs,
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

/** One attempt as the webhook processor takes it, less the config and the notification. */
type Attempt = { readonly webhookId: string; readonly data: PushJobData; readonly attemptsMade: number; readonly maxAttempts: number; readonly enqueuedAt?: number };

/** What the log holds from some seq on (seq → event); undefined for a log without `read`. */
type ReadAhead = Map<number, StreamResponse> | undefined;

/** A job's attempt at its own event. */
function attemptOf(job: PushJobRun): Attempt {
  const { taskId, seq, configId } = job.data;
  return { webhookId: webhookIdOf(taskId, seq, configId), data: job.data, attemptsMade: job.attemptsMade, maxAttempts: job.maxAttempts, enqueuedAt: job.enqueuedAt };
}

/** @internal */
export class OrderedPushDelivery implements PushJobProcessor {
  private readonly logger = new Logger('A2A');
  private readonly random: () => number;
  private readonly leaseMs: number;
  private lastUnreachable = 0;

  constructor(private readonly deps: OrderedPushDeliveryDeps) {
    this.random = deps.random ?? Math.random;
    this.leaseMs = deps.leaseMs ?? deps.options.attemptTimeoutMs + LEASE_MARGIN_MS;
  }

  /**
   * One run of a job. Only the receiver's verdict counts as an attempt: a run that cannot read or
   * write Redis, before the POST or after it, throws DeliveryDeferredError (counted by nobody) and is
   * run again once Redis answers. Otherwise an outage would count attempts never made, and an event
   * could be judged given up at its first real attempt, or its job failed before its cursor moved.
   * (A run that went on to a later event keeps the lease under its own id, so its next run goes on
   * from the cursor; an attempt at that later event whose handover could not be written is not
   * counted.)
   */
  async process(job: PushJobRun, signal: AbortSignal, stopping?: AbortSignal): Promise<PushJobOutcome> {
    try {
      return await (job.data.redelivery ? this.redeliver(job, signal) : this.run(job, signal, stopping));
    } catch (error) {
      if (error instanceof DeliveryAttemptError || error instanceof DeliveryFailedError || error instanceof DeliveryDeferredError) throw error;
      // shutting down (the job is attempted again later), or a reply error: a defect, not an outage
      if (signal.aborted || (error as Error)?.name === 'ReplyError') throw error;
      if (Date.now() - this.lastUnreachable >= 60_000) {
        // once a minute: an outage fails every run alike
        this.lastUnreachable = Date.now();
        this.logger.warn(`Push delivery: Redis unavailable (${errorLine(error)}); the job is run again later, no attempt counted`);
      }
      throw new DeliveryDeferredError(UNREACHABLE_MS + Math.floor(this.random() * UNREACHABLE_MS));
    }
  }

  /** An operator's redelivery of a dead letter: sent whatever the cursor says, no lease, the cursor left as it is. */
  private async redeliver(job: PushJobRun, signal: AbortSignal): Promise<PushJobOutcome> {
    const { scope, taskId, seq, configId } = job.data;
    const attempt = attemptOf(job);
    const [config, events] = await Promise.all([this.deps.configs.get(scope, taskId, configId), this.readAhead(taskId, seq, seq)]);
    if (!config) {
      await this.deps.outbox.forget(scope, taskId, configId);
      return this.deps.webhooks.dropped(attempt);
    }
    const outcome = await this.send(attempt, config, events, signal);
    if (outcome === 'disabled') await this.deps.outbox.forget(scope, taskId, configId);
    return outcome;
  }

  /**
   * Takes the config's lease and sends its events from the one after the cursor, while they are due
   * (see the file's comment). The job's own event (the first, when it is the one after the cursor)
   * counts its attempts as the job does and fails or retries with the job, as before; a later event's
   * first attempt is made here, and a failed one is handed to a job of its own.
   */
  private async run(job: PushJobRun, signal: AbortSignal, stopping?: AbortSignal): Promise<PushJobOutcome> {
    const { data } = job;
    const { scope, taskId, seq, configId } = data;
    // the job's own attempt; its webhook-id names the lease's holder (a direct run's holder is its own:
    // a job of the same id, enqueued by a sweep, must step aside rather than share the lease)
    const own = attemptOf(job);
    const holder = job.direct ? `${own.webhookId}#${randomUUID()}` : own.webhookId;
    // the lease with the config, and the events, in one round trip; the job's event follows its cursor at seq - 1
    const [claim, read] = await Promise.all([this.deps.outbox.claim(scope, taskId, configId, holder, seq - 1, this.leaseMs), this.readAhead(taskId, seq)]);
    const first = claim.config;
    // another run sends this config's events, and sees this one before it lets go (no attempt counted)
    if (claim.state === 'held') return 'duplicate';
    // this event waits for its backoff (an early copy of its job)
    if (claim.state === 'early') throw new DeliveryDeferredError(claim.waitMs);
    if (!first) {
      await this.deps.outbox.forget(scope, taskId, configId);
      return this.deps.webhooks.dropped(own);
    }
    // done already (an attempt whose instance died after delivering), and nothing more is due
    if (claim.state === 'idle') return 'duplicate';
    const start = first.afterSeq ?? 0;
    const schedule = this.deps.options.retrySchedule;
    let config: StoredPushConfig | undefined = first;
    let cursor = claim.cursor ?? start;
    // the last event known due: the log is read ahead beside a cursor's move only up to it (an event
    // committed later is read when the move says the run goes on)
    let due = claim.dueSeq;
    let events = read;
    let outcome: PushJobOutcome = 'duplicate';
    for (let sent = 0; ; sent++) {
      const next = cursor + 1;
      const isOwn = !job.direct && sent === 0 && next === seq;
      const attempt: Attempt = isOwn
        ? own
        : { webhookId: webhookIdOf(taskId, next, configId), data: { scope, taskId, seq: next, configId, ...(data.trace && { trace: data.trace }) }, attemptsMade: 0, maxAttempts: schedule.length, enqueuedAt: job.enqueuedAt };
      if (sent > 0 && (sent >= RUN_LIMIT || stopping?.aborted || schedule[0] > 0)) {
        // its own job, after the schedule's first delay when it has one
        await this.handOver(holder, attempt.data, jittered(schedule[0], this.deps.options.jitter, this.random), 0);
        return outcome;
      }
      if (!config) {
        // deleted meanwhile: nothing more is sent to it
        await this.deps.outbox.forget(scope, taskId, configId);
        this.deps.webhooks.dropped(attempt);
        return outcome;
      }
      if (events && !events.has(next)) events = await this.readAhead(taskId, next);
      let result: 'delivered' | 'disabled' | 'dropped' | 'given up';
      try {
        result = await this.send(attempt, config, events, signal);
      } catch (error) {
        if (isOwn) {
          // as before this job went on to other events: its own retries, its own dead letter
          if (error instanceof DeliveryAttemptError) await this.handOver(holder, data, error.nextDelayMs, undefined).catch(() => undefined);
          if (error instanceof DeliveryFailedError) await this.moveOn(data, holder, cursor, start);
          throw error;
        }
        if (error instanceof DeliveryAttemptError) {
          await this.handOver(holder, attempt.data, error.nextDelayMs, attempt.attemptsMade + 1);
          return outcome;
        }
        if (error instanceof DeliveryDeferredError) {
          await this.handOver(holder, attempt.data, error.delayMs, attempt.attemptsMade);
          return outcome;
        }
        // shutting down: a job's next run takes its lease back, a direct run's event goes to a job now
        if (job.direct && signal.aborted) {
          await this.handOver(holder, attempt.data, 0, attempt.attemptsMade);
          return outcome;
        }
        // its only attempt failed: a dead letter, and the next event follows
        if (!(error instanceof DeliveryFailedError)) throw error;
        result = 'given up';
      }
      if (isOwn) outcome = result === 'given up' ? outcome : result;
      if (result === 'disabled') {
        await this.deps.outbox.forget(scope, taskId, configId);
        return outcome;
      }
      // the cursor moves past it, reading the config again in the same step; the events after it on the way when some are due (one round trip)
      const [advanced, more] = await Promise.all([
        this.deps.outbox.advance(scope, taskId, configId, { from: cursor, to: next, start }, { holder, leaseMs: this.leaseMs, goOn: true }, this.deps.finishedTaskConfigTtlMs),
        events && due > next && !events.has(next + 1) ? this.readAhead(taskId, next + 1) : undefined,
      ]);
      // nothing more due (the lease is let go in the same step), or the lease lapsed to another run
      if (!advanced.goesOn) return outcome;
      cursor = advanced.cursor;
      due = advanced.dueSeq;
      config = advanced.config;
      events = more ?? events;
    }
  }

  /**
   * Hands the lease and the event of `data` to that event's job, which starts in `delayMs` having made
   * `attemptsBefore` attempts (undefined: the job exists, BullMQ retries it). Without the lease
   * nothing is enqueued: its holder sends the event.
   */
  private async handOver(holder: string, data: PushJobData, delayMs: number, attemptsBefore: number | undefined): Promise<void> {
    const job = pushJobFor(withFields(data, { attemptsBefore }), this.deps.options, this.random, delayMs);
    const handed = await this.deps.outbox.handOver(data.scope, data.taskId, data.configId, holder, job.id, delayMs, this.leaseMs);
    if (handed && attemptsBefore !== undefined) await this.deps.queue.add([job]);
  }

  /** Moves the cursor past this job's event given up, lets go of the lease, and enqueues the next event's job when the log has one. */
  private async moveOn(data: PushJobData, holder: string, from: number, start: number): Promise<void> {
    const { scope, taskId, seq, configId } = data;
    const { cursor, dueSeq } = await this.deps.outbox.advance(scope, taskId, configId, { from, to: seq, start }, { holder, leaseMs: this.leaseMs, goOn: false });
    if (dueSeq > cursor) await this.deps.queue.add([pushJobFor({ scope, taskId, seq: cursor + 1, configId, trace: data.trace }, this.deps.options, this.random)]);
  }

  /**
   * One attempt at one event under a delivery slot: 'dropped' when the task is gone (retention),
   * nothing sent. A failed attempt is recorded for operators (lost without Redis; it still counts).
   */
  private async send(attempt: Attempt, config: StoredPushConfig, events: ReadAhead, signal: AbortSignal): Promise<'delivered' | 'disabled' | 'dropped'> {
    const release = this.deps.slots.take(hostOf(config.url), callerOf(attempt.data.scope));
    // its receiver or its caller has as many deliveries in flight as it may: the worker takes another job
    if (!release) throw new DeliveryDeferredError(DEFER_MS + Math.floor(this.random() * DEFER_MS));
    let answered = true;
    try {
      const notification = await this.notification(attempt.data, config, events && { event: events.get(attempt.data.seq) });
      if (!notification) return this.deps.webhooks.dropped(attempt);
      return await this.deps.webhooks.process({ ...attempt, config, notification }, signal);
    } catch (error) {
      answered = !(error as { timedOut?: boolean })?.timedOut;
      if (error instanceof DeliveryAttemptError) await this.recordFailedAttempt(attempt.data, attempt.attemptsMade + 1, error).catch(() => undefined);
      throw error;
    } finally {
      release(answered);
    }
  }

  /** Events from `from` on (at most `to`), read in one go; undefined for a log without `read`. */
  private async readAhead(taskId: string, from: number, to = from + READ_AHEAD - 1): Promise<ReadAhead> {
    if (!this.deps.log.read) return undefined;
    return new Map((await this.deps.log.read(taskId, from, to)).map((logged) => [logged.seq, logged.event]));
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
