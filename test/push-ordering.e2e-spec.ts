/**
 * A config hears its task's events in order: a receiver that is down for a while gets them all, in
 * order, once it is back; a 410 in the middle of a task stops everything after it. A real app on the
 * real Redis (a key prefix of this file's own), real BullMQ workers, a receiver on 127.0.0.1.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { A2AModule, PushDeliveryAdmin, PushDeliveryEvents, type PushDeliveryEvent } from 'nestjs-a2a';
import { startWebhookReceiver, waitUntil, type ReceivedNotification, type WebhookReceiver } from 'nestjs-a2a/testing';
import { REDIS_URL, connectClient, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { runCli } from '../libs/a2a/src/cli/cli.js';
import { EchoAgent } from '../src/echo.agent.js';
import { startApp } from './support/custom-app.js';
import type { RunningApp } from './support/demo-app.js';
import { restClient, userMessage, type BindingClient, type Json } from './support/wire-client.js';

const prefix = uniquePrefix();
let app: RunningApp;
let rest: BindingClient;
let receiver: WebhookReceiver;
let redis: Redis;
const events: PushDeliveryEvent[] = [];

beforeAll(async () => {
  redis = await connectClient();
  app = await startApp(
    A2AModule.forRoot({
      redis: { url: REDIS_URL, keyPrefix: prefix },
      defaultAgent: 'echo',
      push: { retrySchedule: '0,100ms,200ms,300ms,300ms,300ms,300ms,300ms,300ms', jitter: 0, attemptTimeoutMs: 1000, egress: { allowHttp: true, allowHosts: ['127.0.0.1'] } },
    }),
    [EchoAgent],
  );
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
const stateOf = (r: ReceivedNotification): string | undefined => r.json?.statusUpdate?.status?.state ?? r.json?.task?.status?.state;

async function sendTasks(count: number, path: (i: number) => string): Promise<Json[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const res = await rest.call('SendMessage', { message: userMessage('/task hello'), configuration: { taskPushNotificationConfig: { url: receiver.url(path(i)) } } });
      expect(res.error).toBeUndefined();
      return res.result.task as Json;
    }),
  );
}

describe('ordered delivery per (task, config)', () => {
  it('gets a receiver that was down every event once it is back: in order, none lost, repeats only of the same webhook-id', async () => {
    let down = true;
    receiver = await startWebhookReceiver(() => (down ? { destroy: true } : { status: 200 }));
    const tasks = await sendTasks(6, (i) => `/down/${i}`);
    // several failed attempts of each task's first event (waited for, not slept: under load the first
    // attempts can come late, and a fixed 800 ms once saw only one before the receiver came back)
    await receiver.waitFor((r) => tasks.every((_, i) => r.filter((x) => x.path === `/down/${i}`).length >= 2), 15_000);
    down = false;
    await receiver.waitFor((r) => tasks.every((_, i) => r.filter((x) => x.path === `/down/${i}` && stateOf(x) === 'TASK_STATE_COMPLETED').length > 0), 15_000);
    await sleep(300);
    for (const [i, task] of tasks.entries()) {
      const got = receiver.on(`/down/${i}`);
      expect(got.every((r) => r.webhookId.startsWith(`${task.id}.`))).toBe(true);
      const seqs = got.map(seqOf);
      // while the receiver was down only event 1 was tried, again and again; then 2, 3, 4 once each
      expect(seqs.filter((s) => s === 1).length).toBeGreaterThan(1);
      expect(seqs.slice(seqs.lastIndexOf(1) + 1)).toEqual([2, 3, 4]);
      expect(stateOf(got[got.length - 1])).toBe('TASK_STATE_COMPLETED');
    }
    // the outbox lets go of the tasks once every config has caught up (at the next sweep, each second)
    const pending = async () => (await Promise.all(tasks.map((t) => redis.hexists(`${prefix}push:due`, t.id)))).filter(Boolean).length;
    await waitUntil(async () => (await pending()) === 0, { attempts: 60, intervalMs: 50 });
    expect(await pending()).toBe(0);
  }, 30_000);

  it("gives an event that is never accepted exactly the schedule's attempts, then the next ones follow", async () => {
    // the task (1) is accepted; WORKING (2) never is; the rest are
    receiver = await startWebhookReceiver((r) => (seqOf(r) === 2 ? { status: 500 } : {}));
    const [task] = await sendTasks(1, () => '/stuck');
    await receiver.waitFor((r) => r.some((x) => stateOf(x) === 'TASK_STATE_COMPLETED'), 15_000);
    await sleep(300);
    // nine schedule entries: nine attempts of event 2, then 3 and 4
    expect(receiver.on('/stuck').map(seqOf)).toEqual([1, ...Array(9).fill(2), 3, 4]);
    const ofTask = events.filter((e) => e.taskId === task.id);
    expect(ofTask.filter((e) => e.type === 'retried').map((e) => e.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(ofTask.filter((e) => e.type === 'failed')).toEqual([expect.objectContaining({ seq: 2, attempt: 9, maxAttempts: 9 })]);
  }, 30_000);

  it("shows operators where a config stands, lists a dead letter and redelivers it with the same webhook-id", async () => {
    let acceptTwo = false;
    receiver = await startWebhookReceiver((r) => (seqOf(r) === 2 && !acceptTwo ? { status: 503 } : {}));
    const admin = app.app.get(PushDeliveryAdmin);
    const [task] = await sendTasks(1, () => '/ops');
    await receiver.waitFor((r) => r.filter((x) => seqOf(x) === 2).length >= 3);
    const scope = events.find((e) => e.taskId === task.id)!.scope;
    // event 2 waits for its next attempt: the operator sees which, how often it failed and why
    const [waiting] = await admin.deliveryState(scope, task.id);
    expect(waiting).toMatchObject({ delivered: 1, pendingThrough: 4, url: receiver.url('/ops'), failing: { seq: 2, lastError: 'HTTP 503', lastStatus: 503 } });
    expect(waiting.failing!.attempts).toBeGreaterThanOrEqual(2);
    expect(Date.parse(waiting.failing!.nextAttemptAt)).toBeGreaterThan(Date.now() - 1000);
    await receiver.waitFor((r) => r.some((x) => stateOf(x) === 'TASK_STATE_COMPLETED'), 15_000);
    const webhookId = receiver.on('/ops').find((r) => seqOf(r) === 2)!.webhookId;
    expect((await admin.listDeadLetters(10)).map((l) => l.webhookId)).toContain(webhookId);
    expect(await admin.getDeadLetter(webhookId)).toMatchObject({ taskId: task.id, seq: 2, attempts: 9, lastStatus: 503 });
    await waitUntil(async () => (await admin.deliveryState(scope, task.id))[0].pendingThrough === 0, { attempts: 60, intervalMs: 50 });
    expect(await admin.deliveryState(scope, task.id)).toEqual([expect.objectContaining({ delivered: 4, pendingThrough: 0 })]);
    expect((await admin.deliveryState(scope, task.id))[0].failing).toBeUndefined();

    acceptTwo = true;
    const before = receiver.received.length;
    expect(await admin.redeliver(webhookId)).toBe(true);
    await receiver.waitFor((r) => r.length > before, 5000);
    await sleep(300);
    // the given-up notification again, as it was (the same webhook-id and body), and nothing else
    expect(receiver.received.slice(before).map((r) => r.webhookId)).toEqual([webhookId]);
    expect(receiver.received[before].body).toBe(receiver.on('/ops').find((r) => seqOf(r) === 2)!.body);
    expect(events.filter((e) => e.webhookId === webhookId && e.type === 'delivered')).toHaveLength(1);
    expect(await admin.getDeadLetter(webhookId)).toBeUndefined();
    expect(await admin.redeliver(webhookId)).toBe(false);
    expect(await admin.deliveryState({ ...scope, subject: 'someone else' }, task.id)).toEqual([]);
  }, 30_000);

  it('does the same from the command line: nestjs-a2a push dead-letters | dead-letter | state | redeliver', async () => {
    let acceptTwo = false;
    receiver = await startWebhookReceiver((r) => (seqOf(r) === 2 && !acceptTwo ? { status: 500 } : {}));
    const [task] = await sendTasks(1, () => '/cli');
    await receiver.waitFor((r) => r.some((x) => stateOf(x) === 'TASK_STATE_COMPLETED'), 15_000);
    const webhookId = receiver.on('/cli').find((r) => seqOf(r) === 2)!.webhookId;
    const cli = async (...args: string[]) => {
      let stdout = '';
      let stderr = '';
      const io = { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, env: { APP_REDIS: REDIS_URL } };
      const code = await runCli(['push', ...args, '--redis-env', 'APP_REDIS', '--prefix', prefix], io);
      return { code, stdout, stderr };
    };
    const listed = await cli('dead-letters', '--json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).map((l: Json) => l.webhookId)).toContain(webhookId);
    expect(JSON.parse((await cli('dead-letter', webhookId, '--json')).stdout)).toMatchObject({ taskId: task.id, seq: 2, attempts: 9 });
    await waitUntil(async () => (await redis.hexists(`${prefix}push:due`, task.id)) === 0, { attempts: 60, intervalMs: 50 }); // the next sweep
    const state = await cli('state', task.id, '--agent', 'echo');
    expect(state.stdout).toBe(`${receiver.on('/cli')[0].headers['webhook-id']!.toString().split('.')[2]}  ${receiver.url('/cli')}  delivered through 4, pending through 0\n`);
    acceptTwo = true;
    const before = receiver.received.length;
    expect(await cli('redeliver', webhookId)).toMatchObject({ code: 0, stdout: `${webhookId}: queued again\n` });
    await receiver.waitFor((r) => r.length > before, 5000);
    expect(receiver.received[before].webhookId).toBe(webhookId);
    expect(await cli('redeliver', webhookId)).toMatchObject({ code: 1, stdout: `no dead letter ${webhookId}\n` });
    // usage mistakes: exit 2, saying what is wrong
    expect(await cli('state', task.id)).toMatchObject({ code: 2, stderr: expect.stringContaining('--agent <name> is needed') });
    expect(await cli('nonsense')).toMatchObject({ code: 2 });
    const noRedis = await runCli(['push', 'dead-letters'], { stdout: { write: () => 0 }, stderr: { write: () => 0 }, env: {} });
    expect(noRedis).toBe(2);
  }, 30_000);

  it('sends nothing more to a config after its receiver answered 410 in the middle of a task', async () => {
    // event 1 (the task) and 2 (WORKING) are accepted; the artifact (3) gets 410 Gone
    receiver = await startWebhookReceiver((r) => (seqOf(r) >= 3 && r.path === '/gone' ? { status: 410 } : {}));
    const sent = await rest.call('SendMessage', {
      message: userMessage('/task slow 400'),
      configuration: { returnImmediately: true, taskPushNotificationConfig: { url: receiver.url('/gone') } },
    });
    const task = sent.result.task as Json;
    // a second config, added while the task runs, hears what comes after it
    const other = await rest.call('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'other', url: receiver.url('/other') });
    expect(other.error).toBeUndefined();
    await waitUntil(() => receiver.on('/other').some((r) => stateOf(r) === 'TASK_STATE_COMPLETED'), { attempts: 200, intervalMs: 50 });
    await sleep(500);
    expect(receiver.on('/gone').map(seqOf)).toEqual([1, 2, 3]);
    expect(events.filter((e) => e.taskId === task.id && e.configId !== 'other').map((e) => e.type)).toEqual(['delivered', 'delivered', 'disabled']);
    // the other config of the task hears the rest, in order, up to COMPLETED
    const otherSeqs = receiver.on('/other').map(seqOf);
    expect(otherSeqs).toEqual([...otherSeqs].sort((a, b) => a - b));
    expect(otherSeqs[otherSeqs.length - 1]).toBe(4);
    const listed = await rest.call('ListTaskPushNotificationConfigs', { taskId: task.id });
    expect(listed.result.configs.map((c: Json) => c.id)).toEqual(['other']);
  }, 30_000);
});
