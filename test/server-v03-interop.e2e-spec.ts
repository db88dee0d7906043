/**
 * A2A 0.3 beside 1.0 on the demo, from other angles than the 0.3 SDK's client: the 1.0 SDK's own
 * 0.3 transports (its `compat/v0_3` legacy mode), tasks started in one version and read, followed
 * and canceled in the other, our own A2AClient held to the card's 0.3 interfaces, and two
 * instances on one Redis (a 0.3 task resubscribed and canceled on the instance that does not run it).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { SendMessageRequest, TaskState, type StreamResponse } from '@a2a-js/sdk';
import { LegacyJsonRpcTransport, LegacyRestTransport } from '@a2a-js/sdk/compat/v0_3/client';
import type { Message, MessageSendParams, Task } from 'a2a-sdk-v03';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory, type Client } from 'a2a-sdk-v03/client';
import type { AgentCard } from 'nestjs-a2a';
import { A2AClient } from 'nestjs-a2a/client';
import { REDIS_URL, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { startDemo, type RunningApp } from './support/demo-app.js';
import { V1, jsonRpcClient, restClient, userMessage, waitForTask, type Json } from './support/wire-client.js';

const LOCAL = { allowHttp: true, allowPrivate: true } as const;

function send03(text: string, configuration: MessageSendParams['configuration'] = {}): MessageSendParams {
  return { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }] }, configuration };
}

function asTask(result: Message | Task): Task {
  if (result.kind !== 'task') throw new Error(`expected a Task, got ${JSON.stringify(result)}`);
  return result;
}

const v03Client = (url: string, transport: 'JSONRPC' | 'HTTP+JSON'): Promise<Client> =>
  new ClientFactory({ transports: [transport === 'JSONRPC' ? new JsonRpcTransportFactory() : new RestTransportFactory()], preferredTransports: [transport] }).createFromUrl(url);

describe('one demo', () => {
  let demo: RunningApp;
  beforeAll(async () => {
    demo = await startDemo();
  });
  afterAll(() => demo.close());

  describe.each([
    ['JSON-RPC', (url: string) => new LegacyJsonRpcTransport({ endpoint: `${url}/a2a/jsonrpc` })],
    ['REST', (url: string) => new LegacyRestTransport({ endpoint: `${url}/a2a/rest` })],
  ])('the 1.0 SDK in its 0.3 mode (%s)', (_name, transportOf) => {
    const request = (text: string, configuration?: Json) =>
      SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] }, ...(configuration ? { configuration } : {}) });

    it('sends (Message and Task answers), streams, gets and cancels', async () => {
      const transport = transportOf(demo.url);
      const message = await transport.sendMessage(request('hi'));
      expect(JSON.stringify(message)).toContain('echo: hi');
      const task = (await transport.sendMessage(request('/task legacy', { returnImmediately: false }))) as Json;
      expect(task.id).toEqual(expect.any(String));
      expect(task.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect((await transport.getTask({ id: task.id, tenant: '' } as never)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

      const kinds: string[] = [];
      for await (const event of transport.sendMessageStream(request('/task streamed'))) kinds.push((event as StreamResponse).payload?.$case ?? 'none');
      expect(kinds).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);

      const slow = (await transport.sendMessage(request('/task slow 20000 x', { returnImmediately: true }))) as Json;
      const canceled = await transport.cancelTask({ id: slow.id, tenant: '', metadata: undefined } as never);
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    });
  });

  it.each(['JSONRPC', 'HTTP+JSON'] as const)('a task started over 0.3 (%s) is read, followed and canceled over 1.0', async (transport) => {
    const client = await v03Client(demo.url, transport);
    const task = asTask(await client.sendMessage(send03('/task slow 20000 from 0.3', { blocking: false })));
    for (const v1 of [jsonRpcClient(`${demo.url}/a2a/jsonrpc`), restClient(`${demo.url}/a2a/rest`)]) {
      const got = await v1.call('GetTask', { id: task.id }, { headers: V1 });
      expect(got.result).toMatchObject({ id: task.id, contextId: task.contextId });
      expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(got.result.status.state);
    }
    const v1 = restClient(`${demo.url}/a2a/rest`);
    const following = v1.stream('SubscribeToTask', { id: task.id }, { headers: V1 });
    const canceled = await jsonRpcClient(`${demo.url}/a2a/jsonrpc`).call('CancelTask', { id: task.id }, { headers: V1 });
    expect(canceled.result.status.state).toBe('TASK_STATE_CANCELED');
    const events = (await following).events.map((e) => e.data);
    expect(events[0].task.id).toBe(task.id);
    expect(events.at(-1).statusUpdate.status.state).toBe('TASK_STATE_CANCELED');
    expect((await client.getTask({ id: task.id })).status.state).toBe('canceled');
  });

  it.each(['JSONRPC', 'HTTP+JSON'] as const)('a task started over 1.0 is read, followed and canceled over 0.3 (%s)', async (transport) => {
    const v1 = jsonRpcClient(`${demo.url}/a2a/jsonrpc`);
    const task = (await v1.call('SendMessage', { message: userMessage('/task slow 20000 from 1.0'), configuration: { returnImmediately: true } }, { headers: V1 })).result.task;
    const client = await v03Client(demo.url, transport);
    expect(await client.getTask({ id: task.id })).toMatchObject({ kind: 'task', id: task.id, contextId: task.contextId });
    const events: Json[] = [];
    const following = (async () => {
      for await (const event of client.resubscribeTask({ id: task.id })) events.push(event);
    })();
    await waitForTask(v1, task.id, (t) => t.status.state === 'TASK_STATE_WORKING');
    expect(await client.cancelTask({ id: task.id })).toMatchObject({ kind: 'task', status: { state: 'canceled' } });
    await following;
    expect(events[0]).toMatchObject({ kind: 'task', id: task.id });
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'canceled' } });
    expect((await v1.call('GetTask', { id: task.id }, { headers: V1 })).result.status.state).toBe('TASK_STATE_CANCELED');
  });

  it.each(['JSONRPC', 'HTTP+JSON'] as const)('our A2AClient held to the card’s 0.3 interfaces (%s) still does everything', async (binding) => {
    const card = (await (await fetch(`${demo.url}/.well-known/agent-card.json`, { headers: V1 })).json()) as AgentCard;
    const only03 = { ...card, supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3') };
    const client = new A2AClient({ card: only03, preferredBinding: binding, egress: LOCAL, circuitBreakers: false });
    try {
      expect(await client.getInterface()).toMatchObject({ protocolVersion: '0.3', binding });
      expect(await client.sendMessage({ message: userMessage('plain') })).toMatchObject({ message: { parts: [{ text: 'echo: plain' }] } });
      const done = await client.sendMessage({ message: userMessage('/task ours') });
      expect('task' in done && done.task.status.state).toBe('TASK_STATE_COMPLETED');
      const kinds: string[] = [];
      for await (const event of client.sendStreamingMessage({ message: userMessage('/task stream') })) kinds.push(Object.keys(event)[0]);
      expect(kinds).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
      const slow = await client.sendMessage({ message: userMessage('/task slow 20000 y'), configuration: { returnImmediately: true } });
      const id = 'task' in slow ? slow.task.id : '';
      expect((await client.cancelTask({ id })).status.state).toBe('TASK_STATE_CANCELED');
      expect((await client.getTask({ id })).status.state).toBe('TASK_STATE_CANCELED');
    } finally {
      await client.close();
    }
  });
});

describe('two instances on one Redis', () => {
  const prefix = uniquePrefix();
  let a: RunningApp;
  let b: RunningApp;
  beforeAll(async () => {
    const env = { REDIS_URL, A2A_REDIS_PREFIX: prefix };
    a = await startDemo(env);
    b = await startDemo(env);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await deleteKeysUnder(prefix);
  });

  it.each(['JSONRPC', 'HTTP+JSON'] as const)('a task started over 0.3 on one is resubscribed and canceled on the other (%s)', async (transport) => {
    const onA = await v03Client(a.url, transport);
    const onB = await v03Client(b.url, transport);
    const task = asTask(await onA.sendMessage(send03('/task slow 20000 across', { blocking: false })));
    const events: Json[] = [];
    const following = (async () => {
      for await (const event of onB.resubscribeTask({ id: task.id })) events.push(event);
    })();
    await waitForTask(jsonRpcClient(`${b.url}/a2a/jsonrpc`), task.id, (t) => t.status.state === 'TASK_STATE_WORKING');
    expect(await onB.cancelTask({ id: task.id })).toMatchObject({ kind: 'task', id: task.id, status: { state: 'canceled' } });
    await following;
    expect(events[0]).toMatchObject({ kind: 'task', id: task.id });
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'canceled' } });
    expect((await onA.getTask({ id: task.id })).status.state).toBe('canceled');
  });
});
