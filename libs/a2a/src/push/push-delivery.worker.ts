/**
 * The worker of the push queue: a `@nestjs/bullmq` processor (`WorkerHost`) that hands each job to
 * the ordered delivery. Loaded only with push on (it imports `@nestjs/bullmq` and `bullmq`).
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { Processor, WorkerHost } from '@nestjs/bullmq';
import { DelayedError, type Job } from 'bullmq';
import { A2A_PUSH_QUEUE_NAME } from '../config/a2a.constants.js';
import { errorLine } from '../config/error-line.js';
import { DeliveryDeferredError, type PushDeliveryQueue, type PushJobProcessor } from './push-delivery-queue.js';
import type { PushJobData, PushJobOutcome } from './push-job.js';
import type { ResolvedPushOptions } from './push-options.js';

/**
 * The lock of a running job is renewed by the worker every half of this while it runs, so it need
 * not cover an attempt: a job whose instance died is found stalled and attempted again within
 * `LOCK_MS + STALLED_CHECK_MS`.
 */
const LOCK_MS = 5_000;
const STALLED_CHECK_MS = 2_500;
/** How long the deliveries aborted at shutdown get to let go of their jobs. */
const ABORTED_WAIT_MS = 2_000;
/** How long the shutdown asks Redis whether it is there (a worker that cannot reach it is closed at once). */
const PROBE_MS = 500;

/** An attempt that failed, with the delay its next attempt waits (BullMQ's backoff reads it). */
class RetryLater extends Error {
  constructor(
    message: string,
    readonly nextDelayMs: number,
  ) {
    super(message);
    this.name = 'RetryLater';
  }
}

/** The backoff of push jobs: the delay the failed attempt chose (see `PushDeliveryWorker.process`). */
function chosenDelay(_attemptsMade: number, _type?: string, error?: Error): number {
  const delay = (error as { nextDelayMs?: unknown } | undefined)?.nextDelayMs;
  return typeof delay === 'number' ? delay : 0;
}

/** @internal */
@Processor(A2A_PUSH_QUEUE_NAME, {
  // started once the app is up, with the concurrency of the options
  autorun: false,
  lockDuration: LOCK_MS,
  stalledInterval: STALLED_CHECK_MS,
  // a job whose instance died mid-attempt is attempted again (at-least-once), however often
  // instances die: a job failed for stalling would stop its config's ordered chain
  maxStalledCount: Number.MAX_SAFE_INTEGER,
  // after a Redis error the worker waits this long before fetching again; BullMQ's default (15 s)
  // would hold a shutdown that long
  runRetryDelay: 1_000,
  settings: { backoffStrategy: chosenDelay },
})
export class PushDeliveryWorker extends WorkerHost {
  private readonly logger = new Logger('A2A');
  private readonly aborter = new AbortController();
  /** Fires when stopping begins: runs start no further delivery. */
  private readonly stopper = new AbortController();
  /** Jobs and direct runs in this worker's hands (waiting for a slot included). */
  private inFlight = 0;
  /** Deliveries running: jobs and direct runs together, at most `concurrency`. */
  private active = 0;
  /** Jobs waiting for a slot that direct runs hold, first come first served (a direct run never waits). */
  private readonly waiting: Array<() => void> = [];
  private started = false;
  private lastError = 0;
  private stopping?: Promise<void>;

  constructor(
    private readonly processor: PushJobProcessor,
    private readonly queue: PushDeliveryQueue,
    private readonly options: Pick<ResolvedPushOptions, 'concurrency' | 'shutdownTimeoutMs' | 'retrySchedule'>,
  ) {
    super();
    // every webhook request in flight listens on the abort signal until it ends: up to `concurrency`
    // at once by design, where node's default (10) would warn of a leak with the default of 16
    setMaxListeners(Math.max(options.concurrency, 10), this.aborter.signal);
  }

