/**
 * What one caller can store (issue 17, item 1): bodies are bounded whatever their content type,
 * finished tasks give way to a byte budget, running and interrupted ones are refused with 429 and
 * Retry-After once they fill it, and interrupted tasks expire. The crash it fixes: one caller
 * sending large `/task` messages one after another exhausted the demo's heap.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { A2AModule, TaskBackend, type InMemoryTaskBackend, type RedisTaskBackend } from 'nestjs-a2a';
import { REDIS_URL, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { waitUntil } from 'nestjs-a2a/testing';
import { EchoAgent } from '../src/echo.agent.js';
import { spawnDemo, type DemoProcess } from './support/built-demo.js';
import { startApp } from './support/custom-app.js';
import type { RunningApp } from './support/demo-app.js';
import { V1, jsonRpcClient, restClient, userMessage, type BindingClient, type Json } from './support/wire-client.js';

const KB = 1024;

describe('the demo, one caller sending large messages one after another', () => {
  let demo: DemoProcess;
  beforeAll(async () => {
    // a heap far smaller than what the caller sends: it holds only if stored tasks are bounded
    demo = await spawnDemo({}, ['--max-old-space-size=160']);
  }, 120_000);
  afterAll(() => demo?.stop());

  const send = (body: string, contentType = 'application/json') =>
    fetch(`${demo.url}/a2a/rest/message:send`, { method: 'POST', headers: { 'content-type': contentType, ...V1 }, body });

  it('stays up: finished tasks give way to the byte budget (about 350 MB sent to a 160 MB heap)', async () => {
    const big = 'x'.repeat(900 * KB);
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      const res = await send(JSON.stringify({ message: userMessage(`/task ${big}`) }));
      expect(res.status).toBe(200);
      const { task } = (await res.json()) as Json;
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      ids.push(task.id);
    }
    const get = (id: string) => fetch(`${demo.url}/a2a/rest/tasks/${id}`, { headers: V1 });
    expect((await get(ids[0])).status).toBe(404); // let go for room
    expect((await get(ids[ids.length - 1])).status).toBe(200);
    expect(demo.child.exitCode).toBeNull();
    expect(demo.stderr()).not.toMatch(/heap out of memory/i);
  }, 120_000);

  it('refuses one caller whose questions (interrupted tasks, kept until answered) fill its budget: 429 with Retry-After; the process stays up, its memory bounded', async () => {
    const big = 'x'.repeat(900 * KB);
    let refused: Response | undefined;
    let asked = 0;
    // the default per-caller budget is 64 MiB: refused well before 200 questions of 900 KB
    for (let i = 0; i < 200 && !refused; i++) {
      const res = await send(JSON.stringify({ message: userMessage(`/ask ${big}`) }));
      if (res.status === 200) {
        expect(((await res.json()) as Json).task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
        asked++;
      } else refused = res;
    }
    expect(refused?.status).toBe(429);
    expect(refused?.headers.get('retry-after')).toBe('30');
    expect(((await refused!.json()) as Json).error.status).toBe('RESOURCE_EXHAUSTED');
    expect(asked).toBeGreaterThanOrEqual(40);
    expect(demo.child.exitCode).toBeNull();
    expect((await fetch(`${demo.url}/.well-known/agent-card.json`)).status).toBe(200);
    // what the process holds: the 64 MiB budget within a 160 MB heap, not the 4 GB an unbounded store reached
    const rssKb = Number((await promisify(execFile)('ps', ['-o', 'rss=', '-p', String(demo.child.pid)])).stdout.trim());
    expect(rssKb).toBeGreaterThan(0);
    expect(rssKb).toBeLessThan(400 * KB);
  }, 120_000);

  it.each(['application/json', 'application/a2a+json'])('answers a body over the default 1 MiB limit with 413 (%s), on both bindings', async (type) => {
    const body = JSON.stringify({ message: userMessage(`/task ${'x'.repeat(1100 * KB)}`) });
    const rest = await send(body, type);
    expect(rest.status).toBe(413);
    expect(((await rest.json()) as Json).error.message).toMatch(/larger than the limit of 1048576 bytes/);
    const rpc = await fetch(`${demo.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': type, ...V1 },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params: JSON.parse(body) }),
    });
    expect(rpc.status).toBe(413);
    expect(demo.child.exitCode).toBeNull();
  });
});

/** The caller is whoever `X-Caller` names, as a host's own guard would set `req.user`. */
@Injectable()
class CallerHeaderGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest();
    req.user = { sub: req.headers['x-caller'] ?? 'nobody' };
    return true;
  }
}

