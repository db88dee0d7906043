/**
 * Redis unreachable or lost mid-run, on a redis-server of this test's own (a free port on
 * 127.0.0.1; the machine's Redis is never touched): start-up fails fast, requests get a protocol
 * error instead of hanging, the app recovers when Redis comes back, close() never hangs.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2AModule } from 'nestjs-a2a';
import { EchoAgent } from '../src/echo.agent.js';
import { startApp } from './support/custom-app.js';
import { freePort } from './support/ports.js';
import { startRedis, stopRedis } from './support/redis-server.js';
import type { RunningApp } from './support/demo-app.js';
import { jsonRpcClient, restClient, userMessage } from './support/wire-client.js';

const app = (port: number) => startApp(A2AModule.forRoot({ redis: { url: `redis://127.0.0.1:${port}/0` }, defaultAgent: 'echo' }), [EchoAgent]);

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
      for (let i = 0; i < 100 && after !== 200; i++) {
        await sleep(100);
        after = (await rest.call('ListTasks', {})).status;
      }
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
});
