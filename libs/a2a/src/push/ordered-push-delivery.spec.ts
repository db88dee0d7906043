/**
 * One run of an ordered delivery with Redis lost at an exact step (issue 13): the stores' connection
 * (real Redis, a prefix of this spec's own) is closed before the POST, or by the receiver while it
 * answers. Such a run decided nothing and must step aside without an attempt counted
 * (DeliveryDeferredError), so an outage neither uses up an event's schedule nor fails a job whose
 * cursor has yet to move. A real receiver on 127.0.0.1, a real queue for the next job (no worker).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { A2A_PUSH_QUEUE_NAME } from '../config/a2a.constants.js';
import { EgressPolicy } from '../net/egress-policy.js';
import { createPinnedDispatcher } from '../net/pinned-dispatcher.js';
import { connectClient, deleteKeys, REDIS_URL, uniquePrefix } from '../redis/testing/redis-test-support.js';
import { RedisEventLog } from '../tasks/redis/redis-event-log.js';
import type { TaskScope } from '../tasks/task-store.js';
import { statusEvent } from '../testing/event-log.contract.js';
import { startWebhookReceiver, type ReceiverReply, type WebhookReceiver } from '../testing/webhook-receiver.js';
import { DeliverySlots } from './delivery-slots.js';
import { OrderedPushDelivery } from './ordered-push-delivery.js';
import { RedisPushDeadLetters } from './push-dead-letters.js';
import { DeliveryDeferredError, PushDeliveryQueue, PushQueueConnection } from './push-delivery-queue.js';
import { PushDeliveryEvents } from './push-delivery-events.js';
import { webhookIdOf } from './push-job.js';
import type { ResolvedPushOptions } from './push-options.js';
import { RedisPushOutbox } from './push-outbox.js';
import { RedisPushConfigStore } from './redis-push-config-store.js';
import { SecretBox } from './secret-box.js';
import { sealConfig } from './stored-config.js';
import { DeliveryAttemptError, DeliveryFailedError, WebhookDeliveryProcessor } from './webhook-delivery.processor.js';

const prefix = uniquePrefix();
const scope: TaskScope = { agent: 'echo', tenant: '', subject: 'alice' };
const box = new SecretBox(Buffer.alloc(32, 1));
const signal = new AbortController().signal;

const OPTIONS: ResolvedPushOptions = {
  retrySchedule: [0, 1000],
  jitter: 0,
  attemptTimeoutMs: 1000,
  maxResponseBytes: 64,
  retryAfterCapMs: 3_600_000,
  egress: { allowHttp: true, allowHosts: ['127.0.0.1'] },
  queuePrefix: `${prefix}bull`,
  concurrency: 1,
  maxInFlightPerHost: 4,
  maxInFlightPerCaller: 4,
  maxConfigsPerTask: 5,
  deadLetterLimit: 10,
  shutdownTimeoutMs: 1000,
};

/** The connection of the delivery's stores: closed to make Redis unreachable, reconnected to bring it back. */
let stores: Redis;
/** The test's own view of Redis (never closed mid-test). */
let redis: Redis;
let receiver: WebhookReceiver;
let reply: () => ReceiverReply;
let queue: PushDeliveryQueue;
let delivery: OrderedPushDelivery;
let dispatcher: ReturnType<typeof createPinnedDispatcher>;
let outbox: RedisPushOutbox;
let deadLetters: RedisPushDeadLetters;

beforeAll(async () => {
  Logger.overrideLogger(false); // the outages these tests cause are logged by design
  redis = await connectClient();
  stores = await connectClient();
  stores.on('error', () => undefined);
  receiver = await startWebhookReceiver(() => reply());
  queue = new PushDeliveryQueue(new Queue(A2A_PUSH_QUEUE_NAME, { connection: new PushQueueConnection().fromModuleRedis({ url: REDIS_URL }), prefix: OPTIONS.queuePrefix }), OPTIONS, 60_000);
  dispatcher = createPinnedDispatcher(new EgressPolicy(OPTIONS.egress));
  const configs = new RedisPushConfigStore(stores, { keyPrefix: prefix });
  outbox = new RedisPushOutbox(stores, { keyPrefix: prefix });
  // on the test's connection: a dead letter is written, the cursor's move after it is what fails
  deadLetters = new RedisPushDeadLetters(redis, { keyPrefix: prefix, limit: 10 });
  const webhooks = new WebhookDeliveryProcessor({ configs, box, dispatcher, events: new PushDeliveryEvents(), deadLetters, options: OPTIONS, issuerOf: () => 'https://agents.example/echo' });
  const log = new RedisEventLog(stores, { keyPrefix: prefix, retention: { ttlMs: 60_000, maxTerminalTasks: 100 } });
  delivery = new OrderedPushDelivery({ configs, outbox, log, webhooks, queue, slots: new DeliverySlots(OPTIONS), options: OPTIONS });
});

/** Until the stores' connection, closed by {@link loseRedis}, has ended (its status says 'ready' till then). */
let ended: Promise<unknown> | undefined;

