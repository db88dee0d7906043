/**
 * Redis unreachable or lost mid-run, on a redis-server of this test's own (a free port on
 * 127.0.0.1; the machine's Redis is never touched): start-up fails fast, requests get a protocol
 * error instead of hanging, the app recovers when Redis comes back, close() never hangs.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2AAgent, A2AModule, type AgentExecutor, type TaskContext } from 'nestjs-a2a';
import { waitUntil } from 'nestjs-a2a/testing';
import { EchoAgent } from '../src/echo.agent.js';
import { startApp } from './support/custom-app.js';
import { freePort } from './support/ports.js';
import { startRedis, stopRedis } from './support/redis-server.js';
import type { RunningApp } from './support/demo-app.js';
import { jsonRpcClient, restClient, userMessage } from './support/wire-client.js';

const app = (port: number) => startApp(A2AModule.forRoot({ redis: { url: `redis://127.0.0.1:${port}/0` }, defaultAgent: 'echo' }), [EchoAgent]);

/** A step the agent waits at until the test opens it. */
function gate(): { readonly opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
const steps = { artifact: gate(), finish: gate() };

/** Writes WORKING, tries an artifact when told (Redis is down by then) and keeps running until told to stop. */
@A2AAgent({ name: 'stubborn', description: 'outlives a failed write', skills: [{ id: 's', name: 'S', description: 's', tags: ['s'] }] })
@Injectable()
class StubbornAgent implements AgentExecutor {
  async execute(ctx: TaskContext) {
    await ctx.working();
    await steps.artifact.opened;
    await ctx.addArtifact({ parts: [{ text: 'lost' }] }).catch(() => undefined);
    await steps.finish.opened;
  }
}

const servers: ChildProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.map(stopRedis));
});

describe('Redis outages', () => {
  it('fails start-up at once, saying where Redis was expected and why', async () => {
    const port = await freePort();
    const t0 = Date.now();
    await expect(app(port)).rejects.toThrow(new RegExp(`Redis at redis://127\\.0\\.0\\.1:${port}/0 is unreachable \\(ECONNREFUSED\\)`));
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('answers 503 / a JSON-RPC error while Redis is down, recovers by itself, and closes without hanging', async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    servers.push(redis);
    let running: RunningApp | undefined = await app(port);
    try {
      const rest = restClient(`${running.url}/a2a/rest`);
      const rpc = jsonRpcClient(`${running.url}/a2a/jsonrpc`);
      const before = (await rest.call('SendMessage', { message: userMessage('/task up') })).result.task;
      expect(before.status.state).toBe('TASK_STATE_COMPLETED');

      await stopRedis(redis);
      const t0 = Date.now();
      const down = await rest.call('GetTask', { id: before.id });
      expect(down.status).toBe(503);
      expect(down.raw.error).toMatchObject({ code: 503, status: 'UNAVAILABLE', details: [{ reason: 'UNAVAILABLE' }] });
      const downRpc = await rpc.call('SendMessage', { message: userMessage('/task down') });
      expect(downRpc.raw.error).toMatchObject({ code: -32603, data: [{ reason: 'UNAVAILABLE' }] });
      expect(Date.now() - t0).toBeLessThan(8000);

      redis = await startRedis(port);
      servers.push(redis);
      let after: number | undefined;
      await waitUntil(async () => (after = (await rest.call('ListTasks', {})).status) === 200, { intervalMs: 100 });
      expect(after).toBe(200);
      const again = (await rest.call('SendMessage', { message: userMessage('/task back') })).result.task;
      expect(again.status.state).toBe('TASK_STATE_COMPLETED');

      await stopRedis(redis);
      const closing = Date.now();
      await running.close();
      running = undefined;
      expect(Date.now() - closing).toBeLessThan(5000);
    } finally {
      await running?.close();
    }
  });

  it('fails a task whose write was lost while Redis was down, once Redis is back, instead of leaving it WORKING', async () => {
    const port = await freePort();
    const dir = await mkdtemp(join(tmpdir(), 'a2a-redis-'));
    let redis = await startRedis(port, dir); // durable: the task and its claim survive the restart
    servers.push(redis);
    let running: RunningApp | undefined = await startApp(
      A2AModule.forRoot({ redis: { url: `redis://127.0.0.1:${port}/0`, leaseMs: 600 }, defaultAgent: 'stubborn' }),
      [StubbornAgent],
    );
    try {
      const rest = restClient(`${running.url}/a2a/rest`);
      const task = (await rest.call('SendMessage', { message: userMessage('go'), configuration: { returnImmediately: true } })).result.task;
      await waitUntil(async () => (await rest.call('GetTask', { id: task.id })).result.status.state === 'TASK_STATE_WORKING', { attempts: 50, intervalMs: 20 });

      await stopRedis(redis);
      steps.artifact.open(); // that write fails
      await sleep(100);
      redis = await startRedis(port, dir);
      servers.push(redis);
      await waitUntil(async () => (await rest.call('GetTask', { id: task.id })).status === 200, { intervalMs: 100 });
      // the executor returns with Redis back (and the app connected again): the turn must not let go
      // of its claim as if everything it meant to write was stored
      steps.finish.open();

      let status: { state: string; message?: { parts: unknown[] } } | undefined;
      await waitUntil(async () => (status = (await rest.call('GetTask', { id: task.id })).result?.status)?.state === 'TASK_STATE_FAILED', { intervalMs: 100 });
      expect(status?.state).toBe('TASK_STATE_FAILED');
      expect(status?.message?.parts).toEqual([{ text: 'The agent instance running this task stopped before finishing it.' }]);
    } finally {
      await running?.close();
      running = undefined;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
