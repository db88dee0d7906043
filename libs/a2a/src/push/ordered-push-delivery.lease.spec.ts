/**
 * The run lease of the ordered delivery (issue 13): one run sends a config's due events one after
 * another; a second run on the same (task, config) steps aside and nothing is left unsent; a run
 * that died is resumed (its stalled job again, or the relay once its lease lapses); a later event
 * whose attempt failed gets a job of its own on the retry schedule. Real Redis (a prefix of this
 * spec's own), a real receiver on 127.0.0.1, a real queue for the jobs a run enqueues (no worker: the
 * tests run jobs by hand, as a worker would).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { A2A_PUSH_QUEUE_NAME } from '../config/a2a.constants.js';
import { EgressPolicy } from '../net/egress-policy.js';
import { createPinnedDispatcher } from '../net/pinned-dispatcher.js';
import { scopeKey } from '../redis/redis-keys.js';
import { connectClient, deleteKeys, REDIS_URL, uniquePrefix } from '../redis/testing/redis-test-support.js';
import { RedisEventLog } from '../tasks/redis/redis-event-log.js';
import type { TaskScope } from '../tasks/task-store.js';
import { statusEvent } from '../testing/event-log.contract.js';
import { startWebhookReceiver, type ReceiverReply, type WebhookReceiver } from '../testing/webhook-receiver.js';
import { DeliverySlots } from './delivery-slots.js';
import { OrderedPushDelivery, type OrderedPushDeliveryDeps } from './ordered-push-delivery.js';
import { RedisPushDeadLetters } from './push-dead-letters.js';
import { DeliveryDeferredError, PushDeliveryQueue, PushQueueConnection } from './push-delivery-queue.js';
import { PushDeliveryEvents } from './push-delivery-events.js';
import type { PushJobData } from './push-job.js';
import { webhookIdOf } from './push-job.js';
import { resolvePushOptions, type ResolvedPushOptions } from './push-options.js';
import { RedisPushOutbox } from './push-outbox.js';
import { PushRelay } from './push-relay.js';
import { RedisPushConfigStore } from './redis-push-config-store.js';
import { SecretBox } from './secret-box.js';
import { sealConfig } from './stored-config.js';
import { DeliveryFailedError, WebhookDeliveryProcessor } from './webhook-delivery.processor.js';

const prefix = uniquePrefix();
const scope: TaskScope = { agent: 'echo', tenant: '', subject: 'alice' };
const box = new SecretBox(Buffer.alloc(32, 1));
const signal = new AbortController().signal;
/** How long a lease lasts here without renewal (short, so a dead run's lapses within a test). */
const LEASE_MS = 600;

const OPTIONS: ResolvedPushOptions = resolvePushOptions({
  retrySchedule: [0, 1000],
  jitter: 0,
  attemptTimeoutMs: 1000,
  egress: { allowHttp: true, allowHosts: ['127.0.0.1'] },
  queuePrefix: `${prefix}bull`,
  maxInFlightPerHost: 8,
  maxInFlightPerCaller: 8,
});

let redis: Redis;
let receiver: WebhookReceiver;
let reply: (webhookId: string, nth: number) => ReceiverReply;
let queue: PushDeliveryQueue;
let delivery: OrderedPushDelivery;
let deps: OrderedPushDeliveryDeps;
let dispatcher: ReturnType<typeof createPinnedDispatcher>;
let outbox: RedisPushOutbox;
let configs: RedisPushConfigStore;
let log: RedisEventLog;
let deadLetters: RedisPushDeadLetters;
/** POSTs being answered now, and the most there were at once. */
let open = 0;
let mostOpen = 0;

beforeAll(async () => {
  Logger.overrideLogger(false);
  redis = await connectClient();
  receiver = await startWebhookReceiver((request, nth) => {
    const answer = reply(request.webhookId, nth);
    open++;
    mostOpen = Math.max(mostOpen, open);
    setTimeout(() => open--, answer.delayMs ?? 0);
    return answer;
  });
  queue = new PushDeliveryQueue(new Queue(A2A_PUSH_QUEUE_NAME, { connection: new PushQueueConnection().fromModuleRedis({ url: REDIS_URL }), prefix: OPTIONS.queuePrefix }), OPTIONS, 60_000);
  dispatcher = createPinnedDispatcher(new EgressPolicy(OPTIONS.egress));
  configs = new RedisPushConfigStore(redis, { keyPrefix: prefix });
  outbox = new RedisPushOutbox(redis, { keyPrefix: prefix });
  deadLetters = new RedisPushDeadLetters(redis, { keyPrefix: prefix, limit: 10 });
  log = new RedisEventLog(redis, { keyPrefix: prefix, retention: { ttlMs: 60_000, maxTerminalTasks: 100 } });
  const webhooks = new WebhookDeliveryProcessor({ configs, box, dispatcher, events: new PushDeliveryEvents(), deadLetters, options: OPTIONS, issuerOf: () => 'https://agents.example/echo' });
  deps = { configs, outbox, log, webhooks, queue, slots: new DeliverySlots(OPTIONS), options: OPTIONS, leaseMs: LEASE_MS };
  delivery = new OrderedPushDelivery(deps);
});

