/**
 * Agent authoring as a stranger sees it on the wire, over both bindings: conversations (contextId
 * minted, echoed and bounded; `/chat` across turns, bindings, callers and two instances on Redis),
 * the demo's `/research` whose stream, push notifications and history show `step i/3` and nothing
 * about its tools (read as raw bytes), and executor failures that say what happened.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { A2AAgent, A2AModule, ToolCallEvents, type AgentExecutor, type AgentTool, type TaskContext, type ToolCallEvent } from 'nestjs-a2a';
import { startWebhookReceiver, waitUntil, type WebhookReceiver } from 'nestjs-a2a/testing';
import { REDIS_URL, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { startApp } from './support/custom-app.js';
import { startDemo, type RunningApp } from './support/demo-app.js';
import { freePort } from './support/ports.js';
import { jsonRpcClient, restClient, userMessage, V1, type BindingClient, type Json } from './support/wire-client.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
type ClientOf = (base: string, headers?: Record<string, string>) => BindingClient;
const BINDINGS: Array<[string, ClientOf]> = [
  ['JSON-RPC', (base, headers) => withHeaders(jsonRpcClient(`${base}/a2a/jsonrpc`), headers)],
  ['HTTP+JSON', (base, headers) => withHeaders(restClient(`${base}/a2a/rest`), headers)],
];

/** A client that sends `headers` (an API key) on every call. */
function withHeaders(client: BindingClient, headers: Record<string, string> = {}): BindingClient {
  return {
    name: client.name,
    call: (operation, params, options = {}) => client.call(operation, params, { ...options, headers: { ...headers, ...options.headers } }),
    stream: (operation, params, options = {}) => client.stream(operation, params, { ...options, headers: { ...headers, ...options.headers } }),
  };
}

/** The contextId an event carries, whatever its kind. */
function contextOf(event: Json): string | undefined {
  return (event.task ?? event.statusUpdate ?? event.artifactUpdate ?? event.message)?.contextId;
}

/** `/chat <text>` in `contextId` (none: a new conversation); answers the task's artifact text and its contextId. */
async function chat(client: BindingClient, text: string, contextId?: string): Promise<{ said: string; contextId: string }> {
  const { result, error } = await client.call('SendMessage', { message: userMessage(`/chat ${text}`, contextId === undefined ? {} : { contextId }) });
  expect(error).toBeUndefined();
  expect(result.task.status.state).toBe('TASK_STATE_COMPLETED');
  return { said: result.task.artifacts[0].parts[0].text, contextId: result.task.contextId };
}

