/**
 * Every operation on both bindings, against the demo app over real HTTP on Express and on Fastify:
 * one table, two bindings, two platforms, the same behaviour (spec §5.1).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDemo, type RunningApp } from './support/demo-app.js';
import { PLATFORMS } from './support/platforms.js';
import {
  jsonRpcClient,
  restClient,
  sleep,
  userMessage,
  waitForTask,
  type BindingClient,
  type Json,
  type WireError,
} from './support/wire-client.js';

/** The demo of the block running now: one per platform and binding. */
let demo: RunningApp;
/** The demo of the block serving 1.0 only (A2A_V03=0): a request without A2A-Version is refused there. */
let demoV1Only: RunningApp;

/** The error taxonomy (1.0.1): JSON-RPC code, HTTP status, canonical status name. */
const ERRORS = {
  TASK_NOT_FOUND: { code: -32001, http: 404, status: 'NOT_FOUND' },
  TASK_NOT_CANCELABLE: { code: -32002, http: 400, status: 'FAILED_PRECONDITION' },
  PUSH_NOTIFICATION_NOT_SUPPORTED: { code: -32003, http: 400, status: 'FAILED_PRECONDITION' },
  UNSUPPORTED_OPERATION: { code: -32004, http: 400, status: 'FAILED_PRECONDITION' },
  CONTENT_TYPE_NOT_SUPPORTED: { code: -32005, http: 400, status: 'INVALID_ARGUMENT' },
  VERSION_NOT_SUPPORTED: { code: -32009, http: 400, status: 'FAILED_PRECONDITION' },
  INVALID_PARAMS: { code: -32602, http: 400, status: 'INVALID_ARGUMENT' },
} as const;

type ErrorName = keyof typeof ERRORS;

const bindings: Array<[string, () => BindingClient]> = [
  ['JSON-RPC', () => jsonRpcClient(`${demo.url}/a2a/jsonrpc`)],
  ['HTTP+JSON', () => restClient(`${demo.url}/a2a/rest`)],
];
const clients = PLATFORMS.flatMap((platform) => bindings.map(([name, makeClient]) => [name, platform, makeClient] as const));

