/**
 * Readiness of what the module runs, for the app's health checks: the Redis connections (tasks,
 * the event log's reader, the cancel channel, the push queue and its worker) and shutdown. Plain
 * data from `check()`; a `@nestjs/terminus` indicator result from `isHealthy()`, which loads
 * terminus (an optional peer) only when called.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { HealthIndicatorService } from '@nestjs/terminus';
import { A2ALifecycle } from './a2a-lifecycle.js';
import { A2A_PUSH_QUEUE, A2A_PUSH_WORKER, A2A_REDIS } from './config/a2a.constants.js';
import { importOptionalPackages } from './config/optional-package.js';
import { answersPing } from './redis/redis-call.js';
import type { PushDeliveryQueue } from './push/push-delivery-queue.js';
import type { PushDeliveryWorker } from './push/push-delivery.worker.js';
import type { RedisConnection } from './redis/redis-connection.js';
import { TaskBackend } from './tasks/task-backend.js';

/** How long the PING of the module's own Redis connection may take. */
const PING_MS = 1_000;

/** What {@link A2AHealthIndicator.check} finds. @publicApi */
export interface A2AHealthReport {
  /** Every component is up and the app is not shutting down. */
  readonly ready: boolean;
  /** Shutdown has begun: the instance takes no new work (readiness fails). */
  readonly shuttingDown: boolean;
  /**
   * Each connection or worker, by name, `true` when usable: `redis` (the module's connection),
   * `eventLogReader`, `cancelSubscriber` (tasks in Redis, or what your backend's `health()` reports),
   * `pushQueue`, `pushWorker` (push on). Empty with tasks in memory and no push.
   */
  readonly components: Readonly<Record<string, boolean>>;
}

/**
 * A terminus indicator result: `{ [key]: { status: 'up' | 'down', shuttingDown, ...components } }`,
 * `'up'`/`'down'` per component. Holds names and states only, never an address or an error message.
 * @publicApi
 */
export type A2AHealthResult<Key extends string = string> = { [K in Key]: { status: 'up' | 'down'; shuttingDown: boolean } & Record<string, unknown> };

/**
 * The module's readiness, injectable wherever `A2AModule` is imported. With `@nestjs/terminus`:
 *
 * ```ts
 * @Get('health/ready') @HealthCheck()
 * ready() { return this.health.check([() => this.a2a.isHealthy('a2a')]); }
 * ```
 * @publicApi
 */
@Injectable()
export class A2AHealthIndicator {
  private indicators?: HealthIndicatorService;

  constructor(
    @Inject(TaskBackend) private readonly backend: TaskBackend,
    @Inject(A2A_REDIS) private readonly redis: RedisConnection | undefined,
    @Inject(A2ALifecycle) private readonly lifecycle: A2ALifecycle,
    @Inject(A2A_PUSH_WORKER) private readonly pushWorker: PushDeliveryWorker | undefined,
    @Optional() @Inject(A2A_PUSH_QUEUE) private readonly pushQueue: PushDeliveryQueue | undefined,
  ) {}

  /** Looks at every component now (a PING takes a second at most). Never throws. */
  async check(): Promise<A2AHealthReport> {
    const components: Record<string, boolean> = { ...(await this.backend.health?.().catch(() => ({ taskBackend: false }))) };
    // the module's connection, unless the backend (on that very connection) has just pinged it
    if (this.redis && components.redis === undefined) components.redis = await answersPing(this.redis.client, PING_MS);
    if (this.pushQueue) {
      // the queue and the worker connect to one Redis: the queue answering stands for both
      components.pushQueue = await this.pushQueue.reachable(PING_MS);
      if (this.pushWorker) components.pushWorker = components.pushQueue && this.pushWorker.running;
    }
    const shuttingDown = this.lifecycle.shuttingDown;
    return { ready: !shuttingDown && Object.values(components).every(Boolean), shuttingDown, components };
  }

  /**
   * {@link check} as a `@nestjs/terminus` result under `key`: `up` when ready, `down` (the check
   * fails, 503) while a component is down or the app is shutting down.
   * @throws A2AConfigurationError when `@nestjs/terminus` is not installed, with the `npm install` that adds it
   */
  async isHealthy<const Key extends string = 'a2a'>(key: Key = 'a2a' as Key): Promise<A2AHealthResult<Key>> {
    this.indicators ??= await terminusIndicators();
    const { ready, shuttingDown, components } = await this.check();
    const details = { shuttingDown, ...Object.fromEntries(Object.entries(components).map(([name, up]) => [name, up ? 'up' : 'down'])) };
    const session = this.indicators.check(key);
    return (ready ? session.up(details) : session.down(details)) as unknown as A2AHealthResult<Key>;
  }
}

async function terminusIndicators(): Promise<HealthIndicatorService> {
  type Terminus = typeof import('@nestjs/terminus');
  const [terminus] = await importOptionalPackages<[Terminus & { default?: Terminus }]>('A2AHealthIndicator', ['@nestjs/terminus']);
  // terminus 11 is CommonJS: its exports may only be on the default export of the import
  return new (terminus.HealthIndicatorService ?? terminus.default!.HealthIndicatorService)();
}