describe('conversations on the demo (callers alice and bob)', () => {
  let demo: RunningApp;
  const alice = { 'X-API-Key': 'key-a' };
  const bob = { 'X-API-Key': 'key-b' };
  beforeAll(async () => {
    demo = await startDemo({ DEMO_API_KEYS: 'alice:key-a,bob:key-b' });
  });
  afterAll(() => demo.close());

  describe.each(BINDINGS)('over %s', (_binding, clientOf) => {
    it('a message without a contextId, or with "", gets one minted, on the task, its history and every stream frame', async () => {
      const client = clientOf(demo.url, alice);
      const sent = (await client.call('SendMessage', { message: userMessage('/task hi') })).result.task;
      expect(sent.contextId).toMatch(UUID);
      expect(sent.history.map((m: Json) => m.contextId)).toEqual(sent.history.map(() => sent.contextId));
      const { events } = await client.stream('SendStreamingMessage', { message: userMessage('/task streamed', { contextId: '' }) });
      const contexts = events.map(({ data }) => contextOf(data));
      expect(contexts[0]).toMatch(UUID);
      expect(contexts[0]).not.toBe(sent.contextId);
      expect(contexts).toEqual(events.map(() => contexts[0]));
      const replied = (await client.call('SendMessage', { message: userMessage('plain', { contextId: '' }) })).result.message;
      expect(replied.contextId).toMatch(UUID);
    });

    it('a contextId longer than 128 characters is InvalidParams naming the field and the bound, never the value', async () => {
      const client = clientOf(demo.url, alice);
      const res = await client.call('SendMessage', { message: userMessage('/task hi', { contextId: 'Q'.repeat(129) }) });
      expect(res.status).toBe(client.name === 'JSONRPC' ? 200 : 400);
      expect(res.error?.code).toBe(client.name === 'JSONRPC' ? -32602 : 'INVALID_ARGUMENT');
      expect(res.error?.details).toContainEqual(
        expect.objectContaining({ fieldViolations: [{ field: 'message.contextId', description: 'must be a string of at most 128 characters (limits.maxContextIdLength)' }] }),
      );
      expect(JSON.stringify(res.raw)).not.toContain('QQQQ');
      const exactly = await client.call('SendMessage', { message: userMessage('/task hi', { contextId: 'Q'.repeat(128) }) });
      expect(exactly.result.task.contextId).toBe('Q'.repeat(128));
    });

    it.each([
      ['a number', 987654321],
      ['an object', { nested: 'VALUE-987654321' }],
    ])('a contextId that is %s is InvalidParams naming the field and the bound, never the value', async (_label, contextId) => {
      const res = await clientOf(demo.url, alice).call('SendMessage', { message: userMessage('/task hi', { contextId }) });
      expect(res.error?.details).toContainEqual(
        expect.objectContaining({ fieldViolations: [{ field: 'message.contextId', description: 'must be a string of at most 128 characters (limits.maxContextIdLength)' }] }),
      );
      expect(JSON.stringify(res.raw)).not.toContain('987654321');
    });
  });

  it('/chat: three turns of one conversation over both bindings, each seeing the earlier ones', async () => {
    const [rpc, rest] = BINDINGS.map(([, clientOf]) => clientOf(demo.url, alice));
    const one = await chat(rpc, 'the opening words');
    expect(one.said).toBe('turn 1; first: the opening words');
    const two = await chat(rest, 'a second thought', one.contextId);
    expect(two).toEqual({ said: 'turn 2; first: the opening words', contextId: one.contextId });
    const three = await chat(rpc, 'and a third', one.contextId);
    expect(three.said).toBe('turn 3; first: the opening words');
  });

  it.each(BINDINGS)("a second caller presenting the first caller's contextId sees nothing of that thread (%s)", async (_binding, clientOf) => {
    const opened = await chat(clientOf(demo.url, alice), 'alice only words');
    await chat(clientOf(demo.url, alice), 'more from alice', opened.contextId);
    const client = clientOf(demo.url, bob);
    const theirs = await chat(client, 'bob here', opened.contextId);
    expect(theirs.said).toBe('turn 1; first: bob here');
    const listed = await client.call('ListTasks', { contextId: opened.contextId, includeArtifacts: true });
    expect(listed.result.tasks).toHaveLength(1);
    expect(JSON.stringify(listed.raw)).not.toContain('alice');
    expect((await chat(clientOf(demo.url, alice), 'alice again', opened.contextId)).said).toBe('turn 3; first: alice only words');
  });
});

describe('conversations across two instances on one Redis', () => {
  const prefix = uniquePrefix();
  let a: RunningApp;
  let b: RunningApp;
  beforeAll(async () => {
    a = await startDemo({ REDIS_URL, A2A_REDIS_PREFIX: prefix });
    b = await startDemo({ REDIS_URL, A2A_REDIS_PREFIX: prefix });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await deleteKeysUnder(prefix);
  });

  it('a thread started on one instance continues on the other, over the other binding', async () => {
    const one = await chat(jsonRpcClient(`${a.url}/a2a/jsonrpc`), 'started on A');
    expect((await chat(restClient(`${b.url}/a2a/rest`), 'then on B', one.contextId)).said).toBe('turn 2; first: started on A');
    expect((await chat(restClient(`${a.url}/a2a/rest`), 'back on A', one.contextId)).said).toBe('turn 3; first: started on A');
  });
});

