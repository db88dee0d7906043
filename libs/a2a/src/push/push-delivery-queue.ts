/**
 * The BullMQ queue of webhook deliveries and its worker. BullMQ and ioredis are optional peers:
 * they are loaded only when push is on.
 *
 * Connections: BullMQ never shares the module's fail-fast command client. The producer (used on the
 * task write path, from the event listener) has a connection of its own that also fails fast, so a
 * Redis outage fails the write instead of stalling the task's writer forever; the worker has one with
 * `maxRetriesPerRequest: null`, as BullMQ's blocking commands need (BullMQ duplicates it for them).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import type { Job, Queue, Worker } from 'bullmq';
import type { Redis, RedisOptions } from 'ioredis';
import { importOptionalPackages } from '../config/optional-package.js';
import { connectOrExplain, redisLocation, type A2ARedisOptions } from '../redis/redis-connection.js';
import type { PushJobData, PushJobOutcome } from './push-job.js';
import type { ResolvedPushOptions } from './push-options.js';

/** The custom backoff's name (the delays come from the schedule and `Retry-After`). */
const BACKOFF_TYPE = 'a2a-push';
/**
 * A completed job goes at once: a job id must be free again for the relay once the job's work is
 * done, and its cursor records what was delivered. Failed jobs (dead letters) are kept as long as
 * their tasks (see `open`), at most this many.
 */
const KEEP_FAILED_COUNT = 1000;
/**
 * The lock of a running job is renewed by the worker every half of this while it runs, so it need
 * not cover an attempt: a job whose instance died is found stalled and attempted again within
 * `LOCK_MS + STALLED_CHECK_MS`.
 */
const LOCK_MS = 5_000;
const STALLED_CHECK_MS = 2_500;

/** One job to add. */
export interface PushJob {
  /** Also the notification's `webhook-id`. */
  readonly id: string;
  readonly data: PushJobData;
  readonly delayMs: number;
}

/**
 * Thrown by a processor that cannot start the job now (no delivery slot free): the job steps aside
 * for `delayMs`, no attempt counted, and the worker takes the next one.
 */
export class DeliveryDeferredError extends Error {
  constructor(readonly delayMs: number) {
    super(`deferred for ${delayMs} ms`);
    this.name = 'DeliveryDeferredError';
  }
}

/** One attempt of one job, as the worker hands it over. */
export interface PushJobRun {
  readonly data: PushJobData;
  /** Attempts made before this one. */
  readonly attemptsMade: number;
  readonly maxAttempts: number;
  /** When the job was enqueued (ms since the epoch). */
  readonly enqueuedAt?: number;
}

/** What the worker runs: one attempt of one job. */
export interface PushJobProcessor {
  process(job: PushJobRun, signal: AbortSignal): Promise<PushJobOutcome>;
  /** The delay before the next attempt, after `attemptsMade` attempts failed with `error`. */
  nextDelay(attemptsMade: number, error: unknown): number;
}

type BullMQ = typeof import('bullmq');
type RedisClass = typeof import('ioredis').Redis;

async function loadPeers(): Promise<{ bullmq: BullMQ; Redis: RedisClass }> {
  const [bullmq, ioredis] = await importOptionalPackages<[BullMQ, typeof import('ioredis')]>('push', ['bullmq', 'ioredis']);
  return { bullmq, Redis: ioredis.Redis };
}

/**
 * A connection of BullMQ's own, made from the module's redis settings. It reconnects as those say
 * until `givingUp()`: from then on a connection that lost Redis ends (ioredis emits 'end' and fails
 * its pending commands) instead of retrying forever, which is what lets BullMQ's close() finish
 * while Redis is gone. (Calling disconnect() on a reconnecting ioredis client would not: it parks
 * the client without an 'end', and BullMQ's close() waits for one.) Duplicates inherit this.
 */
function connectionFrom(RedisClient: RedisClass, redis: A2ARedisOptions, overrides: RedisOptions, givingUp: () => boolean): Redis {
  const base = redis.client?.options ?? redis.options;
  const retry = base?.retryStrategy ?? ((times: number) => Math.min(times * 50, 2000));
  const settings: RedisOptions = {
    lazyConnect: true,
    disconnectTimeout: 200,
    ...overrides,
    retryStrategy: (times: number) => (givingUp() ? null : retry(times)),
    // BullMQ refuses ioredis key prefixes (it has its own `prefix`)
    keyPrefix: '',
  };
  if (redis.client) return redis.client.duplicate(settings);
  const options = { ...redis.options, ...settings };
  return redis.url ? new RedisClient(redis.url, options) : new RedisClient(options);
}

