/**
 * The demo with push on (REDIS_URL set, a key prefix of this file's own via A2A_REDIS_PREFIX,
 * loopback webhooks allowed, a fast schedule): an inline config gets the task event and every later
 * one with the config's own Authorization; with the demo's API keys, another caller cannot see,
 * create, list or delete configs on a task that is not theirs (TaskNotFound, as for a missing task).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { startWebhookReceiver, type WebhookReceiver } from 'nestjs-a2a/testing';
import { REDIS_URL, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { startDemo, type RunningApp } from './support/demo-app.js';
import { jsonRpcClient, restClient, userMessage, type BindingClient, type Json } from './support/wire-client.js';

const prefix = uniquePrefix();
const env = { REDIS_URL, A2A_REDIS_PREFIX: prefix, A2A_ALLOW_PRIVATE_WEBHOOKS: '1', A2A_PUSH_RETRY_SCHEDULE: '0,100ms,200ms' };

let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver((_r, nth) => (nth === 0 ? { status: 503 } : {}));
});

afterAll(async () => {
  await receiver.close();
  await deleteKeysUnder(prefix);
});

describe('the demo with REDIS_URL: push notifications', () => {
  let demo: RunningApp;
  beforeAll(async () => {
    demo = await startDemo(env);
  });
  afterAll(async () => {
    await demo.close();
  });

  it('says pushNotifications: true on its card and serves the notification key in its JWKS', async () => {
    const card = (await (await fetch(`${demo.url}/.well-known/agent-card.json`)).json()) as Json;
    expect(card.capabilities.pushNotifications).toBe(true);
    const jwks = (await (await fetch(`${demo.url}/.well-known/jwks.json`)).json()) as Json;
    expect(jwks.keys).toEqual([expect.objectContaining({ kty: 'EC', alg: 'ES256', use: 'sig', kid: expect.stringMatching(/^demo-push-/) })]);
  });

  it.each([
    ['JSON-RPC', (url: string) => jsonRpcClient(`${url}/a2a/jsonrpc`)],
    ['HTTP+JSON', (url: string) => restClient(`${url}/a2a/rest`)],
  ])('delivers the task event and every later event of an inline config (%s), with Authorization exactly "Bearer <token>"', async (binding, clientOf) => {
    const path = `/demo-${binding === 'JSON-RPC' ? 'rpc' : 'rest'}`;
    const client: BindingClient = clientOf(demo.url);
    const res = await client.call('SendMessage', {
      message: userMessage('/task push me'),
      configuration: { taskPushNotificationConfig: { url: receiver.url(path), authentication: { scheme: 'Bearer', credentials: 'demo-token-1' } } },
    });
    const task = res.result.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    // every first attempt got a 503 and was retried on the schedule
    await receiver.waitFor(() => receiver.on(path).length >= 8);
    await sleep(300);
    const got = receiver.on(path);
    expect(got).toHaveLength(8);
    const delivered = got.filter((_r, i) => got.findIndex((x) => x.webhookId === got[i].webhookId) !== i);
    const events = delivered.map((r) => r.json);
    expect(events.map((e) => Object.keys(e)[0]).sort()).toEqual(['artifactUpdate', 'statusUpdate', 'statusUpdate', 'task']);
    expect(events.find((e) => e.task)!.task).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_SUBMITTED' } });
    expect(events.filter((e) => e.statusUpdate).map((e) => e.statusUpdate.status.state).sort()).toEqual(['TASK_STATE_COMPLETED', 'TASK_STATE_WORKING']);
    expect(events.find((e) => e.artifactUpdate)!.artifactUpdate.artifact.parts).toEqual([{ text: 'echo: push me' }]);
    for (const r of got) {
      expect(r.headers.authorization).toBe('Bearer demo-token-1');
      expect(r.headers['content-type']).toBe('application/a2a+json');
      expect(r.headers['x-a2a-notification-signature']).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);
    }
  });
});

describe('the demo with API keys and push: configs are scoped like their task', () => {
  let demo: RunningApp;
  const alice = { 'X-API-Key': 'k1' };
  const bob = { 'X-API-Key': 'k2' };
  beforeAll(async () => {
    demo = await startDemo({ ...env, DEMO_API_KEYS: 'alice:k1,bob:k2' });
  });
  afterAll(async () => {
    await demo.close();
  });

  it.each([
    ['JSON-RPC', (url: string) => jsonRpcClient(`${url}/a2a/jsonrpc`)],
    ['HTTP+JSON', (url: string) => restClient(`${url}/a2a/rest`)],
  ])("bob's Create/Get/List/Delete on alice's task answer TaskNotFound exactly like a missing task (%s)", async (_binding, clientOf) => {
    const client: BindingClient = clientOf(demo.url);
    const task = (await client.call('SendMessage', { message: userMessage('/ask') }, { headers: alice })).result.task;
    const config = { taskId: task.id, id: 'alice-hook', url: receiver.url('/alice'), authentication: { scheme: 'Bearer', credentials: 'alice-secret' } };
    expect((await client.call('CreateTaskPushNotificationConfig', config, { headers: alice })).result.id).toBe('alice-hook');

    const calls: Array<[string, Json]> = [
      ['CreateTaskPushNotificationConfig', { taskId: task.id, id: 'bob-hook', url: receiver.url('/bob') }],
      ['GetTaskPushNotificationConfig', { taskId: task.id, id: 'alice-hook' }],
      ['ListTaskPushNotificationConfigs', { taskId: task.id }],
      ['DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'alice-hook' }],
    ];
    for (const [operation, params] of calls) {
      const asBob = await client.call(operation, params, { headers: bob });
      const missing = await client.call(operation, { ...params, taskId: 'no-such-task' }, { headers: bob });
      expect(asBob.error?.reason).toBe('TASK_NOT_FOUND');
      expect(asBob.status).toBe(missing.status);
      expect(asBob.error?.code).toBe(missing.error?.code);
      expect(asBob.error?.message.replace(task.id, 'X')).toBe(missing.error?.message.replace('no-such-task', 'X'));
      expect(JSON.stringify(asBob.raw)).not.toContain('alice-secret');
    }
    // alice's config is still there, and bob's was never made
    const listed = (await client.call('ListTaskPushNotificationConfigs', { taskId: task.id }, { headers: alice })).result.configs;
    expect(listed.map((c: Json) => c.id)).toEqual(['alice-hook']);
    expect(listed[0].authentication).toEqual({ scheme: 'Bearer', credentials: '***' });
  });

  it("never lists alice's configs to bob, whose own tasks have none", async () => {
    const rest = restClient(`${demo.url}/a2a/rest`);
    const aliceTask = (await rest.call('SendMessage', { message: userMessage('/ask') }, { headers: alice })).result.task;
    await rest.call('CreateTaskPushNotificationConfig', { taskId: aliceTask.id, id: 'only-alice', url: receiver.url('/a') }, { headers: alice });
    const bobTask = (await rest.call('SendMessage', { message: userMessage('/ask') }, { headers: bob })).result.task;
    const bobList = await rest.call('ListTaskPushNotificationConfigs', { taskId: bobTask.id }, { headers: bob });
    expect(bobList.result.configs ?? []).toEqual([]);
    expect((await rest.call('ListTaskPushNotificationConfigs', { taskId: aliceTask.id }, { headers: bob })).error?.reason).toBe('TASK_NOT_FOUND');
  });
});