/** Redis is unreachable for the delivery's stores from now on. */
function loseRedis(): void {
  ended = new Promise((resolve) => stores.once('end', resolve));
  stores.disconnect();
}

/** Redis is back for the delivery's stores. */
async function redisBack(): Promise<void> {
  if (!ended) return;
  await ended;
  ended = undefined;
  await stores.connect();
}

beforeEach(async () => {
  await redisBack();
  receiver.received.length = 0;
});

afterAll(async () => {
  await receiver.close();
  await queue.queue.close();
  await dispatcher.close();
  if (stores.status === 'ready') stores.disconnect();
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

let next = 0;
/** A task of its own with two events, due up to both, and one config (cursor at its start, 0). */
async function given(): Promise<{ taskId: string; run: (attemptsMade: number) => Promise<unknown> }> {
  const taskId = `task-${++next}`;
  const log = new RedisEventLog(redis, { keyPrefix: prefix, retention: { ttlMs: 60_000, maxTerminalTasks: 100 } });
  await log.append(taskId, statusEvent(taskId, 'one'), 0);
  await log.append(taskId, statusEvent(taskId, 'two'), 1);
  await new RedisPushConfigStore(redis, { keyPrefix: prefix }).put(scope, sealConfig(box, scope, taskId, 'cfg', { url: receiver.url() }, Date.now()), 5);
  await new RedisPushOutbox(redis, { keyPrefix: prefix }).mark(scope, taskId, 2, false);
  const run = (attemptsMade: number) =>
    delivery.process({ data: { scope, taskId, seq: 1, configId: 'cfg' }, attemptsMade, maxAttempts: OPTIONS.retrySchedule.length }, signal).catch((error: unknown) => error);
  return { taskId, run };
}

/** Redis goes away while the receiver answers: after the POST, before anything is written. */
function answerThenLoseRedis(status: number): () => ReceiverReply {
  return () => {
    loseRedis();
    return { status };
  };
}

const cursorOf = async (taskId: string) => (await new RedisPushOutbox(redis, { keyPrefix: prefix }).cursor(scope, taskId, 'cfg')) ?? 0;
const nextJobQueued = async (taskId: string) => (await redis.exists(`${OPTIONS.queuePrefix}:${A2A_PUSH_QUEUE_NAME}:${webhookIdOf(taskId, 2, 'cfg')}`)) === 1;

describe('OrderedPushDelivery with Redis lost', () => {
  it('sends nothing and counts no attempt when Redis is unreachable before the POST; the last attempt is still made after', async () => {
    const { taskId, run } = await given();
    loseRedis();
    expect(await run(1)).toBeInstanceOf(DeliveryDeferredError);
    expect(receiver.received).toHaveLength(0);
    await redisBack();
    reply = () => ({ status: 200 });
    expect(await run(1)).toBe('delivered');
    // the run goes on to event 2, due too, in the same run (no job of its own)
    expect(receiver.received.map((r) => r.webhookId)).toEqual([webhookIdOf(taskId, 1, 'cfg'), webhookIdOf(taskId, 2, 'cfg')]);
    expect(await cursorOf(taskId)).toBe(2);
    expect(await nextJobQueued(taskId)).toBe(false);
  });

  it('a delivered event whose cursor could not move is sent again (the same webhook-id), never skipped', async () => {
    const { taskId, run } = await given();
    reply = answerThenLoseRedis(200);
    expect(await run(0)).toBeInstanceOf(DeliveryDeferredError);
    await redisBack();
    expect(await cursorOf(taskId)).toBe(0);
    reply = () => ({ status: 200 });
    expect(await run(0)).toBe('delivered');
    // event 1 again, then event 2 in the same run
    expect(receiver.received.map((r) => r.webhookId)).toEqual([webhookIdOf(taskId, 1, 'cfg'), webhookIdOf(taskId, 1, 'cfg'), webhookIdOf(taskId, 2, 'cfg')]);
    expect(await cursorOf(taskId)).toBe(2);
  });

  it('a failed attempt still counts when its record cannot be written: the retry follows the schedule', async () => {
    const { taskId, run } = await given();
    reply = answerThenLoseRedis(500);
    const error = await run(0);
    expect(error).toBeInstanceOf(DeliveryAttemptError);
    expect((error as DeliveryAttemptError).nextDelayMs).toBe(1000);
    await redisBack();
    expect(await cursorOf(taskId)).toBe(0);
  });

  it('a last attempt that failed is not given up while the cursor cannot move: the job stays, the cursor moves once Redis is back', async () => {
    const { taskId, run } = await given();
    reply = answerThenLoseRedis(500);
    expect(await run(1)).toBeInstanceOf(DeliveryDeferredError);
    await redisBack();
    expect(await cursorOf(taskId)).toBe(0);
    expect(await nextJobQueued(taskId)).toBe(false);
    reply = () => ({ status: 500 });
    expect(await run(1)).toBeInstanceOf(DeliveryFailedError);
    expect(await cursorOf(taskId)).toBe(1);
    expect(await nextJobQueued(taskId)).toBe(true);
    expect((await deadLetters.get(webhookIdOf(taskId, 1, 'cfg')))?.attempts).toBe(2);
  });
});
