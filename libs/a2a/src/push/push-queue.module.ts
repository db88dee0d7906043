/**
 * The push queue's registration through `@nestjs/bullmq`: `BullModule.registerQueueAsync` under
 * {@link A2A_PUSH_QUEUE_NAME}, global, so the host app injects it (`@InjectQueue(A2A_PUSH_QUEUE_NAME)`,
 * bull-board's `forFeature`) like a queue of its own. Its connection is the host's
 * `BullModule.forRoot` one when the app has it, otherwise the module's `redis`. Loaded only with push
 * on: it is the one place that imports `@nestjs/bullmq`.
 */
import type { DynamicModule } from '@nestjs/common';
import { BullModule, getQueueToken, getSharedConfigToken, type RegisterQueueOptions } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import type { CheckedA2AOptions } from '../a2a-options.js';
import { A2AConfigurationError } from '../config/a2a-configuration.error.js';
import { A2A_OPTION_CHECK, A2A_PUSH_QUEUE, A2A_PUSH_QUEUE_NAME } from '../config/a2a.constants.js';
import { redisLocation } from '../redis/redis-connection.js';
import { DEFAULT_KEY_PREFIX } from '../redis/redis-keys.js';
import { bounded, PushDeliveryQueue, PushQueueConnection } from './push-delivery-queue.js';
import type { PushJobData, PushJobOutcome } from './push-job.js';

/** How long start-up waits for the queue's Redis. */
const CONNECT_MS = 5_000;

/** What `BullModule.forRoot` registered (its default configuration), when the host app has one. */
type HostBullConfig = Partial<RegisterQueueOptions>;

/** The queue's options: the host's configuration when there is one (with our shutdown switch), else the module's Redis. */
function queueOptions(checked: CheckedA2AOptions, connection: PushQueueConnection, host: HostBullConfig | undefined): RegisterQueueOptions {
  const { options, problems } = checked;
  if (problems.length > 0 || !options.push || !options.redis) {
    // the start-up check fails with the options' problems; openQueue closes this queue at once
    return { connection: { lazyConnect: true }, skipWaitingForReady: true, skipVersionCheck: true };
  }
  const prefix = options.push.queuePrefix;
  if (host?.connection !== undefined) return { connection: connection.fromHost(host.connection), ...(prefix === undefined ? {} : { prefix }) };
  return { connection: connection.fromModuleRedis(options.redis), prefix: prefix ?? `${options.redis.keyPrefix ?? DEFAULT_KEY_PREFIX}bull` };
}

/**
 * Our view of the registered queue; fails start-up at once, saying where, when its Redis cannot be reached.
 * @throws A2AConfigurationError
 */
async function openQueue(queue: Queue<PushJobData, PushJobOutcome>, checked: CheckedA2AOptions, connection: PushQueueConnection, host: HostBullConfig | undefined): Promise<PushDeliveryQueue | undefined> {
  const { options, problems } = checked;
  if (problems.length > 0 || !options.push || !options.redis) {
    // start-up fails with the options' problems; BullMQ connects even a lazy queue, so close it
    connection.giveUp();
    await bounded(queue.close(), 1_000);
    return undefined;
  }
  const delivery = new PushDeliveryQueue(queue, options.push, options.tasks.retentionMs, connection);
  if (await delivery.reachable(CONNECT_MS)) return delivery;
  connection.giveUp();
  await bounded(queue.close(), 1_000);
  const where = host?.connection !== undefined ? "the app's BullModule.forRoot connection" : redisLocation(options.redis);
  throw new A2AConfigurationError([`push: Redis at ${where} is unreachable for the delivery queue: start it, or fix the connection`]);
}

/** @internal */
export function pushQueueModule(optionsModule: DynamicModule): DynamicModule {
  const hostConfig = { token: getSharedConfigToken(), optional: true };
  const registration = BullModule.registerQueueAsync({
    name: A2A_PUSH_QUEUE_NAME,
    imports: [optionsModule],
    useFactory: queueOptions,
    inject: [A2A_OPTION_CHECK, PushQueueConnection, hostConfig],
    extraProviders: [{ provide: PushQueueConnection, useFactory: () => new PushQueueConnection() }],
  });
  return {
    ...registration,
    // the host injects the queue wherever it likes, as it would a queue of its own
    global: true,
    providers: [
      ...(registration.providers ?? []),
      { provide: A2A_PUSH_QUEUE, useFactory: openQueue, inject: [getQueueToken(A2A_PUSH_QUEUE_NAME), A2A_OPTION_CHECK, PushQueueConnection, hostConfig] },
    ],
    exports: [...(registration.exports ?? []), A2A_PUSH_QUEUE],
  };
}
