/**
 * SIGTERM under load: the built demo in a child process (`enableShutdownHooks`), tasks in a
 * redis-server of this test's own (a free port of 127.0.0.1; the machine's Redis is never touched),
 * real HTTP clients: open SSE streams, and clients looping requests on keep-alive connections.
 * Measured before: an instance kept serving its keep-alive clients for 20 s after SIGTERM, starting
 * new tasks after the running ones had been failed, and exited only when its clients stopped.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { keysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { spawnDemo, type DemoProcess } from './support/built-demo.js';
import { freePort } from './support/ports.js';
import { startRedis, stopRedis } from './support/redis-server.js';
import { loopClient, openStream, streamTask, type LoopClient, type OpenStream } from './support/shutdown-load.js';

const GRACE_MS = 3_000;
const SHUTDOWN_TEXT = 'The agent was stopped because the server is shutting down.';
/** How long after the grace period the process may take to close everything and exit. */
const EXIT_MARGIN_MS = 5_000;

const servers: ChildProcess[] = [];
const demos: DemoProcess[] = [];
afterAll(async () => {
  await Promise.all(demos.map((demo) => demo.stop(1_000)));
  await Promise.all(servers.map(stopRedis));
});

async function redisAndDemos(count: number): Promise<{ port: number; prefix: string; demos: DemoProcess[] }> {
  const port = await freePort();
  servers.push(await startRedis(port));
  const prefix = uniquePrefix();
  const env = { REDIS_URL: `redis://127.0.0.1:${port}/0`, A2A_REDIS_PREFIX: prefix, A2A_SHUTDOWN_GRACE_MS: String(GRACE_MS) };
  const started: DemoProcess[] = [];
  for (let i = 0; i < count; i++) started.push(await spawnDemo(env));
  demos.push(...started);
  return { port, prefix, demos: started };
}

/** The task id of a stream's first event (the task itself). */
const taskIdOf = (stream: OpenStream) => JSON.parse(stream.events[0].data).task.id as string;

/** SIGTERM, then how long the process took to exit, and how. */
async function terminate(demo: DemoProcess): Promise<{ code: number | string; ms: number }> {
  const t0 = Date.now();
  demo.child.kill('SIGTERM');
  const code = await demo.exited;
  if (process.env.SHUTDOWN_VERBOSE) console.log(`exited ${code} ${Date.now() - t0} ms after SIGTERM`);
  return { code, ms: Date.now() - t0 };
}

/** SIGTERM while `loops` run: the process exits 0 within the deadline. When that was, and when each loop was turned away. */
async function terminateUnderLoad(demo: DemoProcess, loops: LoopClient[]): Promise<{ t0: number; ms: number; stops: Array<{ at: number; code: string }> }> {
  const t0 = Date.now();
  const exit = terminate(demo);
  const stops = await Promise.all(loops.map((loop) => loop.stopped));
  const { code, ms } = await exit;
  expect(code).toBe(0);
  expect(ms).toBeLessThan(GRACE_MS + EXIT_MARGIN_MS);
  return { t0, ms, stops };
}

/** After SIGTERM at `t0`: every looping client was turned away quickly, and an answer telling it to go came first. */
function expectTurnedAway(loops: LoopClient[], t0: number, stops: Array<{ at: number; code: string }>): void {
  if (process.env.SHUTDOWN_VERBOSE) console.log(loops.map((loop, i) => `${loop.answers.filter((a) => a.at >= t0).length} answers, stopped ${stops[i].at - t0} ms after SIGTERM (${stops[i].code}), last ${JSON.stringify(loop.answers.at(-1)?.headers.connection)} ${loop.answers.at(-1)?.status}`));
  for (const [i, loop] of loops.entries()) {
    expect(stops[i].at - t0).toBeLessThan(GRACE_MS); // not for as long as the clients liked
    const after = loop.answers.filter((answer) => answer.at >= t0);
    expect(after.length).toBeLessThan(50);
    // once told (Connection: close, or 503 for a new message), no further answer on that client
    const told = loop.answers.findIndex((answer) => answer.headers.connection === 'close' || answer.status === 503);
    if (told !== -1) expect(loop.answers.length).toBe(told + 1);
    // a message that arrived once the instance had begun to stop started no task: it was refused, and told to go
    for (const answer of loop.answers.filter((a) => a.headers.connection === 'close')) expect(answer.status).toBe(503);
  }
}

