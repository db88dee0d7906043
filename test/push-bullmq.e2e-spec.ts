/**
 * The push queue as a host app sees it, through `@nestjs/bullmq`: registered on the app's own
 * `BullModule.forRoot` connection (a prefix of this file's own, on the real Redis), injectable with
 * `@InjectQueue(A2A_PUSH_QUEUE_NAME)`, and its dead letters redelivered by `PushDeliveryAdmin`; the
 * README's bull-board recipe, run as an app (test/support/bull-board-app.mjs), lists the queue. Also:
 * `forRootAsync` is told beforehand that its options have push.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { Injectable } from '@nestjs/common';
import { BullModule, InjectQueue } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2AModule, A2A_PUSH_QUEUE_NAME, PushDeliveryAdmin, PushDeliveryEvents, type PushDeliveryEvent } from 'nestjs-a2a';
import { startWebhookReceiver, waitUntil, type ReceivedNotification, type WebhookReceiver } from 'nestjs-a2a/testing';
import { REDIS_URL, connectClient, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { EchoAgent } from '../src/echo.agent.js';
import { ensureBuilt } from './support/built-demo.js';
import { startApp } from './support/custom-app.js';
import type { RunningApp } from './support/demo-app.js';
import { restClient, userMessage, type BindingClient, type Json } from './support/wire-client.js';

const prefix = uniquePrefix();
/** The host's own BullMQ prefix: every queue of the app, ours included, lives under it. */
const hostPrefix = `${prefix}host`;
const PUSH = { retrySchedule: '0,100ms,100ms', jitter: 0, attemptTimeoutMs: 1000, egress: { allowHttp: true, allowHosts: ['127.0.0.1'] } };

/** A service of the host's that looks at the push queue the way it would at a queue of its own. */
@Injectable()
class QueueWatcher {
  constructor(@InjectQueue(A2A_PUSH_QUEUE_NAME) readonly queue: Queue) {}
}

let app: RunningApp;
let rest: BindingClient;
let receiver: WebhookReceiver;
let redis: Redis;
const events: PushDeliveryEvent[] = [];

beforeAll(async () => {
  redis = await connectClient();
  app = await startApp(A2AModule.forRoot({ redis: { url: REDIS_URL, keyPrefix: prefix }, defaultAgent: 'echo', push: PUSH }), [EchoAgent, QueueWatcher], { logger: false }, [
    BullModule.forRoot({ connection: { url: REDIS_URL }, prefix: hostPrefix }),
  ]);
  rest = restClient(`${app.url}/a2a/rest`);
  app.app.get(PushDeliveryEvents).on('*', (e) => events.push(e));
});

afterEach(async () => {
  await receiver?.close();
});

afterAll(async () => {
  await app?.close();
  await deleteKeysUnder(prefix);
  await redis?.quit();
});

const seqOf = (r: ReceivedNotification) => Number(r.webhookId.split('.')[1]);

async function sendTask(path: string): Promise<Json> {
  const res = await rest.call('SendMessage', { message: userMessage('/task hello'), configuration: { taskPushNotificationConfig: { url: receiver.url(path) } } });
  expect(res.error).toBeUndefined();
  return res.result.task as Json;
}