describe('byte budgets with small limits (an app of its own)', () => {
  let app: RunningApp;
  let clients: BindingClient[];
  beforeAll(async () => {
    app = await startApp(
      A2AModule.forRoot({
        defaultAgent: 'echo',
        limits: { maxBodyBytes: 256 * KB },
        tasks: { maxStoredBytes: 4096 * KB, maxStoredBytesPerCaller: 1024 * KB, interruptedTtlMs: 1000 },
      }),
      [EchoAgent, { provide: APP_GUARD, useClass: CallerHeaderGuard }],
    );
    clients = [jsonRpcClient(`${app.url}/a2a/jsonrpc`), restClient(`${app.url}/a2a/rest`)];
  });
  afterAll(() => app.close());

  const as = (caller: string) => ({ headers: { 'X-Caller': caller } });
  const store = () => app.app.get<InMemoryTaskBackend>(TaskBackend).store;
  const payload = 'y'.repeat(200 * KB);

  it('keeps a caller within its budget however many tasks it finishes', async () => {
    for (let i = 0; i < 20; i++) {
      const { result } = await clients[i % 2].call('SendMessage', { message: userMessage(`/task ${payload}`) }, as('finisher'));
      expect(result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(store().storedBytes({ agent: 'echo', tenant: '', subject: 'finisher' })).toBeLessThanOrEqual(1024 * KB);
    }
    expect(store().storedBytes()).toBeLessThanOrEqual(4096 * KB);
  });

  it.each([0, 1])('refuses a caller whose interrupted tasks fill its budget with 429 and Retry-After (binding %#)', async (index) => {
    const client = clients[index];
    const caller = `asker-${index}`;
    const asked: string[] = [];
    let refused: Json;
    for (let i = 0; i < 10 && !refused; i++) {
      const answer = await client.call('SendMessage', { message: userMessage(`/ask ${payload}`) }, as(caller));
      if (answer.error) refused = answer;
      else asked.push(answer.result.task.id);
    }
    expect(refused).toBeDefined();
    expect(asked.length).toBeGreaterThanOrEqual(3);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(refused.error.reason).toBe('RESOURCE_EXHAUSTED');
    // nothing of the caller's was lost for it, and another caller is served as before
    for (const id of asked) expect((await client.call('GetTask', { id }, as(caller))).result.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const other = await client.call('SendMessage', { message: userMessage(`/ask ${payload}`) }, as(`other-${index}`));
    expect(other.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    // an answered question finishes its task, which then gives way: the caller is served again
    const done = await client.call('SendMessage', { message: userMessage('ok', { taskId: asked[0] }) }, as(caller));
    expect(done.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const again = await client.call('SendMessage', { message: userMessage('/ask small') }, as(caller));
    expect(again.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('lets an interrupted task go after interruptedTtlMs without a message', async () => {
    const [client] = clients;
    const { result } = await client.call('SendMessage', { message: userMessage('/ask expiring') }, as('expiring'));
    const id = result.task.id;
    await waitUntil(async () => (await client.call('GetTask', { id }, as('expiring'))).error !== undefined, { attempts: 60, intervalMs: 100 });
    const gone = await client.call('GetTask', { id }, as('expiring'));
    expect(gone.error?.reason).toBe('TASK_NOT_FOUND');
    expect(store().storedBytes({ agent: 'echo', tenant: '', subject: 'expiring' })).toBe(0);
  });
});

describe('byte budgets with small limits on Redis, one count for two instances', () => {
  const prefix = uniquePrefix();
  let apps: RunningApp[];
  /** The JSON-RPC and the REST binding of each instance: [instance][binding]. */
  let clients: BindingClient[][];
  beforeAll(async () => {
    const instance = () =>
      startApp(
        A2AModule.forRoot({
          defaultAgent: 'echo',
          limits: { maxBodyBytes: 256 * KB },
          redis: { url: REDIS_URL, keyPrefix: prefix },
          tasks: { maxStoredBytes: 8192 * KB, maxStoredBytesPerCaller: 1024 * KB },
        }),
        [EchoAgent, { provide: APP_GUARD, useClass: CallerHeaderGuard }],
      );
    apps = await Promise.all([instance(), instance()]);
    clients = apps.map(({ url }) => [jsonRpcClient(`${url}/a2a/jsonrpc`), restClient(`${url}/a2a/rest`)]);
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await deleteKeysUnder(prefix);
  });

  const as = (caller: string) => ({ headers: { 'X-Caller': caller } });
  const backend = () => apps[0].app.get<RedisTaskBackend>(TaskBackend);
  const payload = 'y'.repeat(200 * KB);
  /** Questions (interrupted tasks, kept until answered) from `caller` on `client`, until one is refused. */
  async function askUntilRefused(client: BindingClient, caller: string): Promise<{ asked: string[]; refused: Json }> {
    const asked: string[] = [];
    for (let i = 0; i < 10; i++) {
      const answer = await client.call('SendMessage', { message: userMessage(`/ask ${payload}`) }, as(caller));
      if (answer.error) return { asked, refused: answer };
      asked.push(answer.result.task.id);
    }
    throw new Error(`${caller} was never refused`);
  }

  it.each([0, 1])('refuses a caller whose interrupted tasks fill its budget with 429 and Retry-After (binding %#), and serves another', async (index) => {
    const [onA, onB] = [clients[0][index], clients[1][index]];
    const caller = `redis-asker-${index}`;
    const { asked, refused } = await askUntilRefused(onA, caller);
    // a snapshot and a log of about 200 KB each per question: two fit in 1 MiB
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(refused.error.reason).toBe('RESOURCE_EXHAUSTED');
    expect(await backend().storedBytes({ agent: 'echo', tenant: '', subject: caller })).toBeLessThanOrEqual(1024 * KB);
    // the other instance counts the same bytes: refused there too
    const elsewhere = await onB.call('SendMessage', { message: userMessage(`/ask ${payload}`) }, as(caller));
    expect([elsewhere.status, elsewhere.error?.reason]).toEqual([429, 'RESOURCE_EXHAUSTED']);
    for (const id of asked) expect((await onB.call('GetTask', { id }, as(caller))).result.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const other = await onB.call('SendMessage', { message: userMessage(`/ask ${payload}`) }, as(`redis-other-${index}`));
    expect(other.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    // an answered question finishes its task, which then gives way: the caller is served again, on either instance
    const done = await onB.call('SendMessage', { message: userMessage('ok', { taskId: asked[0] }) }, as(caller));
    expect(done.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const again = await onA.call('SendMessage', { message: userMessage(`/ask ${payload}`) }, as(caller));
    expect(again.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect((await onA.call('GetTask', { id: asked[0] }, as(caller))).error?.reason).toBe('TASK_NOT_FOUND'); // the one that gave way
  });

  it('refuses every caller once all together fill the overall budget, on both instances', async () => {
    let overall: Json;
    const room = 2 * 201 * KB; // what a question is admitted for: its message, stored twice (history and log)
    for (let i = 0; i < 16 && !overall; i++) {
      const caller = `redis-crowd-${i}`;
      const { refused } = await askUntilRefused(clients[i % 2][i % 2], caller);
      // refused with room left in its own budget: the overall one is full
      const own = await backend().storedBytes({ agent: 'echo', tenant: '', subject: caller });
      if (own + room <= 1024 * KB) overall = refused;
    }
    expect([overall?.status, overall?.headers.get('retry-after'), overall?.error.reason]).toEqual([429, '30', 'RESOURCE_EXHAUSTED']);
    expect((await backend().storedBytes()) + room).toBeGreaterThan(8192 * KB);
    expect(await backend().storedBytes()).toBeLessThanOrEqual(8192 * KB);
    const newcomer = await clients[1][0].call('SendMessage', { message: userMessage(`/ask ${payload}`) }, as('redis-newcomer'));
    expect([newcomer.status, newcomer.error?.reason]).toEqual([429, 'RESOURCE_EXHAUSTED']);
    expect(apps.every(({ app }) => app.getHttpServer().listening)).toBe(true);
  });
});