function expectError(client: BindingClient, response: { status: number; error?: WireError }, name: ErrorName): void {
  const expected = ERRORS[name];
  expect(response.error).toBeDefined();
  if (client.name === 'JSONRPC') {
    expect(response.error!.code).toBe(expected.code);
    expect(response.status).toBe(200);
  } else {
    expect(response.status).toBe(expected.http);
    expect(response.error!.code).toBe(expected.status);
  }
  if (name !== 'INVALID_PARAMS') {
    expect(response.error!.reason).toBe(name);
    expect(response.error!.details).toContainEqual(expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', domain: 'a2a-protocol.org' }));
  }
}

describe.each(clients)('%s binding on %s', (_name, platform, makeClient) => {
  let client: BindingClient;
  beforeAll(async () => {
    demo = await startDemo({}, { logger: false, platform });
    demoV1Only = await startDemo({ A2A_V03: '0' }, { logger: false, platform });
    client = makeClient();
  });
  afterAll(async () => {
    await demo.close();
    await demoV1Only.close();
  });

  const send = (text: string, fields: Json = {}, configuration?: Json) =>
    client.call('SendMessage', { message: userMessage(text, fields), ...(configuration ? { configuration } : {}) });

  describe('SendMessage', () => {
    it('answers with a Message, carrying a server-generated contextId', async () => {
      const { result } = await send('hello');
      expect(result.message).toMatchObject({ role: 'ROLE_AGENT', parts: [{ text: 'echo: hello' }] });
      expect(typeof result.message.contextId).toBe('string');
      expect(result.message.taskId).toBeUndefined();
      expect(result.task).toBeUndefined();
    });

    it('blocks until the task is terminal and returns it with every artifact', async () => {
      const { result } = await send('/task hi');
      const task = result.task;
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.status.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(task.artifacts).toEqual([expect.objectContaining({ parts: [{ text: 'echo: hi' }] })]);
      expect(task.history[0]).toMatchObject({ role: 'ROLE_USER', parts: [{ text: '/task hi' }], taskId: task.id, contextId: task.contextId });
    });

    it('keeps a client contextId and generates unique task ids', async () => {
      const a = (await send('/task a', { contextId: 'ctx-keep' })).result.task;
      const b = (await send('/task b', { contextId: 'ctx-keep' })).result.task;
      expect(a.contextId).toBe('ctx-keep');
      expect(b.contextId).toBe('ctx-keep');
      expect(a.id).not.toBe(b.id);
    });

    it('returns right after creation with returnImmediately, then the task completes', async () => {
      const { result } = await send('/task slow 300 later', {}, { returnImmediately: true });
      expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(result.task.status.state);
      const done = await waitForTask(client, result.task.id, (t) => t.status.state === 'TASK_STATE_COMPLETED');
      expect(done.artifacts[0].parts).toEqual([{ text: 'echo: later' }]);
    });

    it('returns at an interrupted state: INPUT_REQUIRED and AUTH_REQUIRED with its explanation', async () => {
      const ask = (await send('/ask')).result.task;
      expect(ask.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const auth = (await send('x', { messageId: `tck-auth-required-${Date.now()}` })).result.task;
      expect(auth.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
      expect(auth.status.message.parts[0].text).toMatch(/Authorization is required/);
    });

    it('honours historyLength (0 omits history)', async () => {
      const none = (await send('/task h', {}, { historyLength: 0 })).result.task;
      expect(none.history).toBeUndefined();
      const one = (await send('/task h', {}, { historyLength: 1 })).result.task;
      expect(one.history).toHaveLength(1);
    });

    it('continues an INPUT_REQUIRED task (multi-turn), inferring contextId from taskId', async () => {
      const asked = (await send('/ask')).result.task;
      const answered = (await send('forty-two', { taskId: asked.id })).result.task;
      expect(answered.id).toBe(asked.id);
      expect(answered.contextId).toBe(asked.contextId);
      expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
      expect(answered.artifacts[0].parts).toEqual([{ text: 'echo: forty-two' }]);
      expect(answered.history.map((m: Json) => m.role)).toEqual(['ROLE_USER', 'ROLE_AGENT', 'ROLE_USER']);
    });

    it('completes a tck-input-required task on the next message; tck follow-ups follow their own rule', async () => {
      const t = (await send('x', { messageId: `tck-input-required-${Date.now()}` })).result.task;
      expect(t.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const again = (await send('TCK history message 1', { taskId: t.id, messageId: `tck-input-required-${Date.now()}` })).result.task;
      expect(again.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const next = (await send('more', { taskId: t.id, contextId: t.contextId })).result.task;
      expect(next.status.state).toBe('TASK_STATE_COMPLETED');
      const texts = next.history.filter((m: Json) => m.role === 'ROLE_USER').map((m: Json) => m.parts[0].text);
      expect(texts).toEqual(['x', 'TCK history message 1', 'more']);
    });

    it('continues an AUTH_REQUIRED task on the next message', async () => {
      const t = (await send('x', { messageId: `tck-auth-required-${Date.now()}` })).result.task;
      expect(t.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
      const next = (await send('here are my credentials', { taskId: t.id })).result.task;
      expect(next.id).toBe(t.id);
      expect(next.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('refuses a contextId that contradicts the task', async () => {
      const asked = (await send('/ask')).result.task;
      const res = await send('x', { taskId: asked.id, contextId: 'another' });
      expectError(client, res, 'INVALID_PARAMS');
      expect(JSON.stringify(res.error!.details)).toContain('message.contextId');
    });

    it('refuses an unknown taskId (TaskNotFound) and a terminal task (UnsupportedOperation)', async () => {
      expectError(client, await send('x', { taskId: 'no-such-task' }), 'TASK_NOT_FOUND');
      const done = (await send('/task done')).result.task;
      expectError(client, await send('again', { taskId: done.id }), 'UNSUPPORTED_OPERATION');
    });

    it('refuses a part whose media type the agent does not take', async () => {
      const res = await client.call('SendMessage', {
        message: { messageId: 'img', role: 'ROLE_USER', parts: [{ raw: 'iVBORw0KGgo=', mediaType: 'image/png' }] },
      });
      expectError(client, res, 'CONTENT_TYPE_NOT_SUPPORTED');
    });

    it('accepts declared media types, parameters included', async () => {
      const res = await client.call('SendMessage', {
        message: { messageId: 'j', role: 'ROLE_USER', parts: [{ data: { a: 1 }, mediaType: 'application/json; charset=utf-8' }] },
      });
      expect(res.result.message).toBeDefined();
    });

    it('names every invalid field (BadRequest field violations)', async () => {
      const res = await client.call('SendMessage', { message: { messageId: '', role: 'ROLE_SOMETHING', parts: [] }, configuration: { historyLength: -1 } });
      expectError(client, res, 'INVALID_PARAMS');
      const fields = res.error!.details.find((d: Json) => d.fieldViolations)?.fieldViolations.map((v: Json) => v.field);
      expect(fields).toEqual(expect.arrayContaining(['message.messageId', 'message.role', 'message.parts', 'configuration.historyLength']));
    });

    it('refuses wrong JSON types with InvalidParams, never a 500', async () => {
      for (const params of [{ message: 'text' }, { message: { messageId: 1, role: 'ROLE_USER', parts: [{ text: 1 }] } }, { message: null }]) {
        expectError(client, await client.call('SendMessage', params), 'INVALID_PARAMS');
      }
    });

    it('fails a task whose executor throws with a safe message and nothing of the error', async () => {
      const res = await send('/throw');
      expect(res.result.task.status.state).toBe('TASK_STATE_FAILED');
      expect(res.result.task.status.message.parts[0].text).toBe('The agent encountered an internal error.');
      expect(JSON.stringify(res.raw)).not.toMatch(/SECRET-|at .*\.ts|Error:/);
    });

    it('refuses an inline push-notification config (push is off)', async () => {
      const res = await send('/task x', {}, { taskPushNotificationConfig: { url: 'https://example.com/hook' } });
      expectError(client, res, 'PUSH_NOTIFICATION_NOT_SUPPORTED');
    });

    it('runs the demo tck rules', async () => {
      const by = async (prefix: string) => (await send('x', { messageId: `${prefix}-${Math.random()}` })).result;
      expect((await by('tck-complete-task')).task.status.message.parts[0].text).toBe('Hello from TCK');
      expect((await by('tck-reject-task')).task.status.state).toBe('TASK_STATE_REJECTED');
      expect((await by('tck-message-response')).message.parts[0].text).toBe('Direct message response');
      expect((await by('tck-artifact-text')).task.artifacts[0].parts).toEqual([{ text: 'Generated text content' }]);
      expect((await by('tck-artifact-file')).task.artifacts[0].parts).toEqual([
        { raw: Buffer.from('Generated text content').toString('base64'), filename: 'output.txt', mediaType: 'text/plain' },
      ]);
      expect((await by('tck-artifact-file-url')).task.artifacts[0].parts).toEqual([
        { url: 'https://example.com/output.txt', filename: 'output.txt', mediaType: 'text/plain' },
      ]);
      expect((await by('tck-artifact-data')).task.artifacts[0].parts).toEqual([{ data: { key: 'value', count: 42 } }]);
      expect((await by('tck-anything')).task.status.state).toBe('TASK_STATE_COMPLETED');
      expect((await send('/fail')).result.task.status.state).toBe('TASK_STATE_FAILED');
    });
  });

  describe('SendStreamingMessage', () => {
    it('streams a task: the task first, updates in order with sequence ids, closed at COMPLETED', async () => {
      const stream = await client.stream('SendStreamingMessage', { message: userMessage('x', { messageId: `tck-stream-artifact-chunked-${Date.now()}` }) });
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const kinds = stream.events.map((e) => Object.keys(e.data)[0]);
      expect(kinds).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
      expect(stream.events.map((e) => Number(e.id))).toEqual([1, 2, 3, 4, 5]);
      const [first, working, chunk1, chunk2, done] = stream.events.map((e) => e.data);
      expect(first.task.status.state).toBe('TASK_STATE_SUBMITTED');
      expect(working.statusUpdate.status.state).toBe('TASK_STATE_WORKING');
      expect(chunk1.artifactUpdate).toMatchObject({ artifact: { parts: [{ text: 'chunk-1 ' }] } });
      expect(chunk1.artifactUpdate.append).toBeUndefined();
      expect(chunk2.artifactUpdate).toMatchObject({ append: true, lastChunk: true, artifact: { artifactId: chunk1.artifactUpdate.artifact.artifactId, parts: [{ text: 'chunk-2' }] } });
      expect(done.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
      const task = (await client.call('GetTask', { id: first.task.id })).result;
      expect(task.artifacts[0].parts).toEqual([{ text: 'chunk-1 ' }, { text: 'chunk-2' }]);
    });

    it('streams a Message answer as exactly one event', async () => {
      const stream = await client.stream('SendStreamingMessage', { message: userMessage('hello') });
      expect(stream.events).toHaveLength(1);
      expect(stream.events[0].data.message.parts).toEqual([{ text: 'echo: hello' }]);
    });

    it('closes the stream at INPUT_REQUIRED', async () => {
      const stream = await client.stream('SendStreamingMessage', { message: userMessage('/ask') });
      expect(stream.events.map((e) => Object.keys(e.data)[0])).toEqual(['task', 'statusUpdate']);
      expect(stream.events[1].data.statusUpdate.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    });

    it('answers an error before the stream starts as an ordinary error', async () => {
      const stream = await client.stream('SendStreamingMessage', { message: userMessage('x', { taskId: 'nope' }) });
      expect(stream.events).toEqual([]);
      expect(stream.error!.reason).toBe('TASK_NOT_FOUND');
    });

    it('streams the demo tck-stream rules', async () => {
      const texts = async (prefix: string) =>
        (await client.stream('SendStreamingMessage', { message: userMessage('x', { messageId: `${prefix}-${Math.random()}` }) })).events.map((e) =>
          Object.keys(e.data)[0],
        );
      expect(await texts('tck-stream-002')).toEqual(['task', 'statusUpdate']);
      expect(await texts('tck-stream-001')).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    });
  });

  describe('GetTask and ListTasks', () => {
    it('gets a task with historyLength, and refuses an unknown one', async () => {
      const task = (await send('/task g')).result.task;
      const got = (await client.call('GetTask', { id: task.id, historyLength: 0 })).result;
      expect(got.id).toBe(task.id);
      expect(got.history).toBeUndefined();
      expectError(client, await client.call('GetTask', { id: 'missing' }), 'TASK_NOT_FOUND');
      expectError(client, await client.call('GetTask', { id: task.id, historyLength: -5 }), 'INVALID_PARAMS');
    });

    it('lists by context, newest first, paginated with a cursor, artifacts only on request', async () => {
      const contextId = `ctx-list-${Math.random()}`;
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await send(`/task ${i}`, { contextId })).result.task.id);
        // timestamps are in milliseconds, and tasks of the same one are ordered by id: one per millisecond
        await sleep(2);
      }
      const page1 = (await client.call('ListTasks', { contextId, pageSize: 2 })).result;
      expect(page1.totalSize).toBe(5);
      expect(page1.pageSize).toBe(2);
      expect(page1.tasks.map((t: Json) => t.id)).toEqual([ids[4], ids[3]]);
      expect(page1.tasks[0]).not.toHaveProperty('artifacts');
      const page2 = (await client.call('ListTasks', { contextId, pageSize: 2, pageToken: page1.nextPageToken })).result;
      const page3 = (await client.call('ListTasks', { contextId, pageSize: 2, pageToken: page2.nextPageToken })).result;
      expect([...page2.tasks, ...page3.tasks].map((t: Json) => t.id)).toEqual([ids[2], ids[1], ids[0]]);
      expect(page3.nextPageToken).toBe('');
      const withArtifacts = (await client.call('ListTasks', { contextId, pageSize: 1, includeArtifacts: true })).result;
      expect(withArtifacts.tasks[0].artifacts[0].parts).toEqual([{ text: 'echo: 4' }]);
    });

    it('filters by status and statusTimestampAfter; an empty result still has every field', async () => {
      const contextId = `ctx-filter-${Math.random()}`;
      await send('/task done', { contextId });
      const asked = (await send('/ask', { contextId })).result.task;
      const waiting = (await client.call('ListTasks', { contextId, status: 'TASK_STATE_INPUT_REQUIRED' })).result;
      expect(waiting.tasks.map((t: Json) => t.id)).toEqual([asked.id]);
      const after = (await client.call('ListTasks', { contextId, statusTimestampAfter: asked.status.timestamp })).result;
      expect(after.tasks.map((t: Json) => t.id)).toContain(asked.id);
      const none = (await client.call('ListTasks', { contextId: 'ctx-none' })).result;
      expect(none).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
    });

    it('refuses out-of-range page sizes and foreign page tokens', async () => {
      expectError(client, await client.call('ListTasks', { pageSize: 0 }), 'INVALID_PARAMS');
      expectError(client, await client.call('ListTasks', { pageSize: 101 }), 'INVALID_PARAMS');
      const res = await client.call('ListTasks', { pageToken: 'not-ours' });
      expectError(client, res, 'INVALID_PARAMS');
      expect(JSON.stringify(res.error!.details)).toContain('pageToken');
    });
  });

  describe('CancelTask', () => {
    it('cancels a running task through its AbortSignal: CANCELED, no artifact; a repeat answers the same', async () => {
      const started = (await send('/task slow 10000 never', {}, { returnImmediately: true })).result.task;
      // the executor would run for 10 s: CANCELED without an artifact means the cancel did not wait for it
      const canceled = await client.call('CancelTask', { id: started.id });
      expect(canceled.result.status.state).toBe('TASK_STATE_CANCELED');
      expect(canceled.result.artifacts).toBeUndefined();
      // whatever the executor still does is dropped
      await sleep(100);
      const after = (await client.call('GetTask', { id: started.id })).result;
      expect(after.status.state).toBe('TASK_STATE_CANCELED');
      expect(after.artifacts).toBeUndefined();
      expect((await client.call('CancelTask', { id: started.id })).result.status.state).toBe('TASK_STATE_CANCELED');
    });

    it('cancels an idle INPUT_REQUIRED task', async () => {
      const asked = (await send('/ask')).result.task;
      expect((await client.call('CancelTask', { id: asked.id })).result.status.state).toBe('TASK_STATE_CANCELED');
    });

    it('refuses a finished task (TaskNotCancelable) and an unknown one (TaskNotFound)', async () => {
      const done = (await send('/task d')).result.task;
      expectError(client, await client.call('CancelTask', { id: done.id }), 'TASK_NOT_CANCELABLE');
      expectError(client, await client.call('CancelTask', { id: 'missing' }), 'TASK_NOT_FOUND');
    });
  });

  describe('SubscribeToTask', () => {
    it('sends the Task snapshot first, then every update to COMPLETED', async () => {
      const started = (await send('/task slow 400 sub', {}, { returnImmediately: true })).result.task;
      const stream = await client.stream('SubscribeToTask', { id: started.id });
      expect(stream.status).toBe(200);
      expect(Object.keys(stream.events[0].data)).toEqual(['task']);
      expect(stream.events[0].data.task.id).toBe(started.id);
      const last = stream.events[stream.events.length - 1].data;
      expect(last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
      const ids = stream.events.map((e) => Number(e.id));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    });

    it('is served over GET as well as POST on HTTP+JSON', async () => {
      if (client.name !== 'HTTP+JSON') return;
      const started = (await send('/task slow 300 get', {}, { returnImmediately: true })).result.task;
      const stream = await client.stream('SubscribeToTask', { id: started.id, viaGet: true });
      expect(stream.status).toBe(200);
      expect(stream.events[0].data.task.id).toBe(started.id);
      expect(stream.events[stream.events.length - 1].data.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('gives two concurrent subscribers the same events in the same order', async () => {
      const started = (await send('/task slow 400 both', {}, { returnImmediately: true })).result.task;
      const [a, b] = await Promise.all([client.stream('SubscribeToTask', { id: started.id }), client.stream('SubscribeToTask', { id: started.id })]);
      const tail = (s: typeof a) => s.events.slice(1).map((e) => `${e.id}:${JSON.stringify(e.data)}`);
      expect(tail(a).length).toBeGreaterThan(0);
      expect(tail(a)).toEqual(tail(b));
    });

    it('replays exactly the events after Last-Event-ID, without a snapshot', async () => {
      const stream = await client.stream('SendStreamingMessage', { message: userMessage('/task replay') });
      const taskId = stream.events[0].data.task.id;
      const replay = await client.stream('SubscribeToTask', { id: taskId }, { headers: { 'Last-Event-ID': '2' } });
      expect(replay.events.map((e) => e.id)).toEqual(stream.events.slice(2).map((e) => e.id));
      expect(replay.events.map((e) => e.data)).toEqual(stream.events.slice(2).map((e) => e.data));
    });

    it('refuses a finished task (UnsupportedOperation) and an unknown one (TaskNotFound)', async () => {
      const done = (await send('/task s')).result.task;
      const terminal = await client.stream('SubscribeToTask', { id: done.id });
      expect(terminal.events).toEqual([]);
      expect(terminal.error!.reason).toBe('UNSUPPORTED_OPERATION');
      const unknown = await client.stream('SubscribeToTask', { id: 'missing' });
      expect(unknown.error!.reason).toBe('TASK_NOT_FOUND');
    });
  });

  describe('capabilities this agent does not have', () => {
    it.each([
      ['CreateTaskPushNotificationConfig', { taskId: 't', url: 'https://example.com/hook' }],
      ['GetTaskPushNotificationConfig', { taskId: 't', id: 'c' }],
      ['ListTaskPushNotificationConfigs', { taskId: 't' }],
      ['DeleteTaskPushNotificationConfig', { taskId: 't', id: 'c' }],
    ])('%s answers PushNotificationNotSupported', async (operation, params) => {
      expectError(client, await client.call(operation, params), 'PUSH_NOTIFICATION_NOT_SUPPORTED');
    });

    it('GetExtendedAgentCard answers UnsupportedOperation', async () => {
      expectError(client, await client.call('GetExtendedAgentCard', {}), 'UNSUPPORTED_OPERATION');
    });
  });

  describe('service parameters and tenants', () => {
    it('refuses a missing A2A-Version (0.3) and an unknown one; ignores the patch; takes the query form', async () => {
      const params = { message: userMessage('v') };
      const v1Only = client.name === 'JSONRPC' ? jsonRpcClient(`${demoV1Only.url}/a2a/jsonrpc`) : restClient(`${demoV1Only.url}/a2a/rest`);
      expectError(v1Only, await v1Only.call('SendMessage', params, { headers: { 'A2A-Version': '' } }), 'VERSION_NOT_SUPPORTED');
      expectError(v1Only, await v1Only.call('SendMessage', params, { headers: { 'A2A-Version': '0.3' } }), 'VERSION_NOT_SUPPORTED');
      // served at 0.3 (the demo's default), a 1.0 method without the header is no 0.3 method
      const asV03 = await client.call('SendMessage', params, { headers: { 'A2A-Version': '' } });
      expect(client.name === 'JSONRPC' ? [asV03.status, asV03.raw.error.code] : [asV03.status, asV03.raw.code]).toEqual(client.name === 'JSONRPC' ? [200, -32601] : [404, -32601]);
      expectError(client, await client.call('SendMessage', params, { headers: { 'A2A-Version': '2.0' } }), 'VERSION_NOT_SUPPORTED');
      const patched = await client.call('SendMessage', params, { headers: { 'A2A-Version': '1.0.7' } });
      expect(patched.result.message).toBeDefined();
      expect(patched.headers.get('a2a-version')).toBe('1.0');
      const base = client.name === 'JSONRPC' ? `${demo.url}/a2a/jsonrpc` : `${demo.url}/a2a/rest`;
      const res = await fetch(client.name === 'JSONRPC' ? `${base}?A2A-Version=1.0` : `${base}/message:send?A2A-Version=1.0`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(client.name === 'JSONRPC' ? { jsonrpc: '2.0', id: 1, method: 'SendMessage', params } : params),
      });
      const body: Json = await res.json();
      expect(client.name === 'JSONRPC' ? body.result.message : body.message).toBeDefined();
    });

    it('keeps tasks of one tenant out of another', async () => {
      const task = (await client.call('SendMessage', { tenant: 'acme', message: userMessage('/task t') })).result.task;
      expect((await client.call('GetTask', { tenant: 'acme', id: task.id })).result.id).toBe(task.id);
      expectError(client, await client.call('GetTask', { tenant: 'other', id: task.id }), 'TASK_NOT_FOUND');
      expectError(client, await client.call('GetTask', { id: task.id }), 'TASK_NOT_FOUND');
      const listed = (await client.call('ListTasks', { tenant: 'acme' })).result.tasks.map((t: Json) => t.id);
      expect(listed).toContain(task.id);
    });
  });
});
