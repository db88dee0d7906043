/**
 * Interop: the official `@a2a-js/sdk` client (code we did not write) drives the demo's `echo` agent
 * over both HTTP bindings, JSON-RPC and HTTP+JSON, with the transport forced per suite.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ListTasksRequest,
  Role,
  SendMessageRequest,
  TaskPushNotificationConfig,
  TaskState,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
  type RequestOptions,
  type TransportFactory,
} from '@a2a-js/sdk/client';
import {
  A2AError,
  ContentTypeNotSupportedError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  isJsonRpcError,
  isRestError,
} from '@a2a-js/sdk/errors';
import { rejectionOf } from 'nestjs-a2a/testing';
import { startDemo, type RunningApp } from './support/demo-app.js';
import { PLATFORMS } from './support/platforms.js';

type Binding = 'JSONRPC' | 'HTTP+JSON';

interface Case {
  binding: Binding;
  path: string;
  factory: (fetchImpl: typeof fetch) => TransportFactory;
  /** The binding's code for each A2A error, from the spec digest §3.1 ([1.0.1] columns). */
  codes: Record<string, number>;
}

const CASES: Case[] = [
  {
    binding: 'JSONRPC',
    path: '/a2a/jsonrpc',
    factory: (fetchImpl) => new JsonRpcTransportFactory({ fetchImpl }),
    codes: { TaskNotFoundError: -32001, TaskNotCancelableError: -32002, PushNotificationNotSupportedError: -32003, UnsupportedOperationError: -32004, ContentTypeNotSupportedError: -32005 },
  },
  {
    binding: 'HTTP+JSON',
    path: '/a2a/rest',
    factory: (fetchImpl) => new RestTransportFactory({ fetchImpl }),
    codes: { TaskNotFoundError: 404, TaskNotCancelableError: 400, PushNotificationNotSupportedError: 400, UnsupportedOperationError: 400, ContentTypeNotSupportedError: 400 },
  },
];

const STREAM_TIMEOUT_MS = 10_000;
let seq = 0;
const nextId = (prefix = 'interop') => `${prefix}-${Date.now()}-${++seq}`;

function userMessage(text: string, extra: { messageId?: string; taskId?: string; contextId?: string } = {}): Record<string, unknown> {
  return { messageId: extra.messageId ?? nextId(), role: 'ROLE_USER', parts: [{ text }], ...(extra.taskId ? { taskId: extra.taskId } : {}), ...(extra.contextId ? { contextId: extra.contextId } : {}) };
}

/** Builds the SDK's request object from its ProtoJSON form, the way the wire carries it. */
function send(message: Record<string, unknown>, configuration?: Record<string, unknown>): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message, ...(configuration ? { configuration } : {}) });
}

function isTask(result: Message | Task): result is Task {
  return !('messageId' in result);
}

function asTask(result: Message | Task): Task {
  if (!isTask(result)) throw new Error(`expected a Task, got a Message: ${JSON.stringify(result)}`);
  return result;
}

function asMessage(result: Message | Task): Message {
  if (isTask(result)) throw new Error(`expected a Message, got a Task: ${JSON.stringify(result)}`);
  return result;
}

function texts(parts: Part[] | undefined): string[] {
  return (parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : `<${p.content?.$case ?? 'empty'}>`));
}

function artifactTexts(task: Task): string[] {
  return task.artifacts.flatMap((a) => texts(a.parts));
}

/** A compact, order-preserving description of a stream, e.g. `task:TASK_STATE_WORKING`, `artifact:echo: hi`. */
function describeEvent(event: StreamResponse): string {
  const p = event.payload;
  switch (p?.$case) {
    case 'task':
      return `task:${TaskState[p.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED]}`;
    case 'message':
      return `message:${texts(p.value.parts).join('')}`;
    case 'statusUpdate':
      return `status:${TaskState[p.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED]}`;
    case 'artifactUpdate':
      return `artifact:${texts(p.value.artifact?.parts).join('')}`;
    default:
      return 'empty';
  }
}

function taskIdOf(event: StreamResponse): string | undefined {
  const p = event.payload;
  if (p?.$case === 'task') return p.value.id;
  if (p?.$case === 'statusUpdate' || p?.$case === 'artifactUpdate') return p.value.taskId;
  return p?.value.taskId;
}

