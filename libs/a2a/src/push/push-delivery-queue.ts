/**
 * The BullMQ queue of webhook deliveries, as the module's code sees it: adding jobs with the push
 * options' job settings, and the connection settings the queue and its worker get. The queue itself is
 * registered through `@nestjs/bullmq` (see `push-queue.module.ts`), so a host can inject it
 * (`@InjectQueue(A2A_PUSH_QUEUE_NAME)`); BullMQ and ioredis are optional peers, loaded only with push on.
 *
 * Connections: BullMQ never shares the module's fail-fast command client. The queue and its worker
 * connect with the host's own `BullModule.forRoot` connection when the app has one, otherwise with
 * the module's `redis` settings; BullMQ makes and closes their clients itself. Once shutdown begins, a
 * client that lost Redis stops reconnecting (its retry strategy gives up, ioredis ends it and fails
 * its pending commands), which is what lets BullMQ's close() finish while Redis is gone.
 */
import type { Queue, RedisOptions as BullRedisOptions } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { isPlainObject } from '../protocol/json-value.js';
import type { A2ARedisOptions } from '../redis/redis-connection.js';
import type { PushJobData, PushJobOutcome } from './push-job.js';
import type { ResolvedPushOptions } from './push-options.js';

/** The custom backoff's name (the delays come from the schedule and `Retry-After`). */
export const BACKOFF_TYPE = 'a2a-push';
/**
 * A completed job goes at once: a job id must be free again for the relay once the job's work is
 * done, and its cursor records what was delivered. Failed jobs (dead letters) are kept as long as
 * their tasks, at most this many.
 */
const KEEP_FAILED_COUNT = 1000;

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
  /** Attempts at its event made before this one (those made before the job existed included). */
  readonly attemptsMade: number;
  readonly maxAttempts: number;
  /** When the job was enqueued (ms since the epoch). */
  readonly enqueuedAt?: number;
  /**
   * A run this instance started for its own commit, without a job (see push-relay.ts): it holds the
   * lease under an id of its own, and every event it sends is a later event (a failed attempt goes to
   * a job of its own).
   */
  readonly direct?: boolean;
}

/** What the worker runs: one attempt of one job. */
export interface PushJobProcessor {
  /** `stopping` fires when the worker begins to stop: a run finishes the delivery in hand and starts no other. */
  process(job: PushJobRun, signal: AbortSignal, stopping?: AbortSignal): Promise<PushJobOutcome>;
  /** The delay before the next attempt, after `attemptsMade` attempts failed with `error`. */
  nextDelay(attemptsMade: number, error: unknown): number;
}

/** How ioredis reconnects when nothing else is said: BullMQ's own default. */
const bullmqRetry = (times: number) => Math.max(Math.min(Math.exp(times), 20_000), 1_000);

/**
 * The shutdown switch of the queue's and the worker's connections: their retry strategy gives up
 * once it is on, so a client that lost Redis ends at its next retry instead of retrying forever.
 * (ioredis' disconnect() would not do: on a reconnecting client it emits no 'end', and BullMQ's
 * close() waits for one.) Off while the app runs: a blip of Redis is retried as configured.
 * @internal
 */
export class PushQueueConnection {
  private givingUp = false;

  /** From now on the connections end when they lose Redis. */
  giveUp(): void {
    this.givingUp = true;
  }

  /** BullMQ connection options from the module's `redis` settings (without their fail-fast command settings, which BullMQ's blocking commands cannot take). */
  fromModuleRedis(redis: A2ARedisOptions): BullRedisOptions {
    const base: RedisOptions = { ...(redis.client?.options ?? redis.options) };
    return {
      ...base,
      ...(redis.client === undefined && redis.url !== undefined ? { url: redis.url } : {}),
      // BullMQ refuses ioredis key prefixes (it has its own `prefix`)
      keyPrefix: '',
      enableOfflineQueue: true,
      maxRetriesPerRequest: undefined,
      commandTimeout: undefined,
      lazyConnect: false,
      connectionName: 'a2a-push',
      retryStrategy: this.retry(base.retryStrategy ?? ((times: number) => Math.min(times * 50, 2_000))),
    } as BullRedisOptions;
  }

  /**
   * The host's `BullModule.forRoot` connection: connection options get this switch beside their own
   * retry strategy; a client of the host's is used as given (BullMQ duplicates it for the worker).
   */
  fromHost<T>(connection: T): T {
    // an ioredis client (it has duplicate()) is the host's to configure
    if (!isPlainObject(connection) || typeof connection.duplicate === 'function') return connection;
    const own = (connection as RedisOptions).retryStrategy;
    return { ...connection, retryStrategy: this.retry(own ?? bullmqRetry) };
  }

  private retry(strategy: (times: number) => number | void | null): (times: number) => number | void | null {
    return (times) => (this.givingUp ? null : strategy(times));
  }
}

/** @internal */
export class PushDeliveryQueue {
  /** How long a failed job is kept: as long as its task. */
  private readonly keepFailedSeconds: number;

  constructor(
    /** The queue registered through `@nestjs/bullmq` (closed by it), or one the CLI made. */
    readonly queue: Queue<PushJobData, PushJobOutcome>,
    private readonly options: Pick<ResolvedPushOptions, 'retrySchedule'>,
    taskRetentionMs: number,
    readonly connection: PushQueueConnection = new PushQueueConnection(),
  ) {
    this.keepFailedSeconds = Math.max(1, Math.ceil(taskRetentionMs / 1000));
    // a lost connection surfaces on add(), which fails the relaying that asked (retried on the next
    // sweep), and in the health check; without a listener BullMQ prints every reconnect attempt
    queue.on('error', () => undefined);
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
          // the schedule's attempts, less those made before the job existed
          attempts: Math.max(1, this.options.retrySchedule.length - (job.data.attemptsBefore ?? 0)),
          backoff: { type: BACKOFF_TYPE },
          removeOnComplete: true,
          removeOnFail: { age: this.keepFailedSeconds, count: KEEP_FAILED_COUNT },
        },
      })),
    );
  }

  /** Whether the queue answers within `ms` (a count of its jobs). Never throws. */
  async reachable(ms: number): Promise<boolean> {
    return (await bounded(this.queue.count(), ms)).done;
  }
}

/** `promise`'s outcome if it settles within `ms` (a rejection counts as not done). */
export async function bounded<T>(promise: Promise<T>, ms: number): Promise<{ done: true; value: T } | { done: false }> {
  let timer: NodeJS.Timeout | undefined;
  promise.catch(() => undefined);
  return Promise.race([
    promise.then(
      (value) => ({ done: true as const, value }),
      () => ({ done: false as const }),
    ),
    new Promise<{ done: false }>((resolve) => (timer = setTimeout(() => resolve({ done: false }), ms))),
  ]).finally(() => clearTimeout(timer));
}