beforeEach(() => {
  receiver.received.length = 0;
  reply = () => ({ status: 200 });
  // not `open`: a POST answered at once is counted open until its timer fires, which may come after
  // the test that made it ended (a fast run); reset here, that late decrement made the count -1
  mostOpen = 0;
});

afterAll(async () => {
  await receiver.close();
  await queue.queue.close();
  await dispatcher.close();
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

let next = 0;
/** A task of its own with `events` events committed and due, and one config at its start (0). */
async function given(events: number): Promise<{ taskId: string; commit: () => Promise<number>; job: (seq: number, attemptsMade?: number) => Promise<unknown> }> {
  const taskId = `lease-task-${++next}`;
  let seq = 0;
  const commit = async () => {
    seq = await log.append(taskId, statusEvent(taskId, `event ${seq + 1}`), seq);
    await outbox.mark(scope, taskId, seq, false);
    return seq;
  };
  for (let i = 0; i < events; i++) await commit();
  await configs.put(scope, sealConfig(box, scope, taskId, 'cfg', { url: receiver.url() }, Date.now()), 5);
  const job = (jobSeq: number, attemptsMade = 0) => run({ scope, taskId, seq: jobSeq, configId: 'cfg' }, attemptsMade);
  return { taskId, commit, job };
}

/** One run of a job, as the worker makes it (its outcome, or what it threw). */
function run(data: PushJobData, attemptsMade = 0): Promise<unknown> {
  const before = data.attemptsBefore ?? 0;
  return delivery.process({ data, attemptsMade: before + attemptsMade, maxAttempts: OPTIONS.retrySchedule.length }, signal).catch((error: unknown) => error);
}

const ids = (taskId: string, ...seqs: number[]) => seqs.map((seq) => webhookIdOf(taskId, seq, 'cfg'));
const sent = () => receiver.received.map((r) => r.webhookId);
const cursorOf = async (taskId: string) => (await outbox.cursor(scope, taskId, 'cfg')) ?? 0;
const queued = (taskId: string, seq: number) => queue.queue.getJob(webhookIdOf(taskId, seq, 'cfg'));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('OrderedPushDelivery: one run sends a config’s due events', () => {
  it('sends every due event in order in one run, enqueues no job, and lets go of the lease', async () => {
    const { taskId, job } = await given(3);
    expect(await job(1)).toBe('delivered');
    expect(sent()).toEqual(ids(taskId, 1, 2, 3));
    expect(await cursorOf(taskId)).toBe(3);
    expect(await queued(taskId, 2)).toBeUndefined();
    expect(await queued(taskId, 3)).toBeUndefined();
    expect(await outbox.leased(scope, taskId)).toEqual(new Set());
  });

  it('reads the log once for a burst committed before it started: nothing read ahead past the last due event', async () => {
    const { taskId, job } = await given(3);
    const read = jest.spyOn(log, 'read');
    try {
      expect(await job(1)).toBe('delivered');
      expect(sent()).toEqual(ids(taskId, 1, 2, 3));
      expect(read.mock.calls).toEqual([[taskId, 1, 16]]);
    } finally {
      read.mockRestore();
    }
  });

  it('two senders racing on one (task, config) never POST at once, never skip or repeat an event', async () => {
    for (let round = 0; round < 4; round++) {
      receiver.received.length = 0;
      mostOpen = 0;
      reply = () => ({ status: 200, delayMs: 30 });
      const { taskId, job } = await given(4);
      // the relay's and a sweep's jobs for later events, started at different points of the first run
      // (never the same job twice at once: BullMQ's lock sees to that)
      const runs = [job(1), sleep(10 * round).then(() => job(2 + (round % 2))), sleep(45 + 10 * round).then(() => job(2)), sleep(70).then(() => job(3)), sleep(100).then(() => job(4))];
      const outcomes = await Promise.all(runs);
      expect(outcomes.every((o) => o === 'delivered' || o === 'duplicate')).toBe(true);
      expect(sent()).toEqual(ids(taskId, 1, 2, 3, 4));
      expect(mostOpen).toBe(1);
      expect(await cursorOf(taskId)).toBe(4);
      expect(await outbox.leased(scope, taskId)).toEqual(new Set());
    }
  });

  it('an event committed while the holder sends the last one is sent by the holder; the job for it steps aside', async () => {
    reply = () => ({ status: 200, delayMs: 80 });
    const { taskId, job, commit } = await given(2);
    const holder = job(1);
    await receiver.waitFor((r) => r.length === 2); // the holder is sending event 2, the last one due
    expect(await commit()).toBe(3);
    // what the relay enqueues on that commit
    expect(await job(3)).toBe('duplicate');
    expect(await holder).toBe('delivered');
    expect(sent()).toEqual(ids(taskId, 1, 2, 3));
    expect(await cursorOf(taskId)).toBe(3);
    // committed after the holder let go: the relay's job takes the lease and sends it
    expect(await commit()).toBe(4);
    expect(await job(4)).toBe('delivered');
    expect(sent()).toEqual(ids(taskId, 1, 2, 3, 4));
  });
});

describe('OrderedPushDelivery: a run that died', () => {
  it('is resumed by its own job run again (a stalled job), from the cursor', async () => {
    const { taskId, job } = await given(3);
    // the run of job 1 took the lease, delivered event 1 and died before event 2
    await outbox.claim(scope, taskId, 'cfg', webhookIdOf(taskId, 1, 'cfg'), 0, LEASE_MS);
    await outbox.advance(scope, taskId, 'cfg', { from: 0, to: 1, start: 0 }, { holder: webhookIdOf(taskId, 1, 'cfg'), leaseMs: LEASE_MS, goOn: true });
    // the relay's job for event 2 steps aside while the lease is live
    expect(await job(2)).toBe('duplicate');
    expect(await job(1)).toBe('duplicate'); // its own event was done: it goes on with the rest
    expect(sent()).toEqual(ids(taskId, 2, 3));
    expect(await cursorOf(taskId)).toBe(3);
  });

  it('is resumed once its lease lapses: the relay leaves a leased config alone until then', async () => {
    const { taskId, job } = await given(2);
    await outbox.claim(scope, taskId, 'cfg', 'a-run-that-died', 0, LEASE_MS);
    const relay = new PushRelay(outbox, configs, queue, { ...OPTIONS, finishedTaskConfigTtlMs: 60_000, intervalMs: 60_000, marksInCommit: true });
    await relay.sweep();
    expect(await queued(taskId, 1)).toBeUndefined();
    expect(await job(1)).toBe('duplicate');
    expect(sent()).toEqual([]);
    await sleep(LEASE_MS + 50);
    await relay.sweep();
    const enqueued = await queued(taskId, 1);
    expect(enqueued?.data).toMatchObject({ taskId, seq: 1, configId: 'cfg' });
    expect(await run(enqueued!.data)).toBe('delivered');
    expect(sent()).toEqual(ids(taskId, 1, 2));
    await relay.close();
    await enqueued!.remove();
  });
});

describe('PushRelay and a finished task', () => {
  it('gives its configs and cursors their TTL once every config has caught up, then clears its entry', async () => {
    const { taskId, job } = await given(2);
    // event 2 ended the task (as the commit script writes it)
    await redis.hdel(`${prefix}push:due`, taskId);
    await outbox.mark(scope, taskId, 2, true);
    const relay = new PushRelay(outbox, configs, queue, { ...OPTIONS, finishedTaskConfigTtlMs: 60_000, intervalMs: 60_000, marksInCommit: true });
    const configKey = `${prefix}push:cfg:${scopeKey(scope)}:${taskId}`;
    const cursorKey = `${prefix}push:cur:${scopeKey(scope)}:${taskId}`;
    // a run is sending: nothing expires yet, the entry stays
    await outbox.claim(scope, taskId, 'cfg', 'a-run', 0, LEASE_MS);
    await relay.sweep();
    expect(await redis.pttl(configKey)).toBe(-1);
    expect(await outbox.due(taskId)).toMatchObject({ seq: 2, terminal: true });
    await sleep(LEASE_MS + 50);
    expect(await job(1)).toBe('delivered');
    expect(sent()).toEqual(ids(taskId, 1, 2));
    await relay.sweep();
    expect(await redis.pttl(configKey)).toBeGreaterThan(59_000);
    expect(await redis.pttl(cursorKey)).toBeGreaterThan(59_000);
    expect(await outbox.due(taskId)).toBeUndefined();
    await relay.close();
  });
});

describe('OrderedPushDelivery: a later event that fails', () => {
  it('gets a job of its own with its backoff and the lease; its attempts go on counting from the first', async () => {
    const { taskId, job } = await given(2);
    reply = (webhookId) => ({ status: webhookId === webhookIdOf(taskId, 2, 'cfg') ? 500 : 200 });
    expect(await job(1)).toBe('delivered');
    expect(sent()).toEqual(ids(taskId, 1, 2));
    expect(await cursorOf(taskId)).toBe(1);
    const retry = await queued(taskId, 2);
    expect(retry?.data).toMatchObject({ seq: 2, attemptsBefore: 1 });
    expect(retry?.opts.attempts).toBe(1);
    expect(retry?.opts.delay).toBe(1000);
    expect((await outbox.failedAttempts(scope, taskId)).get('cfg')).toMatchObject({ seq: 2, attempts: 1 });
    // the lease waits with it: a copy of its job run early steps aside for the rest of the backoff,
    // and another job sends nothing
    expect(await run(retry!.data)).toBeInstanceOf(DeliveryDeferredError);
    expect(await job(1)).toBe('duplicate');
    expect(sent()).toEqual(ids(taskId, 1, 2));
    await sleep(1000);
    // its second (and last) attempt fails: a dead letter after 2 attempts, and the cursor moves past it
    expect(await run(retry!.data)).toBeInstanceOf(DeliveryFailedError);
    expect((await deadLetters.get(webhookIdOf(taskId, 2, 'cfg')))?.attempts).toBe(2);
    expect(await cursorOf(taskId)).toBe(2);
    expect(await outbox.leased(scope, taskId)).toEqual(new Set());
    await retry!.remove();
  });
});

/** A direct run of the config's next event, as the worker starts it for its own instance's commit (no job). */
function direct(taskId: string, seq: number, runSignal = signal): Promise<unknown> {
  const run = { data: { scope, taskId, seq, configId: 'cfg' }, attemptsMade: 0, maxAttempts: OPTIONS.retrySchedule.length, direct: true };
  return delivery.process(run, runSignal).catch((error: unknown) => error);
}

describe('OrderedPushDelivery: a direct run (no job)', () => {
  it('sends every due event in order, enqueues no job, and lets go of the lease', async () => {
    const { taskId } = await given(3);
    await direct(taskId, 1);
    expect(sent()).toEqual(ids(taskId, 1, 2, 3));
    expect(await cursorOf(taskId)).toBe(3);
    for (const seq of [1, 2, 3]) expect(await queued(taskId, seq)).toBeUndefined();
    expect(await outbox.leased(scope, taskId)).toEqual(new Set());
  });

  it('holds the lease under an id of its own: the job of the same webhook-id (a sweep’s) steps aside', async () => {
    reply = () => ({ status: 200, delayMs: 50 });
    const { taskId, job } = await given(3);
    const run = direct(taskId, 1);
    await receiver.waitFor((r) => r.length === 1);
    expect(await job(1)).toBe('duplicate');
    await run;
    expect(sent()).toEqual(ids(taskId, 1, 2, 3));
    expect(mostOpen).toBe(1);
    expect(await cursorOf(taskId)).toBe(3);
  });

  it('hands its first event’s failed attempt to a job of its own, with its backoff and the lease', async () => {
    const { taskId, job } = await given(2);
    reply = (webhookId) => ({ status: webhookId === webhookIdOf(taskId, 1, 'cfg') ? 500 : 200 });
    await direct(taskId, 1);
    expect(sent()).toEqual(ids(taskId, 1));
    expect(await cursorOf(taskId)).toBe(0);
    const retry = await queued(taskId, 1);
    expect(retry?.data).toMatchObject({ seq: 1, attemptsBefore: 1 });
    expect(retry?.opts.attempts).toBe(1);
    expect(retry?.opts.delay).toBe(1000);
    // the lease waits with the job: nobody else sends meanwhile
    expect(await job(1, 0)).toBeInstanceOf(DeliveryDeferredError);
    expect(await direct(taskId, 1)).toBe('duplicate');
    expect(sent()).toEqual(ids(taskId, 1));
    await retry!.remove();
  });

  it('aborted at shutdown, hands the event it was sending to a job at once (the same webhook-id, no attempt counted)', async () => {
    const { taskId } = await given(3);
    reply = (webhookId) => ({ status: 200, delayMs: webhookId === webhookIdOf(taskId, 2, 'cfg') ? 2000 : 0 });
    const aborter = new AbortController();
    const run = direct(taskId, 1, aborter.signal);
    await receiver.waitFor((r) => r.length === 2);
    aborter.abort(new Error('shutting down'));
    await run;
    expect(await cursorOf(taskId)).toBe(1);
    const next = await queued(taskId, 2);
    expect(next?.data).toMatchObject({ seq: 2 });
    expect(next?.data.attemptsBefore).toBeUndefined();
    expect(next?.opts.delay).toBe(0);
    reply = () => ({ status: 200 });
    expect(await delivery.process({ data: next!.data, attemptsMade: 0, maxAttempts: OPTIONS.retrySchedule.length }, signal)).toBe('delivered');
    expect(sent()).toEqual(ids(taskId, 1, 2, 2, 3));
    await next!.remove();
  });
});

describe('PushRelay and direct runs', () => {
  /** Relays one commit of `taskId` as this instance's own (a poke) and waits for it; what the run hook was asked. */
  async function poke(relay: PushRelay, taskId: string, seq: number): Promise<void> {
    await relay.onAppended(scope, taskId, [{ seq, event: statusEvent(taskId, 'poke') }]);
    await new Promise((resolve) => setImmediate(resolve));
    await relay.close();
  }
  const relayWith = (run: (data: PushJobData) => boolean, options: ResolvedPushOptions = OPTIONS) =>
    new PushRelay(outbox, configs, queue, { ...options, finishedTaskConfigTtlMs: 60_000, intervalMs: 60_000, marksInCommit: true }, run);

  it('starts the run of a poked task’s lagging config when the worker has a slot, and enqueues its job when not', async () => {
    const asked: PushJobData[] = [];
    const { taskId } = await given(2);
    await poke(relayWith((data) => (asked.push(data), true)), taskId, 2);
    expect(asked).toEqual([expect.objectContaining({ taskId, seq: 1, configId: 'cfg' })]);
    expect(await queued(taskId, 1)).toBeUndefined();
    await poke(relayWith((data) => (asked.push(data), false)), taskId, 2);
    expect(asked).toHaveLength(2);
    const job = await queued(taskId, 1);
    expect(job?.data).toMatchObject({ taskId, seq: 1, configId: 'cfg' });
    await job!.remove();
  });

  it('never starts one from the sweep (another instance’s work), nor when first attempts wait a delay', async () => {
    const asked: PushJobData[] = [];
    const { taskId } = await given(1);
    const sweeping = relayWith((data) => (asked.push(data), true));
    await sweeping.sweep();
    await sweeping.close();
    const enqueued = await queued(taskId, 1);
    expect(enqueued).toBeDefined();
    await enqueued!.remove();
    await poke(relayWith((data) => (asked.push(data), true), { ...OPTIONS, retrySchedule: [100, 1000] }), taskId, 1);
    expect(asked).toEqual([]);
    const delayed = await queued(taskId, 1);
    expect(delayed?.opts.delay).toBe(100);
    await delayed!.remove();
  });
});

describe('OrderedPushDelivery: a run whose config caught up', () => {
  it('clears the task’s due entry once every config has caught up (not before), a finished task’s keys getting their TTL', async () => {
    const clearing = new OrderedPushDelivery({ ...deps, finishedTaskConfigTtlMs: 60_000 });
    const { taskId } = await given(2);
    await configs.put(scope, sealConfig(box, scope, taskId, 'other', { url: receiver.url() }, Date.now()), 5);
    // event 2 ended the task (as the commit script writes it)
    await redis.hdel(`${prefix}push:due`, taskId);
    await outbox.mark(scope, taskId, 2, true);
    const configKey = `${prefix}push:cfg:${scopeKey(scope)}:${taskId}`;
    const cursorKey = `${prefix}push:cur:${scopeKey(scope)}:${taskId}`;
    const runOf = (configId: string) => clearing.process({ data: { scope, taskId, seq: 1, configId }, attemptsMade: 0, maxAttempts: OPTIONS.retrySchedule.length }, signal);
    expect(await runOf('cfg')).toBe('delivered');
    // 'other' still lags: the entry stays, nothing expires
    expect(await outbox.due(taskId)).toMatchObject({ seq: 2, terminal: true });
    expect(await redis.pttl(configKey)).toBe(-1);
    expect(await runOf('other')).toBe('delivered');
    expect(sent()).toEqual([...ids(taskId, 1, 2), webhookIdOf(taskId, 1, 'other'), webhookIdOf(taskId, 2, 'other')]);
    expect(await outbox.due(taskId)).toBeUndefined();
    expect(await redis.pttl(configKey)).toBeGreaterThan(59_000);
    expect(await redis.pttl(cursorKey)).toBeGreaterThan(59_000);
  });
});