describe("the demo's /research: three tool steps that show nothing of the tools", () => {
  const prefix = uniquePrefix();
  let demo: RunningApp;
  let receiver: WebhookReceiver;
  const heard: ToolCallEvent[] = [];
  /** What must never reach the wire: the tools' and peers' names, the arguments sent, what the peers answered, where they are. */
  const NEVER = ['alpha', 'beta', 'gamma', '__echo', 'background', 'evidence', 'objections', 'echo:', '127.0.0.1', 'Error', 'at /'];

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    const port = await freePort();
    const self = `http://127.0.0.1:${port}`;
    demo = await startDemo({
      PORT: String(port),
      DEMO_PEERS: `alpha-lab=${self},beta-lab=${self},gamma-lab=${self}`,
      REDIS_URL,
      A2A_REDIS_PREFIX: prefix,
      A2A_ALLOW_PRIVATE_WEBHOOKS: '1',
      A2A_PUSH_RETRY_SCHEDULE: '0,100ms',
    });
    demo.app.get(ToolCallEvents).on((event) => heard.push(event));
  });
  afterAll(async () => {
    await demo?.close();
    await receiver?.close();
    await deleteKeysUnder(prefix);
  });

  it.each([
    ['JSON-RPC', 'rpc'],
    ['HTTP+JSON', 'rest'],
  ])('over %s: the stream, the push notifications and the history read step 1/3 .. 3/3 and the answer, byte by byte', async (binding, path) => {
    heard.length = 0;
    const message = userMessage('/research quantum widgets');
    const configuration = { taskPushNotificationConfig: { url: receiver.url(`/${path}`), token: 'tok' } };
    const base = `${demo.url}/agents/support`;
    const res =
      binding === 'JSON-RPC'
        ? await post(`${base}/a2a/jsonrpc`, { jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message, configuration } })
        : await post(`${base}/a2a/rest/message:stream`, { message, configuration });
    const stream = await res.text();
    const taskId = /"id":"([0-9a-f-]{36})"/.exec(stream)![1];
    // the task event, three steps, the answer, COMPLETED
    const pushed = await receiver.waitFor((all) => all.filter((r) => r.path === `/${path}`).length >= 6, 10_000);
    const push = pushed.filter((r) => r.path === `/${path}`).map((r) => r.body).join('\n');
    const history = await (await fetch(`${base}/a2a/rest/tasks/${taskId}`, { headers: V1 })).text();

    for (const [what, bytes] of [['stream', stream], ['push', push], ['history', history]]) {
      for (const step of ['step 1/3', 'step 2/3', 'step 3/3']) expect(`${what}: ${bytes}`).toContain(step);
      expect(`${what}: ${bytes}`).toContain('research: quantum widgets (3 sources)');
      for (const leak of NEVER) expect(`${what}: ${bytes}`).not.toContain(leak);
    }
    expect(JSON.parse(history).status.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.parse(history).history.map((m: Json) => m.parts[0].text)).toEqual(['/research quantum widgets', 'step 1/3', 'step 2/3', 'step 3/3']);
    // ...while an in-process observer heard every tool, its step and how it went
    const finished = heard.filter((e) => e.phase === 'finished' && e.taskId === taskId);
    expect(finished.map((e) => [e.tool, e.step, e.steps, e.outcome])).toEqual([
      ['alpha-lab__echo', 1, 3, 'succeeded'],
      ['beta-lab__echo', 2, 3, 'succeeded'],
      ['gamma-lab__echo', 3, 3, 'succeeded'],
    ]);
    expect(finished[0]).toMatchObject({ agent: 'support', caller: { subject: expect.any(String) }, durationMs: expect.any(Number) });
  });
});

/** An agent whose every failure is asked for by its text; the secret must never reach the wire. */
const SECRET = 'SECRET-postgres://admin:hunter2@db.internal:5432';

