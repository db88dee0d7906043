/**
 * Readiness through `@nestjs/terminus` and the module's `A2AHealthIndicator`, on the demo's
 * `/health` (liveness) and `/health/ready` (readiness), with Redis up, down and back: a
 * redis-server of this test's own, on a free port (the machine's Redis is never touched).
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import type { NestApplication } from '@nestjs/core';
import type { ChildProcess } from 'node:child_process';
import { A2AHealthIndicator } from 'nestjs-a2a';
import { waitUntil } from 'nestjs-a2a/testing';
import { startDemo, type RunningApp } from './support/demo-app.js';
import { freePort } from './support/ports.js';
import { startRedis, stopRedis } from './support/redis-server.js';
import { restClient, userMessage } from './support/wire-client.js';

const servers: ChildProcess[] = [];
const apps: RunningApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close().catch(() => undefined)));
  await Promise.all(servers.map(stopRedis));
});

async function probe(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

const EVERY_COMPONENT = ['redis', 'eventLogReader', 'cancelSubscriber', 'pushQueue', 'pushWorker'];
const all = (state: 'up' | 'down') => Object.fromEntries(EVERY_COMPONENT.map((name) => [name, state]));

describe('health', () => {
  it('is ready with tasks in memory, and live', async () => {
    const demo = await startDemo();
    apps.push(demo);
    expect(await probe(`${demo.url}/health`)).toEqual({ status: 200, body: expect.objectContaining({ status: 'ok' }) });
    const ready = await probe(`${demo.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body.details.a2a).toEqual({ status: 'up', shuttingDown: false });
  });

  it('follows Redis: ready while it is up, not ready (503, still live) while it is down, ready again once it is back', async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    servers.push(redis);
    const demo = await startDemo({ REDIS_URL: `redis://127.0.0.1:${port}/0` });
    apps.push(demo);
    // a stream, so that the event log's reader runs
    const streaming = restClient(`${demo.url}/a2a/rest`).stream('SendStreamingMessage', { message: userMessage('/task slow 60000 health') }, { stopAfter: 2 });
    await streaming;

    const up = await probe(`${demo.url}/health/ready`);
    expect(up.status).toBe(200);
    expect(up.body.details.a2a).toEqual({ status: 'up', shuttingDown: false, ...all('up') });

    await stopRedis(redis);
    let down: { status: number; body: any } | undefined;
    await waitUntil(async () => (down = await probe(`${demo.url}/health/ready`)).status === 503, { intervalMs: 100 });
    expect(down).toMatchObject({ status: 503, body: { status: 'error', error: { a2a: { status: 'down', shuttingDown: false, ...all('down') } } } });
    // names and states only: no address, no error text
    expect(JSON.stringify(down!.body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|Error/);
    expect((await probe(`${demo.url}/health`)).status).toBe(200);

    redis = await startRedis(port);
    servers.push(redis);
    let back: { status: number; body: any } | undefined;
    await waitUntil(async () => (back = await probe(`${demo.url}/health/ready`)).status === 200, { intervalMs: 100 });
    expect(back!.body.details.a2a).toEqual({ status: 'up', shuttingDown: false, ...all('up') });
  });

  it('is not ready once shutdown has begun, while the running tasks finish', async () => {
    const demo = await startDemo();
    const health = demo.app.get(A2AHealthIndicator);
    expect(await health.check()).toEqual({ ready: true, shuttingDown: false, components: {} });
    const rest = restClient(`${demo.url}/a2a/rest`);
    await rest.call('SendMessage', { message: userMessage('/task slow 1500 finishing'), configuration: { returnImmediately: true } });
    // what enableShutdownHooks() does on SIGTERM (the interface's close() takes no signal; Nest's implementation does)
    const closing = (demo.app as unknown as NestApplication).close('SIGTERM');
    await waitUntil(async () => (await health.check()).shuttingDown, { intervalMs: 10 });
    expect(await health.check()).toEqual({ ready: false, shuttingDown: true, components: {} });
    await expect(health.isHealthy('a2a')).resolves.toEqual({ a2a: { status: 'down', shuttingDown: true } });
    await closing;
  });
});
