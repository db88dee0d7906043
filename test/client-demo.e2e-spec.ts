/**
 * Our client against our server: the demo's `echo` agent over both bindings, every operation,
 * streaming and resubscription, typed errors, service parameters and the tenant echo.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  A2AClient,
  InvalidParamsError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnauthenticatedError,
  UnsupportedOperationError,
  ContentTypeNotSupportedError,
  VersionNotSupportedError,
  A2ACircuitBreakers,
  type A2AClientOptions,
  type A2ABinding,
  type A2ARequestInfo,
} from 'nestjs-a2a';
import { startHttpServer, type LoopbackServer } from '../libs/a2a/src/net/testing/loopback-server.js';
import { describeEvent, taskOf } from './support/client-results.js';
import { startDemo, type RunningApp } from './support/demo-app.js';
import { jsonRpcClient, restClient, userMessage, type Json } from './support/wire-client.js';

const LOCAL = { egress: { allowHttp: true, allowPrivate: true } } as const;

let demo: RunningApp;
beforeAll(async () => {
  demo = await startDemo();
});
afterAll(() => demo.close());

describe.each<[A2ABinding, string]>([
  ['JSONRPC', '/a2a/jsonrpc'],
  ['HTTP+JSON', '/a2a/rest'],
])('A2AClient on %s against the demo', (binding, path) => {
  let client: A2AClient;
  beforeAll(() => {
    client = new A2AClient({ cardUrl: demo.url, preferredBinding: binding, ...LOCAL, circuitBreakers: new A2ACircuitBreakers() });
  });
  afterAll(() => client.close());

  it('discovers the card and picks the preferred interface', async () => {
    const card = await client.getAgentCard();
    expect(card.name).toBe('echo');
    const selected = await client.getInterface();
    expect(selected.binding).toBe(binding);
    expect(selected.url.href).toBe(`${demo.url}${path}`);
  });

  it('SendMessage: a direct Message, and a blocking Task with its artifact', async () => {
    const reply = await client.sendMessage({ message: userMessage('hello') });
    expect('message' in reply && reply.message.parts[0].text).toBe('echo: hello');
    const task = taskOf(await client.sendMessage({ message: userMessage('/task hi') }));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts?.[0].parts[0].text).toBe('echo: hi');
  });

  it('SendStreamingMessage: the task lifecycle in order, with event ids', async () => {
    const stream = client.sendStreamingMessage({ message: userMessage('/task streamed') });
    const events = await stream.toArray();
    expect(events.map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_WORKING', 'artifact:echo: streamed', 'status:TASK_STATE_COMPLETED']);
    // this library's server numbers a task's events from 1
    expect(stream.lastEventId).toBe(String(events.length));
  });

  it('SendStreamingMessage: a message-only stream', async () => {
    const events = await client.sendStreamingMessage({ message: userMessage('just a message') }).toArray();
    expect(events.map(describeEvent)).toEqual(['message:echo: just a message']);
  });

  it('GetTask with historyLength, ListTasks by context', async () => {
    const task = taskOf(await client.sendMessage({ message: userMessage('/task listed') }));
    const got = await client.getTask({ id: task.id, historyLength: 0 });
    expect(got.id).toBe(task.id);
    expect(got.history).toBeUndefined();
    const listed = await client.listTasks({ contextId: task.contextId, includeArtifacts: true });
    expect(listed.tasks.map((t) => t.id)).toEqual([task.id]);
    expect(listed.tasks[0].artifacts?.[0].parts[0].text).toBe('echo: listed');
    expect(listed.nextPageToken).toBe('');
  });

  it('CancelTask: a running task is canceled; a finished one is not cancelable; an unknown one is not found', async () => {
    const running = taskOf(await client.sendMessage({ message: userMessage('/task slow 5000 x'), configuration: { returnImmediately: true } }));
    const canceled = await client.cancelTask({ id: running.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const done = taskOf(await client.sendMessage({ message: userMessage('/task done') }));
    await expect(client.cancelTask({ id: done.id })).rejects.toBeInstanceOf(TaskNotCancelableError);
    await expect(client.cancelTask({ id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(client.getTask({ id: 'no-such-task' })).rejects.toThrow(TaskNotFoundError);
  });

  it('SubscribeToTask: the snapshot first, then every event to COMPLETED; resumes after Last-Event-ID', async () => {
    const started = taskOf(await client.sendMessage({ message: userMessage('/task slow 300 sub'), configuration: { returnImmediately: true } }));
    const live = await client.subscribeToTask({ id: started.id }).toArray();
    expect(describeEvent(live[0])).toMatch(/^task:/);
    expect(describeEvent(live[live.length - 1])).toBe('status:TASK_STATE_COMPLETED');

    const stream = client.sendStreamingMessage({ message: userMessage('/task replay') });
    const all = await stream.toArray();
    const taskId = 'task' in all[0] ? all[0].task.id : '';
    const replay = client.subscribeToTask({ id: taskId }, { lastEventId: '2' });
    expect(await replay.toArray()).toEqual(all.slice(2));
    expect(replay.lastEventId).toBe(stream.lastEventId);
  });

  it('a stream left early closes its connection and keeps the last event id', async () => {
    const started = taskOf(await client.sendMessage({ message: userMessage('/task slow 2000 early'), configuration: { returnImmediately: true } }));
    const stream = client.subscribeToTask({ id: started.id });
    for await (const event of stream) {
      expect('task' in event).toBe(true);
      break;
    }
    expect(stream.lastEventId).toBeDefined();
    await client.cancelTask({ id: started.id });
  });

  it('typed errors: UnsupportedOperation (terminal task, finished subscription, extended card), ContentTypeNotSupported', async () => {
    const done = taskOf(await client.sendMessage({ message: userMessage('/task done') }));
    await expect(client.sendMessage({ message: userMessage('again', { taskId: done.id }) })).rejects.toBeInstanceOf(UnsupportedOperationError);
    await expect(client.subscribeToTask({ id: done.id }).toArray()).rejects.toBeInstanceOf(UnsupportedOperationError);
    await expect(client.subscribeToTask({ id: 'no-such-task' }).toArray()).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(client.getExtendedAgentCard()).rejects.toBeInstanceOf(UnsupportedOperationError);
    const image = client.sendMessage({ message: { messageId: `img-${binding}`, role: 'ROLE_USER', parts: [{ raw: 'iVBORw0KGgo=', mediaType: 'image/png' }] } });
    await expect(image).rejects.toBeInstanceOf(ContentTypeNotSupportedError);
    await expect(image).rejects.toThrow(/image\/png/);
  });

  it('push-config operations: typed PushNotificationNotSupported, or the four operations when the agent has push', async () => {
    const card = await client.getAgentCard();
    const task = taskOf(await client.sendMessage({ message: userMessage('/task push') }));
    if (!card.capabilities.pushNotifications) {
      const attempts = [
        client.createTaskPushNotificationConfig({ taskId: task.id, url: 'http://127.0.0.1:9/a2a-hook' }),
        client.getTaskPushNotificationConfig({ taskId: task.id, id: 'c' }),
        client.listTaskPushNotificationConfigs({ taskId: task.id }),
        client.deleteTaskPushNotificationConfig({ taskId: task.id, id: 'c' }),
      ];
      for (const attempt of attempts) await expect(attempt).rejects.toBeInstanceOf(PushNotificationNotSupportedError);
      return;
    }
    const created = await client.createTaskPushNotificationConfig({ taskId: task.id, url: 'http://127.0.0.1:9/a2a-hook' });
    expect(created.id).toBeTruthy();
    expect((await client.getTaskPushNotificationConfig({ taskId: task.id, id: created.id! })).url).toBe('http://127.0.0.1:9/a2a-hook');
    expect((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs.map((c) => c.id)).toContain(created.id);
    await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: created.id! });
  });

  it('refuses an invalid request before sending it (InvalidParams, naming the field)', async () => {
    const error = await client.sendMessage({ message: { messageId: 'm', role: 'ROLE_USER', parts: [] } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as InvalidParamsError).fieldViolations).toEqual([{ field: 'message.parts', description: 'is required and must not be empty' }]);
  });
});

describe('credentials and service parameters', () => {
  let guarded: RunningApp;
  beforeAll(async () => {
    guarded = await startDemo({ DEMO_API_KEYS: 'alice:key-1' });
  });
  afterAll(() => guarded.close());

  it.each<A2ABinding>(['JSONRPC', 'HTTP+JSON'])('%s: 401 is UnauthenticatedError; a headers provider asked per request supplies the key', async (binding) => {
    const anonymous = new A2AClient({ cardUrl: guarded.url, preferredBinding: binding, ...LOCAL, circuitBreakers: false });
    await expect(anonymous.sendMessage({ message: userMessage('hi') })).rejects.toBeInstanceOf(UnauthenticatedError);
    await anonymous.close();

    const asked: string[] = [];
    const provider = (request: A2ARequestInfo) => {
      asked.push(request.operation);
      return request.operation === 'AgentCard' ? {} : { 'X-API-Key': 'key-1' };
    };
    const client = new A2AClient({ cardUrl: guarded.url, preferredBinding: binding, ...LOCAL, circuitBreakers: false, headers: provider, discoveryHeaders: provider });
    const reply = await client.sendMessage({ message: userMessage('hi') });
    expect('message' in reply && reply.message.parts[0].text).toBe('echo: hi');
    expect(asked).toEqual(['AgentCard', 'SendMessage']);
    await client.close();

    // discovery is asked for its headers only through discoveryHeaders
    asked.length = 0;
    const operationsOnly = new A2AClient({ cardUrl: guarded.url, preferredBinding: binding, ...LOCAL, circuitBreakers: false, headers: provider });
    await operationsOnly.sendMessage({ message: userMessage('hi') });
    expect(asked).toEqual(['SendMessage']);
    await operationsOnly.close();
  });
});

/** A card served by a raw server, pointing at the demo's interfaces with a tenant. */
describe('tenant echo (spec §8.3.2)', () => {
  let cards: LoopbackServer;
  beforeAll(async () => {
    const card = (await (await fetch(`${demo.url}/.well-known/agent-card.json`)).json()) as Json;
    card.supportedInterfaces = card.supportedInterfaces.map((i: Json) => ({ ...i, tenant: 'acme' }));
    cards = await startHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card)));
  });
  afterAll(() => cards.close());

  it.each<A2ABinding>(['JSONRPC', 'HTTP+JSON'])('%s: every request carries the interface tenant; the server files the task under it', async (binding) => {
    const client = new A2AClient({ cardUrl: `http://127.0.0.1:${cards.port}`, preferredBinding: binding, ...LOCAL, circuitBreakers: false });
    const task = taskOf(await client.sendMessage({ message: userMessage('/task tenanted') }));
    expect((await client.getTask({ id: task.id })).id).toBe(task.id);
    expect((await client.listTasks()).tasks.map((t) => t.id)).toContain(task.id);
    const events = await client.subscribeToTask({ id: task.id }, { lastEventId: '0' }).toArray();
    expect(events.length).toBeGreaterThan(0);
    // seen from outside: the task lives in tenant "acme" only
    for (const wire of [jsonRpcClient(`${demo.url}/a2a/jsonrpc`), restClient(`${demo.url}/a2a/rest`)]) {
      expect((await wire.call('GetTask', { tenant: 'acme', id: task.id })).result?.id).toBe(task.id);
      expect((await wire.call('GetTask', { id: task.id })).error?.reason).toBe('TASK_NOT_FOUND');
    }
    // the per-call override wins
    await expect(client.getTask({ id: task.id }, { tenant: 'other' })).rejects.toBeInstanceOf(TaskNotFoundError);
    await client.close();
  });
});

