/**
 * The demo served at A2A 0.3 (its default `v03`), driven by the official `@a2a-js/sdk` 0.3.x
 * client (the `a2a-sdk-v03` alias: code we did not write) over its JSON-RPC and its REST
 * transports, resolved from the demo's card: sends answered with a Message and with a Task,
 * streams (kinds in order, `final` on the last), get, cancel, resubscribe, push configs (and the
 * 0.3 notification: the whole Task), errors. With Redis, so push is on.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Message, MessageSendParams, Task } from 'a2a-sdk-v03';
import {
  ClientFactory,
  JsonRpcTransportFactory,
  RestTransportFactory,
  TaskNotCancelableError,
  TaskNotFoundError,
  type Client,
  type TransportFactory,
} from 'a2a-sdk-v03/client';
import { rejectionOf, startWebhookReceiver, type WebhookReceiver } from 'nestjs-a2a/testing';
import { REDIS_URL, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { startDemo, type RunningApp } from './support/demo-app.js';

const prefix = uniquePrefix();
let demo: RunningApp;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  demo = await startDemo({ REDIS_URL, A2A_REDIS_PREFIX: prefix, A2A_ALLOW_PRIVATE_WEBHOOKS: '1', A2A_PUSH_RETRY_SCHEDULE: '0,100ms,200ms' });
});

afterAll(async () => {
  await demo?.close();
  await receiver?.close();
  await deleteKeysUnder(prefix);
});

function send(text: string, configuration: MessageSendParams['configuration'] = {}, extra: Partial<Message> = {}): MessageSendParams {
  return { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }], ...extra }, configuration };
}

function asTask(result: Message | Task): Task {
  if (result.kind !== 'task') throw new Error(`expected a Task, got ${JSON.stringify(result)}`);
  return result;
}

const textsOf = (task: Task) => (task.artifacts ?? []).flatMap((a) => a.parts.map((p) => (p.kind === 'text' ? p.text : `<${p.kind}>`)));

describe.each<[string, () => TransportFactory]>([
  ['JSONRPC', () => new JsonRpcTransportFactory()],
  ['HTTP+JSON', () => new RestTransportFactory()],
])('the a2a-js 0.3 client over %s', (transport, factoryOf) => {
  let client: Client;

  beforeAll(async () => {
    client = await new ClientFactory({ transports: [factoryOf()], preferredTransports: [transport] }).createFromUrl(demo.url);
  });

  it('reads the hybrid card and is given the 0.3 interface of its transport', async () => {
    const card = await client.getAgentCard();
    expect(card).toMatchObject({ protocolVersion: '0.3', url: `${demo.url}/a2a/jsonrpc`, preferredTransport: 'JSONRPC' });
    expect(card.additionalInterfaces).toEqual([
      { url: `${demo.url}/a2a/jsonrpc`, transport: 'JSONRPC' },
      { url: `${demo.url}/a2a/rest`, transport: 'HTTP+JSON' },
    ]);
  });

  it('sends a message answered with a Message', async () => {
    const result = await client.sendMessage(send('hello there'));
    expect(result).toMatchObject({ kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'echo: hello there' }] });
  });

  it('sends a message answered with the finished Task (the client asks to block)', async () => {
    const task = asTask(await client.sendMessage(send('/task over 0.3')));
    expect(task).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(textsOf(task)).toEqual(['echo: over 0.3']);
    const got = await client.getTask({ id: task.id });
    expect(got).toMatchObject({ kind: 'task', id: task.id, contextId: task.contextId, status: { state: 'completed' } });
    expect(textsOf(got)).toEqual(['echo: over 0.3']);
  });

  it('without `blocking`, answers at once (0.3: absent means not blocking)', async () => {
    const task = asTask(await client.sendMessage(send('/task slow 1500 later', { blocking: false })));
    expect(['submitted', 'working']).toContain(task.status.state);
  });

  it('streams the kinds in order, `final` on the last status update only', async () => {
    const events = [];
    for await (const event of client.sendMessageStream(send('/task streamed'))) events.push(event);
    expect(events.map((e) => e.kind)).toEqual(['task', 'status-update', 'artifact-update', 'status-update']);
    const updates = events.filter((e) => e.kind === 'status-update');
    expect(updates.map((e) => [e.status.state, e.final])).toEqual([
      ['working', false],
      ['completed', true],
    ]);
  });

  it('streams a Message answer as one message event', async () => {
    const events = [];
    for await (const event of client.sendMessageStream(send('plain'))) events.push(event);
    expect(events).toEqual([expect.objectContaining({ kind: 'message', parts: [{ kind: 'text', text: 'echo: plain' }] })]);
  });

  it('cancels a running task; a finished one is not cancelable (TaskNotCancelable)', async () => {
    const task = asTask(await client.sendMessage(send('/task slow 20000 cancel me', { blocking: false })));
    const canceled = await client.cancelTask({ id: task.id });
    expect(canceled).toMatchObject({ kind: 'task', id: task.id, status: { state: 'canceled' } });
    expect(await client.getTask({ id: task.id })).toMatchObject({ status: { state: 'canceled' } });
    const done = asTask(await client.sendMessage(send('/task done')));
    expect(await rejectionOf(client.cancelTask({ id: done.id }))).toBeInstanceOf(TaskNotCancelableError);
  });

  it('resubscribes to a running task and follows it to its end', async () => {
    const task = asTask(await client.sendMessage(send('/task slow 800 followed', { blocking: false })));
    const events = [];
    for await (const event of client.resubscribeTask({ id: task.id })) events.push(event);
    expect(events[0]).toMatchObject({ kind: 'task', id: task.id });
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(events.some((e) => e.kind === 'artifact-update')).toBe(true);
  });

  it('answers an unknown task with TaskNotFound', async () => {
    expect(await rejectionOf(client.getTask({ id: 'no-such-task' }))).toBeInstanceOf(TaskNotFoundError);
    expect(await rejectionOf(client.cancelTask({ id: 'no-such-task' }))).toBeInstanceOf(TaskNotFoundError);
  });

  it('sets, gets, lists and deletes push configs; the webhook gets the whole Task, in 0.3', async () => {
    const task = asTask(await client.sendMessage(send('/ask')));
    expect(task.status.state).toBe('input-required');
    const path = `/v03-${transport === 'JSONRPC' ? 'rpc' : 'rest'}`;
    const pushNotificationConfig = { id: 'hook-1', url: receiver.url(path), token: 'tok-1' };
    const set = await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig });
    expect(set).toMatchObject({ taskId: task.id, pushNotificationConfig: { id: 'hook-1', url: pushNotificationConfig.url } });
    const got = await client.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook-1' } as never);
    expect(got).toMatchObject({ taskId: task.id, pushNotificationConfig: { id: 'hook-1', url: pushNotificationConfig.url, token: '***' } });
    expect(await client.listTaskPushNotificationConfig({ id: task.id })).toEqual([expect.objectContaining({ taskId: task.id })]);

    // the answer to the question completes the task: the webhook hears each event as the whole task
    const done = asTask(await client.sendMessage(send('yes', { blocking: true }, { taskId: task.id, contextId: task.contextId })));
    expect(done.status.state).toBe('completed');
    await receiver.waitFor(() => receiver.on(path).some((r) => r.json?.status?.state === 'completed'));
    for (const notification of receiver.on(path)) {
      expect(notification.json).toMatchObject({ kind: 'task', id: task.id, contextId: task.contextId });
      expect(notification.headers['content-type']).toBe('application/json');
      expect(notification.headers['x-a2a-notification-token']).toBe('tok-1');
      expect(notification.headers['a2a-version']).toBeUndefined();
      expect(notification.headers['x-a2a-notification-signature']).toMatch(/^ey/);
    }

    await client.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook-1' });
    expect(await client.listTaskPushNotificationConfig({ id: task.id })).toEqual([]);
  });
});

describe.each<[string, () => TransportFactory]>([
  ['JSONRPC', () => new JsonRpcTransportFactory()],
  ['HTTP+JSON', () => new RestTransportFactory()],
])("the a2a-js 0.3 client and the demo's support agent over %s", (transport, factoryOf) => {
  it('resolves its card at its own path and has it delegate to its peer', async () => {
    const client = await new ClientFactory({ transports: [factoryOf()], preferredTransports: [transport] }).createFromUrl(`${demo.url}/agents/support/.well-known/agent-card.json`, '');
    expect(await client.getAgentCard()).toMatchObject({ name: 'support', url: `${demo.url}/agents/support/a2a/jsonrpc` });
    const task = asTask(await client.sendMessage(send('/delegate echo__echo over 0.3')));
    expect(task.status.state).toBe('completed');
    expect(textsOf(task).join('')).toContain('echo: over 0.3');
  });
});