async function collect(stream: AsyncGenerator<StreamResponse, void, undefined>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Runs `call` and returns what it threw (sync throw or rejection); fails when it does not throw. */
/** Every binding on every platform. */
const PLATFORM_CASES = PLATFORMS.flatMap((platform) => CASES.map((c) => ({ ...c, platform })));

describe.each(PLATFORM_CASES)('@a2a-js/sdk client over $binding on $platform', ({ binding, path, factory, codes, platform }) => {
  let demo: RunningApp;
  let client: Client;
  const requests: string[] = [];

  /** The binding's wire code carried by an SDK error (JSON-RPC envelope code or HTTP status). */
  function wireCode(err: unknown): number | undefined {
    if (binding === 'JSONRPC') return isJsonRpcError(err) ? err.envelopeCode : undefined;
    return isRestError(err) ? err.statusCode : undefined;
  }

  /** Asserts the SDK surfaced `err` as the semantic error class `name`, with the binding's code. */
  function expectA2AError(err: unknown, cls: abstract new (...args: never[]) => A2AError, name: keyof typeof codes & string): void {
    expect(err).toBeInstanceOf(A2AError);
    expect((err as Error).name).toBe(name);
    expect(err).toBeInstanceOf(cls);
    expect(wireCode(err)).toBe(codes[name]);
  }

  const streamOptions = (): RequestOptions => ({ signal: AbortSignal.timeout(STREAM_TIMEOUT_MS) });

  /** Service parameters the Client would add; needed when calling the transport directly. */
  const v1: RequestOptions = { serviceParameters: { 'A2A-Version': '1.0' } };

  beforeAll(async () => {
    demo = await startDemo({}, { logger: false, platform });
    const recordingFetch: typeof fetch = (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      requests.push(`${init?.method ?? 'GET'} ${url}`);
      if (!url.startsWith('http://127.0.0.1:')) throw new Error(`refusing to leave loopback: ${url}`);
      return fetch(input, init);
    };
    const clientFactory = new ClientFactory({
      transports: [factory(recordingFetch)],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: recordingFetch }),
    });
    client = await clientFactory.createFromUrl(demo.url);
  });

  afterAll(async () => {
    await demo?.close();
  });

  describe('discovery', () => {
    it('resolves the card and selects the forced binding', async () => {
      expect(requests[0]).toBe(`GET ${demo.url}/.well-known/agent-card.json`);
      expect(client.transport.protocolName).toBe(binding);
      expect(client.protocolVersion).toBe('1.0');
      const card = await client.getAgentCard();
      expect(card.name).toBe('echo');
      expect(card.capabilities?.streaming).toBe(true);
      expect(card.capabilities?.pushNotifications).toBe(false);
      expect(card.skills.map((s) => s.id)).toEqual(['echo']);
      expect(card.supportedInterfaces).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ url: `${demo.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }),
          expect.objectContaining({ url: `${demo.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }),
        ]),
      );
    });

    it('talks only to the selected interface', async () => {
      await client.sendMessage(send(userMessage('ping')));
      const rpc = requests.filter((r) => !r.endsWith('/.well-known/agent-card.json'));
      expect(rpc.length).toBeGreaterThan(0);
      for (const r of rpc) expect(r).toContain(`${demo.url}${path}`);
    });
  });

  describe('SendMessage', () => {
    it('answers `hello` with a Message', async () => {
      const message = asMessage(await client.sendMessage(send(userMessage('hello'))));
      expect(message.role).toBe(Role.ROLE_AGENT);
      expect(texts(message.parts)).toEqual(['echo: hello']);
      expect(message.messageId).not.toBe('');
    });

    it('answers `/task hi` with a COMPLETED Task holding artifact `echo: hi`', async () => {
      const task = asTask(await client.sendMessage(send(userMessage('/task hi'))));
      expect(task.id).not.toBe('');
      expect(task.contextId).not.toBe('');
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(artifactTexts(task)).toEqual(['echo: hi']);
    });

    it('answers messageId `tck-artifact-text-…` with artifact `Generated text content`', async () => {
      const task = asTask(await client.sendMessage(send(userMessage('anything', { messageId: nextId('tck-artifact-text') }))));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(artifactTexts(task)).toEqual(['Generated text content']);
    });
  });

  describe('SendStreamingMessage', () => {
    it('streams `/task hi`: the task first, then status/artifact updates in order, ending COMPLETED', async () => {
      const events = await collect(client.sendMessageStream(send(userMessage('/task hi')), streamOptions()));
      expect(events[0].payload?.$case).toBe('task');
      expect(['task:TASK_STATE_SUBMITTED', 'task:TASK_STATE_WORKING']).toContain(describeEvent(events[0]));
      expect(events.slice(1).map(describeEvent)).toEqual(['status:TASK_STATE_WORKING', 'artifact:echo: hi', 'status:TASK_STATE_COMPLETED']);
      const taskId = taskIdOf(events[0]);
      expect(taskId).toBeTruthy();
      for (const event of events) expect(taskIdOf(event)).toBe(taskId);
    });

    it('streams a Message answer (`hello`) as exactly one message event', async () => {
      const events = await collect(client.sendMessageStream(send(userMessage('hello')), streamOptions()));
      expect(events.map(describeEvent)).toEqual(['message:echo: hello']);
    });
  });

  describe('GetTask and ListTasks', () => {
    it('gets a task, honouring historyLength', async () => {
      const sent = asTask(await client.sendMessage(send(userMessage('/task history'))));
      const full = await client.getTask({ tenant: '', id: sent.id });
      expect(full.id).toBe(sent.id);
      expect(full.contextId).toBe(sent.contextId);
      expect(full.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(artifactTexts(full)).toEqual(['echo: history']);
      expect(full.history.length).toBeGreaterThanOrEqual(1);
      expect(full.history.some((m) => m.role === Role.ROLE_USER && texts(m.parts).join('') === '/task history')).toBe(true);

      const one = await client.getTask({ tenant: '', id: sent.id, historyLength: 1 });
      expect(one.history.length).toBeLessThanOrEqual(1);
      expect(one.history).toEqual(full.history.slice(-1));

      const none = await client.getTask({ tenant: '', id: sent.id, historyLength: 0 });
      expect(none.history).toEqual([]);
      expect(none.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it('lists tasks filtered by contextId, page by page', async () => {
      const first = asTask(await client.sendMessage(send(userMessage('/task list one'))));
      const second = asTask(await client.sendMessage(send(userMessage('/task list two', { contextId: first.contextId }))));
      expect(second.contextId).toBe(first.contextId);
      expect(second.id).not.toBe(first.id);

      const all = await client.listTasks(ListTasksRequest.fromJSON({ contextId: first.contextId }));
      expect(all.tasks.map((t) => t.id).sort()).toEqual([first.id, second.id].sort());
      expect(all.totalSize).toBe(2);
      expect(all.nextPageToken).toBe('');
      for (const t of all.tasks) {
        expect(t.contextId).toBe(first.contextId);
        expect(t.artifacts).toEqual([]); // includeArtifacts absent: no artifacts
      }
      // most recently updated first
      expect(all.tasks[0].id).toBe(second.id);

      const withArtifacts = await client.listTasks(ListTasksRequest.fromJSON({ contextId: first.contextId, includeArtifacts: true }));
      expect(withArtifacts.tasks.map(artifactTexts)).toEqual([['echo: list two'], ['echo: list one']]);

      const page1 = await client.listTasks(ListTasksRequest.fromJSON({ contextId: first.contextId, pageSize: 1 }));
      expect(page1.tasks.map((t) => t.id)).toEqual([second.id]);
      expect(page1.pageSize).toBe(1);
      expect(page1.totalSize).toBe(2);
      expect(page1.nextPageToken).not.toBe('');
      const page2 = await client.listTasks(ListTasksRequest.fromJSON({ contextId: first.contextId, pageSize: 1, pageToken: page1.nextPageToken }));
      expect(page2.tasks.map((t) => t.id)).toEqual([first.id]);
      expect(page2.nextPageToken).toBe('');
    });
  });

  describe('live tasks', () => {
    it('cancels a running task: CANCELED, and GetTask shows CANCELED with no artifact', async () => {
      const started = asTask(await client.sendMessage(send(userMessage('/task slow 5000'), { returnImmediately: true })));
      expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(started.status?.state);

      const canceled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
      expect(canceled.id).toBe(started.id);
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);

      const fetched = await client.getTask({ tenant: '', id: started.id });
      expect(fetched.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect(fetched.artifacts).toEqual([]);
    });

    it('subscribes to a running task: the snapshot first, then updates to COMPLETED', async () => {
      const started = asTask(await client.sendMessage(send(userMessage('/task slow 800 sub'), { returnImmediately: true })));
      expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(started.status?.state);

      const events = await collect(client.resubscribeTask({ tenant: '', id: started.id }, streamOptions()));
      const first = events[0].payload;
      expect(first?.$case).toBe('task');
      if (first?.$case !== 'task') return;
      expect(first.value.id).toBe(started.id);
      expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(first.value.status?.state);
      for (const event of events) expect(taskIdOf(event)).toBe(started.id);
      const rest = events.slice(1).map(describeEvent);
      expect(rest).toEqual([...rest.filter((e) => e === 'status:TASK_STATE_WORKING'), 'artifact:echo: sub', 'status:TASK_STATE_COMPLETED']);
    });

    it('continues an INPUT_REQUIRED task (`/ask`) to COMPLETED with the answer', async () => {
      const asked = asTask(await client.sendMessage(send(userMessage('/ask'))));
      expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(texts(asked.status?.message?.parts).join('')).not.toBe('');

      const done = asTask(await client.sendMessage(send(userMessage('blue', { taskId: asked.id, contextId: asked.contextId }))));
      expect(done.id).toBe(asked.id);
      expect(done.contextId).toBe(asked.contextId);
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(artifactTexts(done)).toEqual(['echo: blue']);
    });
  });

  describe('typed errors', () => {
    let completed: Task;
    beforeAll(async () => {
      completed = asTask(await client.sendMessage(send(userMessage('/task done'))));
      expect(completed.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it('GetTask of an unknown id → TaskNotFoundError', async () => {
      const err = await rejectionOf(() => client.getTask({ tenant: '', id: 'no-such-task-00000000' }));
      expectA2AError(err, TaskNotFoundError, 'TaskNotFoundError');
      expect((err as A2AError).reason).toBe('TASK_NOT_FOUND');
    });

    it('CancelTask of a COMPLETED task → TaskNotCancelableError', async () => {
      const err = await rejectionOf(() => client.cancelTask({ tenant: '', id: completed.id, metadata: undefined }));
      expectA2AError(err, TaskNotCancelableError, 'TaskNotCancelableError');
    });

    it('a message to a COMPLETED task → UnsupportedOperationError', async () => {
      const err = await rejectionOf(() => client.sendMessage(send(userMessage('again', { taskId: completed.id }))));
      expectA2AError(err, UnsupportedOperationError, 'UnsupportedOperationError');
    });

    it('a streamed message to a COMPLETED task → UnsupportedOperationError (before any event)', async () => {
      const err = await rejectionOf(() => collect(client.sendMessageStream(send(userMessage('again', { taskId: completed.id })), streamOptions())));
      expectA2AError(err, UnsupportedOperationError, 'UnsupportedOperationError');
    });

    it('a message naming an unknown taskId → TaskNotFoundError, streamed or not', async () => {
      const msg = () => userMessage('hi', { taskId: 'no-such-task-00000001' });
      expectA2AError(await rejectionOf(() => client.sendMessage(send(msg()))), TaskNotFoundError, 'TaskNotFoundError');
      expectA2AError(await rejectionOf(() => collect(client.sendMessageStream(send(msg()), streamOptions()))), TaskNotFoundError, 'TaskNotFoundError');
    });

    it('SubscribeToTask on a COMPLETED task → UnsupportedOperationError', async () => {
      const err = await rejectionOf(() => collect(client.resubscribeTask({ tenant: '', id: completed.id }, streamOptions())));
      expectA2AError(err, UnsupportedOperationError, 'UnsupportedOperationError');
    });

    it('a part with mediaType image/png → ContentTypeNotSupportedError', async () => {
      const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).toString('base64');
      const message = { messageId: nextId(), role: 'ROLE_USER', parts: [{ raw: png, mediaType: 'image/png', filename: 'pixel.png' }] };
      const err = await rejectionOf(() => client.sendMessage(send(message)));
      expectA2AError(err, ContentTypeNotSupportedError, 'ContentTypeNotSupportedError');
    });

    it('push-config operations: the Client refuses them from the card (pushNotifications: false)', async () => {
      const config = TaskPushNotificationConfig.fromJSON({ taskId: completed.id, url: 'http://127.0.0.1:9/webhook' });
      for (const call of [
        () => client.createTaskPushNotificationConfig(config),
        () => client.getTaskPushNotificationConfig({ tenant: '', taskId: completed.id, id: 'cfg-1' }),
        () => client.listTaskPushNotificationConfig({ tenant: '', taskId: completed.id, pageSize: 0, pageToken: '' }),
      ]) {
        const err = await rejectionOf(call);
        expect(err).toBeInstanceOf(PushNotificationNotSupportedError);
      }
    });

    it('push-config operations: the server answers each with PushNotificationNotSupportedError', async () => {
      const config = TaskPushNotificationConfig.fromJSON({ taskId: completed.id, url: 'http://127.0.0.1:9/webhook' });
      const transport = client.transport;
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['create', () => transport.createTaskPushNotificationConfig(config, v1)],
        ['get', () => transport.getTaskPushNotificationConfig({ tenant: '', taskId: completed.id, id: 'cfg-1' }, v1)],
        ['list', () => transport.listTaskPushNotificationConfig({ tenant: '', taskId: completed.id, pageSize: 0, pageToken: '' }, v1)],
        ['delete', () => transport.deleteTaskPushNotificationConfig({ tenant: '', taskId: completed.id, id: 'cfg-1' }, v1)],
        // The Client itself does not pre-check delete against the card: this one goes through it.
        ['delete via Client', () => client.deleteTaskPushNotificationConfig({ tenant: '', taskId: completed.id, id: 'cfg-1' })],
      ];
      for (const [, call] of calls) {
        const err = await rejectionOf(call);
        expectA2AError(err, PushNotificationNotSupportedError, 'PushNotificationNotSupportedError');
      }
    });
  });
});
