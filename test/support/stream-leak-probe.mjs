/**
 * The app of the stream-leak test (test/stream-leak.e2e-spec.ts), run in a child process of its
 * own with --expose-gc, so its heap is measured without jest in it. Plain JavaScript over the
 * built library (`npm run build`). It answers the parent over IPC:
 *   { type: 'measure' } → { heapUsed, openStreams, followers } after full GCs.
 * With PROBE_REDIS_URL (and PROBE_REDIS_PREFIX) the tasks and logs are in Redis.
 */
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { A2AAgent, A2AModule, TaskBackend } from '../../libs/a2a/dist/index.js';
import { SseStreams } from '../../libs/a2a/dist/server/http/sse-streams.js';

/** "hold": WORKING until canceled (a stream the client leaves mid-way); anything else completes at once. */
class ProbeAgent {
  async execute(ctx) {
    await ctx.working();
    if (ctx.text !== 'hold') return ctx.complete();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
  }
}
Injectable()(ProbeAgent);
A2AAgent({ name: 'probe', description: 'Streams for the leak test', skills: [{ id: 'p', name: 'P', description: 'p', tags: ['p'] }] })(ProbeAgent);

class ProbeApp {}
Module({
  // finished tasks are let go at once: what stays is what the streams left behind
  imports: [
    A2AModule.forRoot({
      tasks: { maxTerminalTasks: 1, retentionMs: 1000 },
      redis: process.env.PROBE_REDIS_URL ? { url: process.env.PROBE_REDIS_URL, keyPrefix: process.env.PROBE_REDIS_PREFIX } : undefined,
      httpServer: false,
    }),
  ],
  providers: [ProbeAgent],
})(ProbeApp);

const options = { bodyParser: false, logger: ['error', 'fatal'] };
// PROBE_PLATFORM=fastify: the same app on Fastify (its adapter loaded only then)
const app =
  process.env.PROBE_PLATFORM === 'fastify'
    ? await NestFactory.create(ProbeApp, new (await import('@nestjs/platform-fastify')).FastifyAdapter(), options)
    : await NestFactory.create(ProbeApp, options);
await app.listen(0, '127.0.0.1');

async function measure() {
  // several passes: finalizers and weak references let go of more on the next one
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const log = app.get(TaskBackend).log;
  return {
    heapUsed: process.memoryUsage().heapUsed,
    openStreams: app.get(SseStreams).size,
    // in memory: followers waiting on a log; on Redis: logs the one blocking reader follows
    followers: log.waitingFollowers ?? log.followedLogs,
  };
}

process.on('message', async (message) => {
  if (message?.type === 'measure') process.send({ type: 'measured', ...(await measure()) });
  if (message?.type === 'stop') {
    await app.close();
    process.exit(0);
  }
});
process.send({ type: 'ready', url: (await app.getUrl()).replace('[::1]', '127.0.0.1') });
