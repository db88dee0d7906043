/**
 * Our client against an A2A 0.3 agent built on the official `@a2a-js/sdk` 0.3.14 (code we did not
 * write), over its JSON-RPC and its REST transport: every operation 0.3 has, its errors, and the
 * fall back to 0.3 when a card claims 1.0 for an agent that only speaks 0.3. The caller sees 1.0
 * types throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  A2ACircuitBreakers,
  A2AClient,
  InternalError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  type A2ABinding,
  type Task,
} from 'nestjs-a2a';
import { v03SdkServerForSuite, type V03SdkServer } from './support/a2a-js-v03-server.js';
import { describeEvent, taskOf } from './support/client-results.js';
import { userMessage } from './support/wire-client.js';

const LOCAL = { allowHttp: true, allowPrivate: true };

const server = v03SdkServerForSuite();

describe.each<[A2ABinding, string]>([
  ['JSONRPC', '/a2a/jsonrpc'],
  ['HTTP+JSON', '/a2a/rest'],
])('A2AClient on %s against an @a2a-js/sdk 0.3 server', (binding, path) => {
  let client: A2AClient;
  let sdk: V03SdkServer;
  beforeAll(() => {
    sdk = server();
    client = new A2AClient({ cardUrl: sdk.url, egress: LOCAL, circuitBreakers: new A2ACircuitBreakers(), preferredBinding: binding });
  });
  afterAll(() => client.close());

  /** The requests the SDK server received since `from`. */
  const since = (from: number) => sdk.requests.slice(from);

  it('reads the pure 0.3 card and selects the binding at 0.3', async () => {
    const card = await client.getAgentCard();
    expect(card.name).toBe('sdk-v03-echo');
    expect(card.supportedInterfaces).toEqual([
      { url: `${sdk.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: `${sdk.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true, extendedAgentCard: true });
    expect(await client.getInterface()).toMatchObject({ binding, protocolVersion: '0.3' });
  });

  it('SendMessage: a message, and a blocking task; sent as 0.3 (no A2A-Version, X-A2A-Extensions)', async () => {
    const from = sdk.requests.length;
    const reply = await client.sendMessage({ message: userMessage('hello') }, { extensions: ['urn:example:ext'] });
    expect(reply).toEqual({ message: { messageId: expect.any(String), role: 'ROLE_AGENT', contextId: expect.any(String), parts: [{ text: 'echo: hello' }] } });
    const [request] = since(from);
    expect(request.path.startsWith(path)).toBe(true);
    expect(request.headers['a2a-version']).toBeUndefined();
    expect(request.headers['x-a2a-extensions']).toBe('urn:example:ext');
    const task = taskOf(await client.sendMessage({ message: userMessage('/task hi') }));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts?.[0]).toEqual({ artifactId: 'a-1', name: 'echo', parts: [{ text: 'echo: hi' }] });
    expect(task.history?.[0].parts).toEqual([{ text: '/task hi' }]);
  });

  it('returnImmediately answers at once; GetTask and CancelTask, and their typed errors', async () => {
    const started = taskOf(await client.sendMessage({ message: userMessage('/task slow 3000 x'), configuration: { returnImmediately: true } }));
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(started.status.state);
    expect((await client.getTask({ id: started.id })).id).toBe(started.id);
    const canceled = await client.cancelTask({ id: started.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const done = taskOf(await client.sendMessage({ message: userMessage('/task done') }));
    await expect(client.cancelTask({ id: done.id })).rejects.toBeInstanceOf(TaskNotCancelableError);
    await expect(client.getTask({ id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('GetTask: historyLength as 1.0 means it (unset: all, 0: none), whatever 0.3 makes of it', async () => {
    const asked = taskOf(await client.sendMessage({ message: userMessage('/ask') }));
    const task = taskOf(await client.sendMessage({ message: userMessage('an answer', { taskId: asked.id, contextId: asked.contextId }) }));
    expect((await client.getTask({ id: task.id })).history?.map((m) => m.parts[0].text)).toEqual(['/ask', 'What next?', 'an answer']);
    expect((await client.getTask({ id: task.id, historyLength: 1 })).history?.map((m) => m.parts[0].text)).toEqual(['an answer']);
    expect((await client.getTask({ id: task.id, historyLength: 0 })).history).toBeUndefined();
  });

  it('SendStreamingMessage: the lifecycle in order, ending with the final status', async () => {
    const events = await client.sendStreamingMessage({ message: userMessage('/task streamed') }).toArray();
    expect(events.map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_WORKING', 'artifact:echo: streamed', 'status:TASK_STATE_COMPLETED']);
  });

  it('a stream that asks for input ends there; the answer on the same task completes it', async () => {
    const events = await client.sendStreamingMessage({ message: userMessage('/ask') }).toArray();
    expect(events.map(describeEvent).slice(-1)).toEqual(['status:TASK_STATE_INPUT_REQUIRED']);
    const asked = events[0] as { task: Task };
    const answered = taskOf(await client.sendMessage({ message: userMessage('Paris', { taskId: asked.task.id, contextId: asked.task.contextId }) }));
    expect(answered).toMatchObject({ id: asked.task.id, status: { state: 'TASK_STATE_COMPLETED' } });
  });

  it('SubscribeToTask (tasks/resubscribe): the snapshot, then the events to COMPLETED; unknown task', async () => {
    const task = taskOf(await client.sendMessage({ message: userMessage('/task slow 300 sub'), configuration: { returnImmediately: true } }));
    const events = await client.subscribeToTask({ id: task.id }).toArray();
    expect(describeEvent(events[0])).toMatch(/^task:/);
    expect(events.map(describeEvent).slice(-2)).toEqual(['artifact:echo: sub', 'status:TASK_STATE_COMPLETED']);
    // a2a-js 0.3's REST handler answers a stream that fails before its first event with a 500
    // (its sendResponse has no serialiser for the error body); the client says what it was told
    await expect(client.subscribeToTask({ id: 'no-such-task' }).toArray()).rejects.toBeInstanceOf(binding === 'JSONRPC' ? TaskNotFoundError : InternalError);
  });

  it('push configs: create (with and without an id), get, list, delete', async () => {
    const task = taskOf(await client.sendMessage({ message: userMessage('/task push') }));
    const url = 'https://hooks.example.com/a2a';
    const created = await client.createTaskPushNotificationConfig({ taskId: task.id, id: 'cfg-1', url, token: 'tok', authentication: { scheme: 'Bearer', credentials: 'secret' } });
    expect(created).toEqual({ taskId: task.id, id: 'cfg-1', url, token: 'tok', authentication: { scheme: 'Bearer', credentials: 'secret' } });
    // 0.3 servers give a config without an id the task's
    expect(await client.createTaskPushNotificationConfig({ taskId: task.id, url: `${url}/2` })).toMatchObject({ taskId: task.id, id: task.id, url: `${url}/2` });
    expect(await client.getTaskPushNotificationConfig({ taskId: task.id, id: 'cfg-1' })).toMatchObject({ id: 'cfg-1', url });
    const list = await client.listTaskPushNotificationConfigs({ taskId: task.id });
    expect(list.configs.map((c) => c.id).sort()).toEqual(['cfg-1', task.id].sort());
    await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: 'cfg-1' });
    expect((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs.map((c) => c.id)).toEqual([task.id]);
  });

  it('GetExtendedAgentCard (agent/getAuthenticatedExtendedCard, GET /v1/card): the extended 0.3 card as 1.0', async () => {
    const card = await client.getExtendedAgentCard();
    expect(card.skills.map((s) => s.id)).toEqual(['echo', 'secret']);
    expect(card.supportedInterfaces[0].protocolVersion).toBe('0.3');
  });

  it('what 0.3 cannot do fails clearly, before anything is sent', async () => {
    const from = sdk.requests.length;
    await expect(client.listTasks()).rejects.toThrow(UnsupportedOperationError);
    await expect(client.getTask({ id: 't', tenant: 'acme' })).rejects.toThrow(/0\.3, which has no tenants/);
    expect(since(from)).toEqual([]);
  });
});

describe('a card that claims 1.0 for an agent that speaks 0.3: the client falls back, and stays', () => {
  const liarServer = v03SdkServerForSuite((base, card) => {
    const { url: _url, preferredTransport: _p, additionalInterfaces: _a, protocolVersion: _v, supportsAuthenticatedExtendedCard: _s, ...rest } = card;
    return {
      ...rest,
      supportedInterfaces: [
        { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
    };
  });

  it.each<[A2ABinding, string, string]>([
    ['JSONRPC', 'SendMessage', 'message/send'],
    ['HTTP+JSON', '/a2a/rest/message:send', '/a2a/rest/v1/message:send'],
  ])('%s: the 1.0 call is refused (method not found / no such route), sent again at 0.3, and 0.3 from then on', async (binding, first, second) => {
    const liar = liarServer();
    const client = new A2AClient({ cardUrl: liar.url, egress: LOCAL, preferredBinding: binding, circuitBreakers: new A2ACircuitBreakers() });
    expect((await client.getInterface()).protocolVersion).toBe('1.0');
    const from = liar.requests.length;
    const reply = await client.sendMessage({ message: userMessage('hello') });
    expect(reply).toMatchObject({ message: { parts: [{ text: 'echo: hello' }] } });
    const seen = liar.requests.slice(from).map((r) => (binding === 'JSONRPC' ? (r.body as { method: string }).method : r.path));
    expect(seen).toEqual([first, second]);
    expect(await client.getInterface()).toMatchObject({ binding, protocolVersion: '0.3' });
    const events = await client.sendStreamingMessage({ message: userMessage('/task again') }).toArray();
    expect(events.map(describeEvent).slice(-1)).toEqual(['status:TASK_STATE_COMPLETED']);
    expect(liar.requests.length).toBe(from + 3);
    await client.close();
  });
});
