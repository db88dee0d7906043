/**
 * Nothing lost when an instance dies: two demo processes on one Redis (a key prefix of this file's
 * own), a burst of tasks with push configs sent to both, one of them killed with SIGKILL at random
 * points and started again. A recorder on 127.0.0.1 counts every notification per task and config;
 * afterwards each config has every event of its task's log (the final state included), in order,
 * and nothing repeated but retries of the same notification.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { startWebhookReceiver, waitUntil, type ReceivedNotification, type WebhookReceiver } from 'nestjs-a2a/testing';
import { REDIS_URL, connectClient, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { spawnDemo, type DemoProcess } from './support/built-demo.js';
import { restClient, userMessage } from './support/wire-client.js';

const prefix = uniquePrefix();
const TASKS = 48;
const TERMINAL = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];
const ENV = {
  REDIS_URL,
  A2A_REDIS_PREFIX: prefix,
  A2A_ALLOW_PRIVATE_WEBHOOKS: '1',
  // enough attempts that nothing is given up while an instance restarts
  A2A_PUSH_RETRY_SCHEDULE: '0,100ms,300ms,500ms,1s,1s,1s,1s,1s,1s,1s,1s',
  // a turn whose instance died is failed by the other one soon
  A2A_LEASE_MS: '1500',
};

let redis: Redis;
let receiver: WebhookReceiver;
let stable: DemoProcess;
let victim: DemoProcess;
const started: DemoProcess[] = [];

async function start(): Promise<DemoProcess> {
  const demo = await spawnDemo(ENV);
  started.push(demo);
  return demo;
}

beforeAll(async () => {
  redis = await connectClient();
  // each answer takes a little while, so kills land in the middle of deliveries too
  receiver = await startWebhookReceiver(() => ({ delayMs: Math.floor(Math.random() * 15) }));
  [stable, victim] = await Promise.all([start(), start()]);
}, 180_000);

afterAll(async () => {
  for (const demo of started) await demo.stop(2000);
  await receiver?.close();
  await deleteKeysUnder(prefix);
  await redis?.quit();
});

/** The task's log as stored: the state each event carries (undefined for an artifact), by seq. */
async function logOf(taskId: string): Promise<Array<string | undefined>> {
  const entries = await redis.xrange(`${prefix}log:${taskId}`, '-', '+');
  return entries.map(([, fields]) => {
    const event = JSON.parse(fields[1]);
    return event.statusUpdate?.status?.state ?? event.task?.status?.state;
  });
}

const seqOf = (r: ReceivedNotification) => Number(r.webhookId.split('.')[1]);
const taskOf = (r: ReceivedNotification) => decodeURIComponent(r.webhookId.split('.')[0]);

describe('push while an instance is killed', () => {
  it('delivers every event of every task to every config, in order, the final state included', async () => {
    const tasks = new Map<string, string>(); // taskId → the path of its inline config
    const late = new Map<string, string>(); // taskId → the path of a config added while it ran
    let killing = true;
    const killer = (async () => {
      // SIGKILL at random points of the burst, then start again
      for (let round = 0; round < 3 && killing; round++) {
        await sleep(300 + Math.random() * 900);
        victim.child.kill('SIGKILL');
        await victim.exited;
        victim = await start();
      }
    })();
    const send = async (i: number) => {
      const target = i % 2 === 0 ? stable : victim;
      const path = `/t/${i}`;
      const rest = restClient(`${target.url}/a2a/rest`);
      const res = await rest
        .call('SendMessage', {
          message: userMessage(`/task slow ${100 + Math.floor(Math.random() * 700)}`),
          configuration: { returnImmediately: true, taskPushNotificationConfig: { url: receiver.url(path) } },
        })
        .catch(() => undefined); // the instance died under the request: the receiver may still hear of the task
      const taskId = res?.result?.task?.id;
      if (!taskId) return;
      tasks.set(taskId, path);
      if (i % 3 === 0) {
        const created = await restClient(`${stable.url}/a2a/rest`)
          .call('CreateTaskPushNotificationConfig', { taskId, id: 'late', url: receiver.url(`/late/${i}`) })
          .catch(() => undefined);
        if (created?.result?.id === 'late') late.set(taskId, `/late/${i}`);
      }
    };
    for (let i = 0; i < TASKS; i++) {
      void send(i);
      await sleep(40);
    }
    await killer;
    killing = false;
    expect(started).toHaveLength(5); // three kills, each followed by a start
    // tasks whose SendMessage answer was lost with the instance: known from what the receiver heard
    for (const r of receiver.received) if (r.path.startsWith('/t/') && !tasks.has(taskOf(r))) tasks.set(taskOf(r), r.path);
    expect(tasks.size).toBeGreaterThan(TASKS / 2);

    // every task ends (those whose instance died are failed by the survivor), and every config hears its end
    const heardEnd = async () => {
      for (const [taskId, path] of [...tasks, ...late]) {
        const log = await logOf(taskId);
        if (!TERMINAL.includes(log[log.length - 1] ?? '')) return false;
        if (!receiver.on(path).some((r) => taskOf(r) === taskId && seqOf(r) === log.length)) return false;
      }
      return true;
    };
    await waitUntil(heardEnd, { attempts: 600, intervalMs: 100 });
    await sleep(500); // anything still on its way would show as an extra notification

    for (const [taskId, path] of tasks) {
      const log = await logOf(taskId);
      const got = receiver.on(path).filter((r) => taskOf(r) === taskId);
      const seqs = got.map(seqOf);
      // order: a config's next event is sent only once the one before was accepted, so even the
      // repeats of a notification a dead instance had sent come before anything after it
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect([...new Set(seqs)]).toEqual(log.map((_, i) => i + 1));
      // the repeats are the same notification (the same webhook-id and body)
      for (const seq of new Set(seqs)) expect(new Set(got.filter((r) => seqOf(r) === seq).map((r) => r.body)).size).toBe(1);
      expect(TERMINAL).toContain(got[got.length - 1].json.statusUpdate?.status?.state ?? got[got.length - 1].json.task?.status?.state);
    }
    for (const [taskId, path] of late) {
      const log = await logOf(taskId);
      const seqs = receiver.on(path).map(seqOf);
      // a config added while the task ran hears the events after it was added: a suffix of the log
      const distinct = [...new Set(seqs)];
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(distinct).toEqual(Array.from({ length: distinct.length }, (_, i) => log.length - distinct.length + 1 + i));
    }
    // nothing is left pending in the outbox once everything is delivered
    await waitUntil(async () => (await redis.hlen(`${prefix}push:due`)) === 0, { attempts: 50, intervalMs: 100 });
  }, 180_000);
});
