/**
 * Interop with push on: the official `@a2a-js/sdk` client (code we did not write) runs the four
 * push-config operations and an inline config over both bindings against the demo (REDIS_URL set,
 * a key prefix of this file's own, loopback webhooks allowed), and a receiver on 127.0.0.1 gets
 * the notifications.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SendMessageRequest, TaskPushNotificationConfig, type Task } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client, type TransportFactory } from '@a2a-js/sdk/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { startWebhookReceiver, type WebhookReceiver } from 'nestjs-a2a/testing';
import { REDIS_URL, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { startDemo, type RunningApp } from './support/demo-app.js';

const prefix = uniquePrefix();
let demo: RunningApp;
let receiver: WebhookReceiver;
let seq = 0;

const loopbackOnly: typeof fetch = (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  if (!url.startsWith('http://127.0.0.1:')) throw new Error(`refusing to leave loopback: ${url}`);
  return fetch(input, init);
};

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  demo = await startDemo({ REDIS_URL, A2A_REDIS_PREFIX: prefix, A2A_ALLOW_PRIVATE_WEBHOOKS: '1', A2A_PUSH_RETRY_SCHEDULE: '0,100ms' });
});

afterAll(async () => {
  await demo?.close();
  await receiver?.close();
  await deleteKeysUnder(prefix);
});

function send(text: string, configuration?: Record<string, unknown>): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: { messageId: `push-interop-${++seq}`, role: 'ROLE_USER', parts: [{ text }] }, ...(configuration ? { configuration } : {}) });
}

describe.each([
  ['JSONRPC', (f: typeof fetch): TransportFactory => new JsonRpcTransportFactory({ fetchImpl: f })],
  ['HTTP+JSON', (f: typeof fetch): TransportFactory => new RestTransportFactory({ fetchImpl: f })],
])('@a2a-js/sdk client over %s, push on', (binding, factory) => {
  let client: Client;

  beforeAll(async () => {
    client = await new ClientFactory({ transports: [factory(loopbackOnly)], cardResolver: new DefaultAgentCardResolver({ fetchImpl: loopbackOnly }) }).createFromUrl(demo.url);
  });

  it('sees pushNotifications: true on the card', async () => {
    expect((await client.getAgentCard()).capabilities?.pushNotifications).toBe(true);
  });

  it('creates, gets, lists and deletes a config; Get and List redact its secrets', async () => {
    const task = (await client.sendMessage(send('/ask'))) as Task;
    const config = TaskPushNotificationConfig.fromJSON({
      taskId: task.id,
      id: `sdk-${binding}`,
      url: receiver.url('/sdk'),
      token: 'sdk-token',
      authentication: { scheme: 'Bearer', credentials: 'sdk-credentials' },
    });
    const created = await client.createTaskPushNotificationConfig(config);
    expect(TaskPushNotificationConfig.toJSON(created)).toMatchObject({ id: `sdk-${binding}`, taskId: task.id, url: receiver.url('/sdk'), token: 'sdk-token' });
    const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: `sdk-${binding}` });
    expect(got.token).toBe('***');
    expect(got.authentication?.credentials).toBe('***');
    const listed = await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
    expect(listed.configs.map((c) => c.id)).toEqual([`sdk-${binding}`]);

    // the next turn of the task is notified with the config's credentials
    await client.sendMessage(SendMessageRequest.fromJSON({ message: { messageId: `push-interop-${++seq}`, role: 'ROLE_USER', parts: [{ text: 'go' }], taskId: task.id } }));
    const notified = await receiver.waitFor((r) => r.filter((x) => x.json?.statusUpdate?.taskId === task.id && x.json.statusUpdate.status.state === 'TASK_STATE_COMPLETED').length > 0);
    const mine = notified.filter((r) => r.webhookId.startsWith(task.id));
    expect(mine.every((r) => r.headers.authorization === 'Bearer sdk-credentials' && r.headers['x-a2a-notification-token'] === 'sdk-token')).toBe(true);

    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: `sdk-${binding}` });
    const after = await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
    expect(after.configs).toEqual([]);
    await expect(client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: `sdk-${binding}` })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('registers an inline config: the receiver gets the task event and every later one', async () => {
    const path = `/inline-${binding === 'JSONRPC' ? 'rpc' : 'rest'}`;
    const task = (await client.sendMessage(send('/task via sdk', { taskPushNotificationConfig: { url: receiver.url(path) } }))) as Task;
    const got = await receiver.waitFor(() => receiver.on(path).length >= 4);
    expect(got.filter((r) => r.path === path).map((r) => Object.keys(r.json)[0]).sort()).toEqual(['artifactUpdate', 'statusUpdate', 'statusUpdate', 'task']);
    expect(receiver.on(path).every((r) => r.webhookId.startsWith(task.id))).toBe(true);
  });
});