@A2AAgent({ name: 'failing', description: 'Fails as asked', skills: [{ id: 'fail', name: 'Fail', description: 'Fails as asked', tags: ['test'] }] })
@Injectable()
class FailingAgent implements AgentExecutor {
  async execute(ctx: TaskContext): Promise<void> {
    if (ctx.text === 'silent') return; // no answer at all
    await ctx.working();
    switch (ctx.text) {
      case 'throw':
        throw new Error(SECRET);
      case 'coded':
        throw Object.assign(new Error(SECRET), { code: 'QUOTA_EXCEEDED' });
      case 'tool': {
        ctx.expectSteps(3);
        await ctx.runTool(tool('lookup-peer__search'), { q: SECRET });
        await ctx.runTool(tool('billing-peer__charge', Object.assign(new Error(`peer billing-peer at ${SECRET} refused`), { code: 'TOOL_UNAVAILABLE' })), { q: SECRET });
        return ctx.complete();
      }
      case 'unfinished':
        return; // leaves the task WORKING
      case 'slow':
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        throw new Error(SECRET); // after the deadline: too late to say anything
      default:
        return ctx.complete();
    }
  }
}

function tool(name: string, failure?: Error): AgentTool<{ q: string }, string> {
  return {
    name,
    description: name,
    inputSchema: { type: 'object' },
    invoke: async () => {
      if (failure) throw failure;
      return 'found';
    },
  };
}

describe('executor failures on the wire', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp(A2AModule.forRoot({ limits: { executorTimeoutMs: 400, maxContextIdLength: 16 } }), [FailingAgent]);
  });
  afterAll(() => app.close());

  describe.each(BINDINGS)('over %s', (_binding, clientOf) => {
    it.each([
      ['an exception', 'throw', 'The agent encountered an internal error.', { code: 'INTERNAL' }],
      ['an exception declaring a code', 'coded', 'The agent stopped on an error (QUOTA_EXCEEDED).', { code: 'QUOTA_EXCEEDED' }],
      ['a tool step failing', 'tool', 'Step 2 of 3 failed (TOOL_UNAVAILABLE).', { code: 'TOOL_UNAVAILABLE', step: 2, steps: 3 }],
      ['the deadline', 'slow', 'The agent did not finish in time.', { code: 'DEADLINE_EXCEEDED' }],
      ['no answer at all', 'silent', 'The agent ended without a response.', { code: 'NO_RESPONSE' }],
      ['a task left WORKING', 'unfinished', 'The agent stopped before finishing the task.', { code: 'UNFINISHED' }],
    ])('%s: FAILED with a safe text and a stable code, nothing of the exception', async (_label, text, safe, error) => {
      const client = clientOf(app.url);
      const { events } = await client.stream('SendStreamingMessage', { message: userMessage(text) });
      const last = events[events.length - 1].data.statusUpdate.status;
      expect(last.state).toBe('TASK_STATE_FAILED');
      expect(last.message.parts).toEqual([{ text: safe }]);
      expect(last.message.metadata).toEqual({ error });
      const task = (await client.call('GetTask', { id: events[0].data.task.id })).raw;
      for (const bytes of [JSON.stringify(events), JSON.stringify(task)]) {
        expect(bytes).not.toMatch(/SECRET|hunter2|db\.internal|lookup-peer|billing-peer|Error:|at \//);
      }
    });

    it('the contextId bound is an option (limits.maxContextIdLength)', async () => {
      const client = clientOf(app.url);
      const over = await client.call('SendMessage', { message: userMessage('ok', { contextId: 'x'.repeat(17) }) });
      expect(over.error?.details).toContainEqual(expect.objectContaining({ fieldViolations: [expect.objectContaining({ description: expect.stringContaining('at most 16 characters') })] }));
      expect((await client.call('SendMessage', { message: userMessage('ok', { contextId: 'x'.repeat(16) }) })).result.task.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('a cancellation says so: CANCELED, not FAILED', async () => {
      const client = clientOf(app.url);
      const started = (await client.call('SendMessage', { message: userMessage('slow'), configuration: { returnImmediately: true } })).result.task;
      await waitUntil(async () => (await client.call('GetTask', { id: started.id })).result?.status.state === 'TASK_STATE_WORKING');
      const canceled = (await client.call('CancelTask', { id: started.id })).result;
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    });
  });
});

function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...V1 }, body: JSON.stringify(body) });
}
