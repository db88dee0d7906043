/**
 * One agent on two instances sharing one Redis (the real one on 127.0.0.1:6379, under a key
 * prefix of this run): tasks started on one are followed, cancelled, resumed and recovered on
 * the other, with streams cut and resumed with Last-Event-ID.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2AModule, TaskBackend, type RedisTaskBackend } from 'nestjs-a2a';
import { A2A_REDIS } from '../libs/a2a/src/config/a2a.constants.js';
import type { RedisConnection } from '../libs/a2a/src/redis/redis-connection.js';
import { REDIS_URL, connectClient, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { EchoAgent } from '../src/echo.agent.js';
import { startApp } from './support/custom-app.js';
import type { RunningApp } from './support/demo-app.js';
import { jsonRpcClient, readSse, restClient, userMessage, waitForTask, type BindingClient, type Json } from './support/wire-client.js';

const prefix = uniquePrefix();
const LEASE_MS = 400;

function instance(): Promise<RunningApp> {
  return startApp(A2AModule.forRoot({ redis: { url: REDIS_URL, keyPrefix: prefix, leaseMs: LEASE_MS }, defaultAgent: 'echo' }), [EchoAgent]);
}

let a: RunningApp;
let b: RunningApp;
let restA: BindingClient;
let restB: BindingClient;
let rpcB: BindingClient;

beforeAll(async () => {
  [a, b] = await Promise.all([instance(), instance()]);
  restA = restClient(`${a.url}/a2a/rest`);
  restB = restClient(`${b.url}/a2a/rest`);
  rpcB = jsonRpcClient(`${b.url}/a2a/jsonrpc`);
});

afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
  await deleteKeysUnder(prefix);
});

const start = async (client: BindingClient, text: string) =>
  (await client.call('SendMessage', { message: userMessage(text), configuration: { returnImmediately: true } })).result.task;

describe('two instances, one Redis', () => {
  it('runs a task on A that B reads, lists and follows to COMPLETED, every event in order', async () => {
    // long enough that B subscribes before it ends, even on a loaded machine (a finished task refuses SubscribeToTask)
    const task = await start(restA, '/task slow 2000 shared');
    expect((await restB.call('GetTask', { id: task.id })).result.id).toBe(task.id);
    const stream = await restB.stream('SubscribeToTask', { id: task.id });
    expect(Object.keys(stream.events[0].data)).toEqual(['task']);
    const last = stream.events[stream.events.length - 1];
    expect(last.data.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const ids = stream.events.map((e) => Number(e.id));
    expect(ids).toEqual([...new Set(ids)].sort((x, y) => x - y));
    const listed = (await rpcB.call('ListTasks', {})).result.tasks.map((t: Json) => t.id);
    expect(listed).toContain(task.id);
    // the claim went with the task's writes: taken by the first, dropped by the terminal one
    const client = await connectClient();
    try {
      expect(await client.exists(`${prefix}lease:${task.id}`)).toBe(0);
      expect(await client.hexists(`${prefix}claims`, task.id)).toBe(0);
    } finally {
      client.disconnect();
    }
  });

  it('streams SendStreamingMessage on A and replays the same log on B', async () => {
    const streamed = await restA.stream('SendStreamingMessage', { message: userMessage('/task same log') });
    const taskId = streamed.events[0].data.task.id;
    const replay = await restB.stream('SubscribeToTask', { id: taskId }, { headers: { 'Last-Event-ID': '0' } });
    expect(replay.events.map((e) => [e.id, e.data])).toEqual(streamed.events.map((e) => [e.id, e.data]));
  });

  it('cancels on B a task running on A: A\'s executor stops (no artifact), B answers CANCELED', async () => {
    const task = await start(restA, '/task slow 20000 never');
    const t0 = Date.now();
    const canceled = await rpcB.call('CancelTask', { id: task.id });
    expect(canceled.result.status.state).toBe('TASK_STATE_CANCELED');
    expect(Date.now() - t0).toBeLessThan(3000);
    await sleep(200);
    const after = (await restA.call('GetTask', { id: task.id })).result;
    expect(after.status.state).toBe('TASK_STATE_CANCELED');
    expect(after.artifacts).toBeUndefined();
  });

  it('resumes a dropped stream on the other instance with Last-Event-ID: nothing lost, nothing twice', async () => {
    const task = await start(restA, '/task slow 800 resume');
    // read the first two events on A, then drop the connection
    const abort = new AbortController();
    const res = await fetch(`${a.url}/a2a/rest/tasks/${task.id}:subscribe`, { method: 'POST', headers: { 'A2A-Version': '1.0' }, signal: abort.signal });
    const first = (await readSse(res, 2)).slice(0, 2); // a chunk may carry more than asked for
    abort.abort();
    const lastId = first[first.length - 1].id!;
    const rest = await restB.stream('SubscribeToTask', { id: task.id }, { headers: { 'Last-Event-ID': lastId } });
    const all = [...first.map((e) => Number(e.id)), ...rest.events.map((e) => Number(e.id))];
    expect(all.slice(1)).toEqual(Array.from({ length: all.length - 1 }, (_, i) => Number(first[1].id) + i));
    expect(rest.events[rest.events.length - 1].data.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('continues on B a task that asked for input on A (multi-turn across instances)', async () => {
    const asked = (await restA.call('SendMessage', { message: userMessage('/ask') })).result.task;
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const answered = (await rpcB.call('SendMessage', { message: userMessage('from B', { taskId: asked.id }) })).result.task;
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answered.artifacts[0].parts).toEqual([{ text: 'echo: from B' }]);
  });

  it('lets only one of two instances racing to continue the same task win; the other is told it is busy', async () => {
    const asked = (await restA.call('SendMessage', { message: userMessage('/ask') })).result.task;
    const [onA, onB] = await Promise.all([
      restA.call('SendMessage', { message: userMessage('/task slow 300 a', { taskId: asked.id }) }),
      restB.call('SendMessage', { message: userMessage('/task slow 300 b', { taskId: asked.id }) }),
    ]);
    const outcomes = [onA, onB].map((r) => r.result?.task?.status.state ?? r.error?.reason);
    expect(outcomes.sort()).toEqual(['TASK_STATE_COMPLETED', 'UNSUPPORTED_OPERATION']);
    const history = (await restA.call('GetTask', { id: asked.id })).result.history.filter((m: Json) => m.role === 'ROLE_USER');
    expect(history).toHaveLength(2); // the loser's message never reached the task
  });

  it('fails a task whose instance dies while it runs, instead of leaving it WORKING', async () => {
    const c = await instance();
    try {
      const task = await start(restClient(`${c.url}/a2a/rest`), '/task slow 30000 doomed');
      await waitForTask(restA, task.id, (t) => t.status.state === 'TASK_STATE_WORKING');
      // the instance "dies": no more lease renewals, no more Redis
      await c.app.get<RedisTaskBackend>(TaskBackend).coordinator.close();
      c.app.get<RedisConnection>(A2A_REDIS).client.disconnect();
      const failed = await waitForTask(restA, task.id, (t) => t.status.state === 'TASK_STATE_FAILED', 5000);
      expect(failed.status.message.parts[0].text).toBe('The agent instance running this task stopped before finishing it.');
      expect(failed.status.message.metadata).toEqual({ error: { code: 'INSTANCE_LOST' } }); // a lost instance says which it was
    } finally {
      await c.close();
    }
  });

  it('an instance stopped gracefully fails its running tasks with a clear message', async () => {
    const c = await instance();
    const task = await start(restClient(`${c.url}/a2a/rest`), '/task slow 30000 stopping');
    await c.close();
    const failed = (await restA.call('GetTask', { id: task.id })).result;
    expect(failed.status).toMatchObject({ state: 'TASK_STATE_FAILED', message: { parts: [{ text: 'The agent was stopped because the server is shutting down.' }] } });
    expect(failed.status.message.metadata).toEqual({ error: { code: 'SHUTTING_DOWN' } });
  });
});