/** Resolves once every connection has ended (or after `ms`). */
async function untilEnded(connections: readonly Redis[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (connections.some((c) => c.status !== 'end' && c.status !== 'wait') && Date.now() < deadline) await sleep(20);
}

function bounded<T>(promise: Promise<T>, ms: number): Promise<{ done: true; value: T } | { done: false }> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.then((value) => ({ done: true as const, value })),
    new Promise<{ done: false }>((resolve) => (timer = setTimeout(() => resolve({ done: false }), ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Should Worker.close() still not finish (a BullMQ that waits on something else), its stalled-job
 * checker and lock-renewal timers would keep the process alive for up to 30 s after the app closed:
 * stops them. A no-op if a later BullMQ names them differently.
 */
function stopTimers(worker: Worker): void {
  const internals = worker as unknown as { stalledCheckStopper?: () => void; lockManager?: { close?: () => Promise<void> } };
  try {
    internals.stalledCheckStopper?.();
    void internals.lockManager?.close?.()?.catch(() => undefined);
  } catch {
    // best effort: the process ends anyway once these timers fire
  }
}

/** @internal */
export class PushDeliveryQueue {
  private readonly logger = new Logger('A2A');
  private worker: Worker<PushJobData, PushJobOutcome> | undefined;
  private workerConnection: Redis | undefined;
  private readonly aborter = new AbortController();
  private lastWorkerError = 0;
  private inFlight = 0;
  private readonly workerDuplicates: Redis[] = [];
  private closed = false;

  private constructor(
    private readonly peers: { bullmq: BullMQ; Redis: RedisClass },
    private readonly redis: A2ARedisOptions,
    private readonly options: ResolvedPushOptions,
    private readonly producer: Redis,
    private readonly queue: Queue<PushJobData, PushJobOutcome>,
    /** Shared with the connections' retry strategies: set at shutdown, they stop reconnecting. */
    private readonly shutdown: { givingUp: boolean },
    /** How long a failed job is kept: as long as its task. */
    private readonly keepFailedSeconds: number,
  ) {}

  /**
   * Connects the producer, or fails start-up at once saying where and why.
   * @throws A2AConfigurationError
   */
  static async open(redis: A2ARedisOptions, options: ResolvedPushOptions, taskRetentionMs: number): Promise<PushDeliveryQueue> {
    const peers = await loadPeers();
    const shutdown = { givingUp: false };
    const producer = connectionFrom(
      peers.Redis,
      redis,
      { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 5_000, connectTimeout: 5_000, connectionName: 'a2a-push-producer' },
      () => shutdown.givingUp,
    );
    await connectOrExplain(producer, (reason) => `push: Redis at ${redisLocation(redis)} is unreachable for the delivery queue (${reason})`);
    const queue = new peers.bullmq.Queue<PushJobData, PushJobOutcome>(options.queueName, { connection: producer, prefix: options.queuePrefix });
    queue.on('error', () => undefined); // surfaces on add(), which fails the write that triggered it
    return new PushDeliveryQueue(peers, redis, options, producer, queue, shutdown, Math.max(1, Math.ceil(taskRetentionMs / 1000)));
  }

  /** Adds jobs; a job whose id is already queued is left as it is (BullMQ ids are idempotent). */
  async add(jobs: readonly PushJob[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.queue.addBulk(
      jobs.map((job) => ({
        name: 'notify',
        data: job.data,
        opts: {
          jobId: job.id,
          delay: job.delayMs,
          attempts: this.options.retrySchedule.length,
          backoff: { type: BACKOFF_TYPE },
          removeOnComplete: true,
          removeOnFail: { age: this.keepFailedSeconds, count: KEEP_FAILED_COUNT },
        },
      })),
    );
  }

  /** Starts the worker (once the app is up). */
  async startWorker(processor: PushJobProcessor): Promise<void> {
    if (this.worker || this.closed) return;
    this.workerConnection = connectionFrom(
      this.peers.Redis,
      this.redis,
      { maxRetriesPerRequest: null, enableOfflineQueue: true, commandTimeout: undefined, connectionName: 'a2a-push-worker' },
      () => this.shutdown.givingUp,
    );
    this.workerConnection.on('error', () => undefined); // reported through the worker's 'error' event
    // BullMQ works on duplicates of this connection (its main and its blocking one): keep hold of
    // them, so a shutdown with Redis gone can stop their reconnect timers
    const template = this.workerConnection;
    const duplicate = template.duplicate.bind(template);
    template.duplicate = ((override?: Partial<RedisOptions>) => {
      const copy = duplicate(override);
      this.workerDuplicates.push(copy);
      return copy;
    }) as typeof template.duplicate;
    const run = async (job: Job<PushJobData, PushJobOutcome>, token?: string) => {
      this.inFlight++;
      try {
        return await processor.process({ data: job.data, attemptsMade: job.attemptsMade, maxAttempts: job.opts.attempts ?? this.options.retrySchedule.length, enqueuedAt: job.timestamp }, this.aborter.signal);
      } catch (error) {
        if (!(error instanceof DeliveryDeferredError)) throw error;
        // BullMQ's public way to put a running job back for later without counting an attempt
        await job.moveToDelayed(Date.now() + error.delayMs, token);
        throw new this.peers.bullmq.DelayedError();
      } finally {
        this.inFlight--;
      }
    };
    const worker = new this.peers.bullmq.Worker<PushJobData, PushJobOutcome>(this.options.queueName, run, {
      connection: this.workerConnection,
      prefix: this.options.queuePrefix,
      concurrency: this.options.concurrency,
      autorun: false,
      lockDuration: LOCK_MS,
      stalledInterval: STALLED_CHECK_MS,
      // a job whose instance died mid-attempt is attempted again (at-least-once), however often
      // instances die: a job failed for stalling would stop its config's ordered chain
      maxStalledCount: Number.MAX_SAFE_INTEGER,
      // after a Redis error the worker waits this long before fetching again; BullMQ's default (15 s)
      // cannot be cut short by close(), and would hold the process that long after a shutdown
      runRetryDelay: 1_000,
      settings: { backoffStrategy: (attemptsMade: number, _type?: string, error?: Error) => processor.nextDelay(attemptsMade, error) },
    });
    worker.on('error', (error: Error) => {
      // Redis down: BullMQ reports every reconnect attempt; once a minute is enough
      if (Date.now() - this.lastWorkerError < 60_000) return;
      this.lastWorkerError = Date.now();
      this.logger.warn(`Push delivery worker: ${error.message.split('\n')[0].slice(0, 200)}`);
    });
    this.worker = worker;
    void worker.run().catch((error: unknown) => this.logger.error(`Push delivery worker stopped: ${(error as Error)?.message ?? error}`));
  }

  /**
   * Lets the deliveries in flight finish (at most `shutdownTimeoutMs`), then stops the worker. A
   * delivery still running then is aborted: its job stays in Redis and is attempted again by the next
   * worker (the same `webhook-id`). Never hangs, Redis or not.
   */
  async stopWorker(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    const connections = this.workerDuplicates;
    const lost = connections.filter((c) => c.status === 'reconnecting' || c.status === 'close');
    if (lost.length > 0) {
      // Redis is gone: let BullMQ's connections end before asking it to close. Its close() disconnects
      // its blocking connection and waits for an 'end' that a reconnecting ioredis client never emits.
      this.shutdown.givingUp = true;
      await untilEnded(lost, 3_000);
    }
    const closing = worker.close();
    closing.catch(() => undefined);
    // with Redis gone and nothing in flight there is nothing to wait for
    const budget = this.inFlight > 0 || lost.length === 0 ? this.options.shutdownTimeoutMs : 0;
    if (!(await bounded(closing, budget)).done) {
      if (this.inFlight > 0) this.logger.warn(`Push delivery worker: ${this.inFlight} deliveries still in flight at shutdown were aborted; they will be attempted again`);
      this.shutdown.givingUp = true;
      this.aborter.abort(new Error('shutting down'));
      for (const connection of connections) if (connection.status === 'ready') connection.disconnect();
      if (!(await bounded(closing, 2_000)).done) {
        this.logger.warn('Push delivery worker: BullMQ did not close in time; its timers were stopped');
        stopTimers(worker);
      }
    }
    await this.quit(this.workerConnection);
  }

  /** Closes the queue and the producer connection (after the tasks' last events were enqueued). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.stopWorker();
    this.shutdown.givingUp = true;
    await bounded(this.queue.close(), 1_000);
    await this.quit(this.producer);
  }

  /** Whether the queue's connection, and the worker with its connections once started, are usable now. */
  health(): { pushQueue: boolean; pushWorker?: boolean } {
    const pushQueue = !this.closed && this.producer.status === 'ready';
    if (!this.worker) return { pushQueue };
    const connections = [this.workerConnection, ...this.workerDuplicates].filter((c) => c?.status !== 'end');
    return { pushQueue, pushWorker: this.worker.isRunning() && connections.every((c) => c?.status === 'ready') };
  }

  private async quit(connection: Redis | undefined): Promise<void> {
    if (!connection || connection.status === 'end' || connection.status === 'wait') return;
    if (connection.status !== 'ready') {
      // reconnecting: it ends at its next retry now that we give up; disconnect() would park it forever
      this.shutdown.givingUp = true;
      return;
    }
    const quitting = connection.quit().catch(() => undefined);
    if (!(await bounded(quitting, 500)).done) connection.disconnect();
  }
}
