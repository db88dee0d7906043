/**
 * Direct runs (issue 13, push speed): the instance whose commit made a task's events due starts the
 * config's run itself, without a BullMQ job, in a slot of its worker. They count against the same
 * `concurrency` as the worker's jobs: a burst beyond it waits in the queue as jobs, nothing dropped.
 * A real app on the real Redis (a key prefix of this file's own), a real BullMQ worker, a receiver on
 * 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { A2AModule } from 'nestjs-a2a';
import { startWebhookReceiver, type ReceivedNotification, type WebhookReceiver } from 'nestjs-a2a/testing';
import { REDIS_URL, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { EchoAgent } from '../src/echo.agent.js';
import { startApp } from './support/custom-app.js';
import type { RunningApp } from './support/demo-app.js';
import { restClient, userMessage } from './support/wire-client.js';

const prefix = uniquePrefix();
const CONCURRENCY = 2;
let app: RunningApp;
let receiver: WebhookReceiver;
/** POSTs being answered now, and the most there were at once. */
let open = 0;
let mostOpen = 0;

beforeAll(async () => {
  receiver = await startWebhookReceiver(() => {
    open++;
    mostOpen = Math.max(mostOpen, open);
    setTimeout(() => open--, 100);
    return { status: 204, delayMs: 100 };
  });
  app = await startApp(
    A2AModule.forRoot({
      redis: { url: REDIS_URL, keyPrefix: prefix },
      defaultAgent: 'echo',
      push: {
        retrySchedule: '0,100ms',
        jitter: 0,
        concurrency: CONCURRENCY,
        // well above it: only the worker's bound can hold the deliveries to two at once
        maxInFlightPerHost: 16,
        maxInFlightPerCaller: 16,
        egress: { allowHttp: true, allowHosts: ['127.0.0.1'] },
      },
    }),
    [EchoAgent],
  );
});

afterAll(async () => {
  await app?.close();
  await receiver?.close();
  await deleteKeysUnder(prefix);
});

const seqOf = (r: ReceivedNotification) => Number(r.webhookId.split('.')[1]);

describe('direct runs', () => {
  it('count against the worker’s concurrency with its jobs: a burst of tasks gets every event, in order, never more than `concurrency` at once', async () => {
    const rest = restClient(`${app.url}/a2a/rest`);
    const tasks = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const res = await rest.call('SendMessage', { message: userMessage('/task hello'), configuration: { taskPushNotificationConfig: { url: receiver.url(`/t${i}`) } } });
        expect(res.error).toBeUndefined();
        return { path: `/t${i}`, id: res.result.task.id as string };
      }),
    );
    await receiver.waitFor((r) => r.length >= 8 * 4, 20_000);
    for (const task of tasks) {
      const got = receiver.on(task.path);
      expect(got.map(seqOf)).toEqual([1, 2, 3, 4]);
      expect(got.every((r) => r.webhookId.startsWith(`${task.id}.`))).toBe(true);
    }
    expect(mostOpen).toBe(CONCURRENCY);
  }, 30_000);
});