  async process(job: Job<PushJobData, PushJobOutcome>, token?: string): Promise<PushJobOutcome> {
    this.inFlight++;
    // attempts a run made at this event before handing it to this job count too
    const before = job.data.attemptsBefore ?? 0;
    await this.slot();
    try {
      return await this.processor.process(
        { data: job.data, attemptsMade: before + job.attemptsMade, maxAttempts: before + (job.opts.attempts ?? this.options.retrySchedule.length), enqueuedAt: job.timestamp },
        this.aborter.signal,
        this.stopper.signal,
      );
    } catch (error) {
      // no delivery slot free, or aborted by the shutdown: back to the queue, no attempt counted
      // (BullMQ's public way to put a running job back for later)
      const delayMs = error instanceof DeliveryDeferredError ? error.delayMs : this.aborter.signal.aborted ? 0 : undefined;
      if (delayMs !== undefined) {
        await job.moveToDelayed(Date.now() + delayMs, token);
        throw new DelayedError();
      }
      // BullMQ asks the backoff with the attempts made, this one included
      const nextDelayMs = this.processor.nextDelay(before + job.attemptsMade + 1, error);
      throw new RetryLater((error as Error)?.message ?? String(error), nextDelayMs);
    } finally {
      this.release();
      this.inFlight--;
    }
  }

  /**
   * Starts a direct run of `data`'s config now (no job: see ordered-push-delivery.ts) if one of the
   * `concurrency` slots is free and no job waits for one; false otherwise (the caller enqueues the
   * job). It counts as in flight for the shutdown like a job, and whatever it ends with is already in
   * Redis (a failed attempt handed to a job, or a lease that lapses for the sweep).
   */
  tryRun(data: PushJobData): boolean {
    if (!this.started || this.stopping || this.active >= this.options.concurrency || this.waiting.length > 0) return false;
    this.active++;
    this.inFlight++;
    const run = { data, attemptsMade: 0, maxAttempts: this.options.retrySchedule.length, enqueuedAt: Date.now(), direct: true };
    void this.processor
      .process(run, this.aborter.signal, this.stopper.signal)
      .catch((error: unknown) => {
        // an outage is logged by the processor; a defect has no job to fail, so it is told here
        if (error instanceof DeliveryDeferredError || this.aborter.signal.aborted) return;
        this.logger.warn(`Push delivery: a direct run failed (${errorLine(error)}); the sweep takes its work over once its lease lapses`);
      })
      .finally(() => {
        this.release();
        this.inFlight--;
      });
    return true;
  }

  /** A slot for a job: at once when one is free, else when a delivery ends (handed over, not freed). */
  private async slot(): Promise<void> {
    if (this.active < this.options.concurrency) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }

  /** Starts taking jobs (once the app is up). */
  start(): void {
    const worker = this.worker;
    if (worker.isRunning() || this.stopping) return;
    worker.concurrency = this.options.concurrency;
    this.started = true;
    worker.on('error', (error: Error) => {
      // Redis down: BullMQ reports every reconnect attempt; once a minute is enough
      if (Date.now() - this.lastError < 60_000) return;
      this.lastError = Date.now();
      this.logger.warn(`Push delivery worker: ${errorLine(error)}`);
    });
    void worker.run().catch((error: unknown) => this.logger.error(`Push delivery worker stopped: ${errorLine(error)}`));
  }

  /** Whether the worker takes jobs. */
  get running(): boolean {
    return this.worker.isRunning() && !this.stopping;
  }

  /**
   * Takes no more jobs, lets the deliveries in flight finish (at most `shutdownTimeoutMs`), then
   * closes the worker. A delivery still running then is aborted: its job goes back to the queue (or,
   * with Redis gone, stays active and is found stalled) and is attempted again by the next worker,
   * with the same `webhook-id`. Never hangs, Redis or not.
   */
  stop(): Promise<void> {
    this.stopping ??= this.close();
    return this.stopping;
  }

  private async close(): Promise<void> {
    const worker = this.worker;
    // from now on a connection that loses Redis ends instead of reconnecting
    this.queue.connection.giveUp();
    this.stopper.abort();
    if (worker.isRunning()) {
      await worker.pause(true);
      if (!(await this.drained(this.options.shutdownTimeoutMs))) {
        this.logger.warn(`Push delivery worker: ${this.inFlight} deliveries still in flight at shutdown were aborted; they will be attempted again`);
        this.aborter.abort(new Error('shutting down'));
        await this.drained(ABORTED_WAIT_MS);
      }
    }
    // BullMQ's graceful close waits for an 'end' of its blocking connection that a client
    // reconnecting to a Redis that is gone never emits: without Redis, close without waiting
    const reachable = await this.queue.reachable(PROBE_MS);
    await worker.close(!reachable);
  }

  private async drained(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.inFlight > 0 && Date.now() < deadline) await sleep(20);
    return this.inFlight === 0;
  }
}