/** What reaches the wire, recorded by a raw server: headers, tenant placement, media types. */
describe('the wire form of requests', () => {
  let peer: LoopbackServer;
  const task = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } };
  beforeAll(async () => {
    peer = await startHttpServer((req, res, body) => {
      const base = `http://127.0.0.1:${peer.port}`;
      if (req.url === '/.well-known/agent-card.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            name: 'recorder',
            description: 'records',
            version: '1',
            supportedInterfaces: [
              { url: `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0.1', tenant: 't/1' },
              { url: `${base}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 't/1' },
            ],
            capabilities: {},
            defaultInputModes: ['text/plain'],
            defaultOutputModes: ['text/plain'],
            skills: [],
          }),
        );
      } else if (req.url === '/rpc') {
        const { id } = JSON.parse(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: task }));
      } else {
        res.writeHead(200, { 'content-type': 'application/a2a+json' }).end(JSON.stringify(task));
      }
    });
  });
  afterAll(() => peer.close());

  const options = (binding: A2ABinding): A2AClientOptions => ({
    cardUrl: `http://127.0.0.1:${peer.port}/`,
    preferredBinding: binding,
    ...LOCAL,
    extensions: ['https://ext.example.com/a'],
    circuitBreakers: false,
  });

  it('JSON-RPC: POST application/json, A2A-Version and A2A-Extensions headers, params.tenant', async () => {
    const client = new A2AClient(options('JSONRPC'));
    await client.getTask({ id: 't-1', historyLength: 2 }, { extensions: ['https://ext.example.com/b'] });
    const card = peer.requests.find((r) => r.url === '/.well-known/agent-card.json')!;
    expect(card.headers['a2a-version']).toBe('1.0');
    const rpc = peer.requests.filter((r) => r.url === '/rpc').at(-1)!;
    expect(rpc.method).toBe('POST');
    expect(rpc.headers['content-type']).toBe('application/json');
    expect(rpc.headers['a2a-version']).toBe('1.0');
    expect(rpc.headers['a2a-extensions']).toBe('https://ext.example.com/a, https://ext.example.com/b');
    expect(JSON.parse(rpc.body)).toMatchObject({ jsonrpc: '2.0', method: 'GetTask', params: { id: 't-1', historyLength: 2, tenant: 't/1' } });
    await client.close();
  });

  it('HTTP+JSON: the /{tenant} path prefix, camelCase query, application/a2a+json bodies', async () => {
    const client = new A2AClient(options('HTTP+JSON'));
    await client.getTask({ id: 't-1', historyLength: 2 });
    await client.listTasks({ status: 'TASK_STATE_WORKING', includeArtifacts: true, pageSize: 5 }).catch(() => undefined);
    await client.cancelTask({ id: 't-1' });
    const rest = peer.requests.filter((r) => r.url.startsWith('/rest'));
    expect(rest.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /rest/t%2F1/tasks/t-1?historyLength=2',
      'GET /rest/t%2F1/tasks?status=TASK_STATE_WORKING&pageSize=5&includeArtifacts=true',
      'POST /rest/t%2F1/tasks/t-1:cancel',
    ]);
    expect(rest[2].headers['content-type']).toBe('application/a2a+json');
    expect(rest[2].body).toBe('{}');
    expect(rest.every((r) => r.headers['a2a-version'] === '1.0' && r.headers['a2a-extensions'] === 'https://ext.example.com/a')).toBe(true);
    await client.close();
  });
});