describe('SIGTERM under load', () => {
  it('with Redis up: stops taking work, lets short tasks finish, fails the rest at the deadline, ends every stream, leaves nothing leased, exits 0', async () => {
    const { port, prefix, demos: [demo] } = await redisAndDemos(1);
    const long = Array.from({ length: 40 }, (_, i) => streamTask(demo.url, `/task slow 60000 long-${i}`));
    const short = Array.from({ length: 5 }, (_, i) => streamTask(demo.url, `/task slow 1000 short-${i}`));
    await Promise.all([...long, ...short].map((stream) => stream.received(2))); // the task and WORKING
    const loops = Array.from({ length: 8 }, () => loopClient(demo.url, '/task hi'));
    await new Promise((resolve) => setTimeout(resolve, 300)); // the loops are going

    const { t0, stops } = await terminateUnderLoad(demo, loops);
    // tasks in Redis: streams end at once, so their clients can follow on another instance
    expect(await Promise.all([...long, ...short].map((stream) => stream.ended))).toEqual([...long, ...short].map(() => 'end'));
    expectTurnedAway(loops, t0, stops);

    const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
    await redis.connect();
    try {
      const stateOf = async (stream: OpenStream) => JSON.parse((await redis.hget(`${prefix}task:${taskIdOf(stream)}`, 'task'))!).status;
      for (const stream of short) expect((await stateOf(stream)).state).toBe('TASK_STATE_COMPLETED');
      for (const stream of long) expect(await stateOf(stream)).toMatchObject({ state: 'TASK_STATE_FAILED', message: { parts: [{ text: SHUTDOWN_TEXT }] } });
      // nothing running, nothing leased, no claim left for an orphan sweep
      expect((await keysUnder(redis, prefix)).filter((key) => key.startsWith(`${prefix}lease:`))).toEqual([]);
      expect(await redis.hlen(`${prefix}claims`)).toBe(0);
      const working = await redis.keys(`${prefix}idx:*:s:TASK_STATE_WORKING`);
      for (const key of working) expect(await redis.zcard(key)).toBe(0);
    } finally {
      redis.disconnect();
    }
  }, 60_000);

  it('in memory: streams stay open while their tasks finish or fail at the deadline, with the final event; exits 0', async () => {
    const demo = await spawnDemo({ A2A_SHUTDOWN_GRACE_MS: String(GRACE_MS) });
    demos.push(demo);
    const long = Array.from({ length: 40 }, (_, i) => streamTask(demo.url, `/task slow 60000 long-${i}`));
    const short = Array.from({ length: 5 }, (_, i) => streamTask(demo.url, `/task slow 1000 short-${i}`));
    await Promise.all([...long, ...short].map((stream) => stream.received(2)));
    const loops = Array.from({ length: 4 }, () => loopClient(demo.url, '/task hi'));
    await new Promise((resolve) => setTimeout(resolve, 200));

    const { t0, stops, ms } = await terminateUnderLoad(demo, loops);
    expect(ms).toBeGreaterThanOrEqual(GRACE_MS - 200); // the long tasks had their grace period
    expectTurnedAway(loops, t0, stops);
    const lastState = (stream: OpenStream) => JSON.parse(stream.events[stream.events.length - 1].data).statusUpdate?.status;
    for (const stream of short) {
      expect(await stream.ended).toBe('end');
      expect(lastState(stream).state).toBe('TASK_STATE_COMPLETED');
    }
    for (const stream of long) {
      expect(await stream.ended).toBe('end');
      expect(lastState(stream)).toMatchObject({ state: 'TASK_STATE_FAILED', message: { parts: [{ text: SHUTDOWN_TEXT }] } });
    }
  }, 60_000);

  it('with Redis down: ends every stream and exits 0 within the deadline all the same', async () => {
    const { demos: [demo] } = await redisAndDemos(1);
    const streams = Array.from({ length: 20 }, (_, i) => streamTask(demo.url, `/task slow 60000 down-${i}`));
    await Promise.all(streams.map((stream) => stream.received(2)));
    const loops = Array.from({ length: 4 }, () => loopClient(demo.url, 'hello'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await stopRedis(servers[servers.length - 1]);

    const { t0, stops } = await terminateUnderLoad(demo, loops);
    const ended = await Promise.all(streams.map((stream) => stream.ended));
    expect(ended.every((how) => how === 'end' || how === 'error')).toBe(true);
    for (const stop of stops) expect(stop.at - t0).toBeLessThan(GRACE_MS);
  }, 60_000);

  it('on two instances: a task running on the one that gets SIGTERM is finished or failed there, and followed on the other with Last-Event-ID', async () => {
    const { demos: [a, b] } = await redisAndDemos(2);
    const finishing = streamTask(a.url, '/task slow 1500 finishing'); // ends within the grace period
    const outliving = streamTask(a.url, '/task slow 60000 outliving'); // does not
    await Promise.all([finishing.received(2), outliving.received(2)]);

    const exit = terminate(a);
    // a's streams end at once, before the tasks do: their clients move to b
    expect(await finishing.ended).toBe('end');
    expect(await outliving.ended).toBe('end');
    const follow = (stream: OpenStream) =>
      openStream(`${b.url}/a2a/rest/tasks/${taskIdOf(stream)}:subscribe`, {}, { 'Last-Event-ID': stream.events[stream.events.length - 1].id! });
    const [onB1, onB2] = [follow(finishing), follow(outliving)];
    await Promise.all([onB1.ended, onB2.ended]);

    const lastSeen = (stream: OpenStream) => Number(stream.events[stream.events.length - 1].id);
    for (const [before, after] of [
      [finishing, onB1],
      [outliving, onB2],
    ]) {
      // exactly the events after the last one seen on a, in order, none twice
      expect(after.events.map((event) => Number(event.id))).toEqual(after.events.map((_, i) => lastSeen(before) + 1 + i));
    }
    const states = (stream: OpenStream) => stream.events.map((event) => JSON.parse(event.data)).map((data) => data.statusUpdate?.status.state ?? (data.artifactUpdate ? 'artifact' : 'task'));
    expect(states(onB1)).toEqual(['artifact', 'TASK_STATE_COMPLETED']);
    expect(states(onB2)).toEqual(['TASK_STATE_FAILED']);
    expect(JSON.parse(onB2.events[0].data).statusUpdate.status.message.parts).toEqual([{ text: SHUTDOWN_TEXT }]);
    expect((await exit).code).toBe(0);
  }, 60_000);
});