describe("the push queue on the host's BullMQ", () => {
  it("delivers through the app's own BullModule.forRoot connection, under its prefix", async () => {
    receiver = await startWebhookReceiver();
    const task = await sendTask('/host');
    const got = await receiver.waitFor((r) => r.length >= 4);
    expect(got.map(seqOf)).toEqual([1, 2, 3, 4]);
    // the event of a delivery comes once its answer is read
    const delivered = () => events.filter((e) => e.taskId === task.id && e.type === 'delivered');
    await waitUntil(() => delivered().length === 4, { attempts: 40, intervalMs: 25 });
    expect(delivered()).toHaveLength(4);
    // the queue's keys are under the host's prefix, none under the module's default one
    expect(await redis.keys(`${hostPrefix}:${A2A_PUSH_QUEUE_NAME}:*`)).not.toEqual([]);
    expect(await redis.keys(`${prefix}bull:*`)).toEqual([]);
  });

  it('is the queue a host service injects with @InjectQueue(A2A_PUSH_QUEUE_NAME): it sees the jobs', async () => {
    const { queue } = app.app.get(QueueWatcher);
    expect(queue.name).toBe(A2A_PUSH_QUEUE_NAME);
    expect(queue.opts.prefix).toBe(hostPrefix);
    // the first notification fails; its retry waits in the queue long enough to be seen there
    let failed = false;
    receiver = await startWebhookReceiver(() => (failed ? {} : ((failed = true), { status: 503, headers: { 'Retry-After': '2' } })));
    const task = await sendTask('/seen');
    await receiver.waitFor((r) => r.length >= 1);
    let seen: Array<{ id?: string; data: { taskId: string; seq: number } }> = [];
    await waitUntil(async () => (seen = await queue.getJobs(['delayed', 'waiting'])).some((job) => job.data.taskId === task.id), { attempts: 40, intervalMs: 50 });
    const job = seen.find((j) => j.data.taskId === task.id);
    expect(job?.id).toBe(receiver.received[0].webhookId);
    expect(job?.data.seq).toBe(1);
    await receiver.waitFor((r) => r.length >= 5, 10_000);
  });


  it('redelivers a dead letter through PushDeliveryAdmin, with the same webhook-id', async () => {
    let accept = false;
    receiver = await startWebhookReceiver((r) => (seqOf(r) === 2 && !accept ? { status: 500 } : {}));
    const admin = app.app.get(PushDeliveryAdmin);
    const task = await sendTask('/dead');
    await receiver.waitFor((r) => r.some((x) => seqOf(x) === 4), 10_000);
    const webhookId = receiver.received.find((r) => seqOf(r) === 2)!.webhookId;
    await waitUntil(async () => (await admin.getDeadLetter(webhookId)) !== undefined, { attempts: 40, intervalMs: 50 });
    expect(await admin.getDeadLetter(webhookId)).toMatchObject({ taskId: task.id, seq: 2, attempts: 3, lastStatus: 500 });

    accept = true;
    const before = receiver.received.length;
    expect(await admin.redeliver(webhookId)).toBe(true);
    await receiver.waitFor((r) => r.length > before, 5_000);
    await sleep(200);
    expect(receiver.received.slice(before).map((r) => r.webhookId)).toEqual([webhookId]);
    expect(events.filter((e) => e.webhookId === webhookId && e.type === 'delivered')).toHaveLength(1);
    expect(await admin.getDeadLetter(webhookId)).toBeUndefined();
  }, 20_000);
});

describe("the README's bull-board recipe", () => {
  it('mounts the push queue: the board answers and lists it, on the keys of the module prefix', async () => {
    await ensureBuilt();
    const boardPrefix = `${prefix}board:`;
    const child = fork('test/support/bull-board-app.mjs', [], { env: { ...process.env, BOARD_REDIS_URL: REDIS_URL, BOARD_REDIS_PREFIX: boardPrefix }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    try {
      const [ready] = (await Promise.race([once(child, 'message'), once(child, 'exit').then(([code]) => Promise.reject(new Error(`the board app exited (${code})`)))])) as [
        { type: string; url: string },
      ];
      expect(ready.type).toBe('ready');
      const res = await fetch(`${ready.url}/queues/api/queues`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { queues: Array<{ name: string }> };
      expect(body.queues.map((q) => q.name)).toEqual([A2A_PUSH_QUEUE_NAME]);
      expect((await fetch(`${ready.url}/queues`)).status).toBe(200);
      expect(await redis.keys(`${boardPrefix}bull:${A2A_PUSH_QUEUE_NAME}:*`)).not.toEqual([]);
    } finally {
      if (child.exitCode === null) {
        const exited = once(child, 'exit');
        child.send({ type: 'stop' });
        const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(kill);
      }
    }
  }, 240_000);
});

describe('forRootAsync and push', () => {
  it('says what to add when its options have push but it was not told', async () => {
    // no redis (a problem of its own): a start-up that fails would leave the module's connection open
    const a2a = A2AModule.forRootAsync({ useFactory: () => ({ defaultAgent: 'echo', push: PUSH }) });
    await expect(startApp(a2a, [EchoAgent])).rejects.toThrow('push: set in the options forRootAsync made, which was not told: add `push: true` to forRootAsync({ ... }), beside useFactory');
  });

  it('says so when told push: true but its options have none', async () => {
    const a2a = A2AModule.forRootAsync({ push: true, useFactory: () => ({ defaultAgent: 'echo' }) });
    await expect(startApp(a2a, [EchoAgent])).rejects.toThrow('push: forRootAsync was given `push: true`, but its options have no push');
  });
});
