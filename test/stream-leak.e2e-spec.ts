/**
 * Bounded resources (issue 15): 1,000 SSE streams, SubscribeToTask and SendStreamingMessage on both
 * bindings, each left by its client mid-stream (on Express and on Fastify), leave nothing behind: no open stream, no follower
 * waiting on a log, and the heap back at its baseline. The app runs in a child process with
 * --expose-gc (test/support/stream-leak-probe.mjs), so jest's own heap is not measured.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { fork, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { waitUntil } from 'nestjs-a2a/testing';
import { REDIS_URL, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { ensureBuilt } from './support/built-demo.js';
import { V1, jsonRpcClient, userMessage } from './support/wire-client.js';

interface Measured {
  heapUsed: number;
  openStreams: number;
  /** In memory: followers waiting on a log; on Redis: logs its blocking reader follows. */
  followers: number;
}

type StreamKind = 'jsonrpc send' | 'rest send' | 'jsonrpc subscribe' | 'rest subscribe (GET)' | 'rest subscribe (POST)';
const KINDS: StreamKind[] = ['jsonrpc send', 'rest send', 'jsonrpc subscribe', 'rest subscribe (GET)', 'rest subscribe (POST)'];
const STREAMS = 1000;
const AT_ONCE = 50;
/**
 * What 1,000 streams may leave on the heap after full GCs: 2 KiB each, where one stream's
 * response, socket and follower are tens of kilobytes. Measured: 0.8-1.2 MiB after 1,000 to 4,000
 * streams past the warm-up, not growing with their number (caches filling, not streams kept).
 */
const HEAP_GROWTH_LIMIT = 2 * 1024 * 1024;

const REDIS_PREFIX = uniquePrefix();

// the platforms' own clean-up of a dropped stream is what differs: in memory on each; Redis once, on Express
describe.each([
  { backend: 'in memory', platform: 'express', env: {} },
  { backend: 'in memory', platform: 'fastify', env: { PROBE_PLATFORM: 'fastify' } },
  { backend: 'on Redis', platform: 'express', env: { PROBE_REDIS_URL: REDIS_URL, PROBE_REDIS_PREFIX: REDIS_PREFIX } },
])('1,000 SSE streams opened and dropped mid-stream, $backend, on $platform', ({ env }) => {
  let child: ChildProcess;
  let url: string;
  let holdTaskId: string;

  function next<T>(type: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const onMessage = (message: { type?: string }) => {
        if (message?.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message as T);
      };
      const onExit = (code: number | null) => reject(new Error(`the probe app exited (${code})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  }

  async function measure(): Promise<Measured> {
    const measured = next<Measured>('measured');
    child.send({ type: 'measure' });
    return measured;
  }

  /** Opens one stream, reads its first event, and hangs up; the task id that event names. */
  function openAndDrop(kind: StreamKind, i: number): Promise<string> {
    const rpc = (method: string, params: unknown) => ({ path: '/a2a/jsonrpc', method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: i, method, params }) });
    const target =
      kind === 'jsonrpc send'
        ? rpc('SendStreamingMessage', { message: userMessage('hold') })
        : kind === 'jsonrpc subscribe'
          ? rpc('SubscribeToTask', { id: holdTaskId })
          : kind === 'rest send'
            ? { path: '/a2a/rest/message:stream', method: 'POST', body: JSON.stringify({ message: userMessage('hold') }) }
            : { path: `/a2a/rest/tasks/${holdTaskId}:subscribe`, method: kind.endsWith('(GET)') ? 'GET' : 'POST', body: undefined };
    return new Promise((resolve, reject) => {
      const req = request(`${url}${target.path}`, { method: target.method, agent: false, headers: { ...V1, 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          const data = /^data: (.*)$/m.exec(text);
          if (!data) return;
          req.destroy(); // the client leaves mid-stream
          const event = JSON.parse(data[1]);
          resolve((event.result ?? event).task?.id ?? '');
        });
        res.on('end', () => reject(new Error(`${kind}: the stream ended before its first event: ${text.slice(0, 300)}`)));
      });
      req.on('error', (error) => (error.message === 'socket hang up' ? undefined : reject(error)));
      req.end(target.body);
    });
  }

  /** `count` streams, AT_ONCE at a time, every kind in turn; then the tasks they started are canceled. */
  async function openAndDropStreams(count: number): Promise<void> {
    const rpc = jsonRpcClient(`${url}/a2a/jsonrpc`);
    for (let start = 0; start < count; start += AT_ONCE) {
      const started = await Promise.all(Array.from({ length: Math.min(AT_ONCE, count - start) }, (_, j) => openAndDrop(KINDS[(start + j) % KINDS.length], start + j)));
      const sent = started.filter((id, j) => KINDS[(start + j) % KINDS.length].endsWith('send') && id !== '');
      const states = await Promise.all(sent.map((id) => cancel(rpc, id)));
      expect(states.filter((state) => state !== 'TASK_STATE_CANCELED')).toEqual([]);
    }
  }

  /** CancelTask, tried again while Redis answers UNAVAILABLE (a busy shared Redis times out now and then); the state it ends in. */
  async function cancel(rpc: ReturnType<typeof jsonRpcClient>, id: string): Promise<string | undefined> {
    let answer = await rpc.call('CancelTask', { id });
    for (let attempt = 1; attempt < 5 && answer.error?.reason === 'UNAVAILABLE'; attempt++) answer = await rpc.call('CancelTask', { id });
    return answer.result?.status?.state ?? answer.error?.reason;
  }

  /** Waits until the app has let go of every stream, then measures. */
  async function settled(): Promise<Measured> {
    let last = await measure();
    await waitUntil(async () => {
      last = await measure();
      return last.openStreams === 0 && last.followers === 0;
    });
    return last;
  }

  beforeAll(async () => {
    await ensureBuilt();
    child = fork('test/support/stream-leak-probe.mjs', [], { execArgv: ['--expose-gc'], env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    url = (await next<{ url: string }>('ready')).url;
    // the task every subscription follows: WORKING until the end of the test
    const held = await jsonRpcClient(`${url}/a2a/jsonrpc`).call('SendMessage', { message: userMessage('hold'), configuration: { returnImmediately: true } });
    holdTaskId = held.result.task.id;
  }, 240_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'stop' });
      const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(kill);
    }
    if (env.PROBE_REDIS_PREFIX) await deleteKeysUnder(env.PROBE_REDIS_PREFIX);
  });

  it(
    'leaves no open stream, no follower and no heap growth behind',
    async () => {
      // a first round warms up what is made once (compiled code, pools, caches)
      await openAndDropStreams(STREAMS);
      const baseline = await settled();
      await openAndDropStreams(STREAMS);
      const after = await settled();
      if (process.env.LEAK_VERBOSE === '1') process.stdout.write(`heap ${baseline.heapUsed} → ${after.heapUsed} (${after.heapUsed - baseline.heapUsed} bytes)\n`);
      expect({ openStreams: after.openStreams, followers: after.followers }).toEqual({ openStreams: 0, followers: 0 });
      expect(after.heapUsed - baseline.heapUsed).toBeLessThan(HEAP_GROWTH_LIMIT);
    },
    240_000,
  );
});