describe('a server that refuses the version', () => {
  let refusing: LoopbackServer;
  beforeAll(async () => {
    refusing = await startHttpServer((req, res, body) => {
      const base = `http://127.0.0.1:${refusing.port}`;
      if (req.url === '/.well-known/agent-card.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            name: 'old',
            description: 'refuses 1.0',
            version: '1',
            supportedInterfaces: [
              { url: `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
              { url: `${base}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
            ],
            capabilities: {},
            defaultInputModes: ['text/plain'],
            defaultOutputModes: ['text/plain'],
            skills: [],
          }),
        );
        return;
      }
      const info = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'VERSION_NOT_SUPPORTED', domain: 'a2a-protocol.org', metadata: { supportedVersions: '2.0' } };
      if (req.url === '/rpc') {
        const { id } = JSON.parse(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32009, message: 'Only 2.0 here', data: [info] } }));
      } else {
        res
          .writeHead(400, { 'content-type': 'application/a2a+json' })
          .end(JSON.stringify({ error: { code: 400, status: 'FAILED_PRECONDITION', message: 'Only 2.0 here', details: [info] } }));
      }
    });
  });
  afterAll(() => refusing.close());

  it.each<A2ABinding>(['JSONRPC', 'HTTP+JSON'])('%s: VersionNotSupportedError with the peer message and ErrorInfo metadata', async (binding) => {
    const client = new A2AClient({ cardUrl: `http://127.0.0.1:${refusing.port}`, preferredBinding: binding, ...LOCAL, circuitBreakers: false });
    const error = await client.sendMessage({ message: userMessage('hi') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VersionNotSupportedError);
    expect((error as VersionNotSupportedError).message).toBe('Only 2.0 here');
    expect((error as VersionNotSupportedError).metadata).toEqual({ supportedVersions: '2.0' });
    await expect(client.subscribeToTask({ id: 'x' }).next()).rejects.toBeInstanceOf(VersionNotSupportedError);
    await client.close();
  });
});
