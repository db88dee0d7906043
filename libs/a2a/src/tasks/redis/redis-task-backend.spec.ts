import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { REDIS_URL, connectClient, redisOfSpec } from '../../redis/testing/redis-test-support.js';
import { ConcurrentTaskUpdateError, type TaskScope } from '../task-store.js';
import { statusEvent } from '../../testing/event-log.contract.js';
import { describeTaskBackendContract } from '../../testing/task-backend.contract.js';
import { makeTask } from '../../testing/task-store.contract.js';
import { RedisTaskBackend } from './redis-task-backend.js';
import type { RetentionOptions } from '../retention.js';
import { A2AConfigurationError } from '../../config/a2a-configuration.error.js';
import { waitUntil } from '../../testing/wait-until.js';

const RETENTION = { ttlMs: 60 * 60 * 1000, maxTerminalTasks: 10_000 };
const redis = redisOfSpec();
const { prefix } = redis;
/** Short, so that the contract's lapse and orphan tests take a second or two. */
const LEASE_MS = 300;

describeTaskBackendContract(
  `RedisTaskBackend (${REDIS_URL})`,
  async () => {
    const instance = () => new RedisTaskBackend(redis.client, { keyPrefix: prefix, retention: RETENTION, leaseMs: LEASE_MS });
    const backend = instance();
    return { backend, peer: async () => instance(), close: () => backend.close() };
  },
  { leaseMs: LEASE_MS },
);

describe('RedisTaskBackend', () => {
  const backends: RedisTaskBackend[] = [];
  /** A scope of this test alone. */
  const freshScope = (): TaskScope => ({ agent: `agent-${randomUUID()}`, tenant: '', subject: 'alice' });

  function newBackend(instanceId?: string, retention: RetentionOptions = RETENTION, client: Redis = redis.client): RedisTaskBackend {
    const backend = new RedisTaskBackend(client, { keyPrefix: prefix, retention, instanceId });
    backends.push(backend);
    return backend;
  }

  afterEach(async () => {
    await Promise.all(backends.splice(0).map((b) => b.close()));
  });

  describe('commit', () => {
    it('writes nothing, not even to the log, when the snapshot it expects is gone', async () => {
      const backend = newBackend();
      const scope = freshScope();
      const id = `gone-${randomUUID()}`;
      // the log is where the writer expects it (seq 2), the snapshot is not
      const log = `${prefix}log:${id}`;
      await redis.client.xadd(log, '1-0', 'e', JSON.stringify(statusEvent(id, 'one')));
      await redis.client.xadd(log, '2-0', 'e', JSON.stringify(statusEvent(id, 'two')));
      const expected = { task: makeTask(id), scope, seq: 2, version: 3 };
      const write = { scope, current: expected, events: [statusEvent(id, 'late')], next: makeTask(id, { state: 'TASK_STATE_COMPLETED' }) };
      await expect(backend.commit(write)).rejects.toBeInstanceOf(ConcurrentTaskUpdateError);
      expect(await redis.client.xlen(log)).toBe(2);
      expect(await redis.client.exists(`${prefix}task:${id}`)).toBe(0);
      expect((await backend.store.list(scope, { pageSize: 10 })).totalSize).toBe(0);
    });

    it('takes the claim with the first write and drops it with the terminal one; a turn done in one write leaves none', async () => {
      const instanceId = `instance-${randomUUID()}`;
      const backend = newBackend(instanceId);
      const scope = freshScope();
      const claimOf = async (id: string) => [await redis.client.get(`${prefix}lease:${id}`), await redis.client.hget(`${prefix}claims`, id)];

      const long = `long-${randomUUID()}`;
      const opened = await backend.commit({ scope, current: undefined, events: [statusEvent(long, 'working')], next: makeTask(long, { state: 'TASK_STATE_WORKING' }) });
      expect(await claimOf(long)).toEqual([instanceId, JSON.stringify(scope)]);
      await backend.commit({ scope, current: opened, events: [statusEvent(long, 'done')], next: makeTask(long, { state: 'TASK_STATE_COMPLETED' }) });
      expect(await claimOf(long)).toEqual([null, null]);

      const quick = `quick-${randomUUID()}`;
      const events = [statusEvent(quick, 'working'), statusEvent(quick, 'done')];
      const done = await backend.commit({ scope, current: undefined, events, next: makeTask(quick, { state: 'TASK_STATE_COMPLETED' }) });
      expect(done.seq).toBe(2);
      expect(await claimOf(quick)).toEqual([null, null]);
    });
  });

  describe('interrupted tasks (INPUT_REQUIRED, AUTH_REQUIRED)', () => {
    const SHORT = { ...RETENTION, interruptedTtlMs: 300 };
    const pttls = (id: string) => Promise.all([redis.client.pttl(`${prefix}task:${id}`), redis.client.pttl(`${prefix}log:${id}`)]);

    it.each(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'] as const)('%s: the task, its log and its index entries expire after interruptedTtlMs', async (state) => {
      const backend = newBackend(undefined, SHORT);
      const scope = freshScope();
      const id = `asks-${randomUUID()}`;
      const opened = await backend.commit({ scope, current: undefined, events: [statusEvent(id, 'working')], next: makeTask(id) });
      expect(await pttls(id)).toEqual([-1, -1]);
      await backend.commit({ scope, current: opened, events: [statusEvent(id, 'a question')], next: makeTask(id, { state }) });
      for (const ttl of await pttls(id)) {
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(300);
      }
      expect((await backend.store.list(scope, { pageSize: 10 })).totalSize).toBe(1);
      await waitUntil(async () => (await redis.client.exists(`${prefix}task:${id}`, `${prefix}log:${id}`)) === 0, { attempts: 50, intervalMs: 50 });
      expect(await backend.store.get(scope, id)).toBeUndefined();
      expect(await backend.store.list(scope, { pageSize: 10 })).toEqual({ tasks: [], totalSize: 0, nextPageToken: '' });
    });

    it('a task that goes on (its next message) no longer expires, nor does its log', async () => {
      const backend = newBackend(undefined, SHORT);
      const scope = freshScope();
      const id = `answered-${randomUUID()}`;
      const asked = await backend.commit({ scope, current: undefined, events: [statusEvent(id, 'a question')], next: makeTask(id, { state: 'TASK_STATE_INPUT_REQUIRED' }) });
      expect((await pttls(id)).every((ttl) => ttl > 0)).toBe(true);
      await backend.commit({ scope, current: asked, events: [statusEvent(id, 'working on the answer')], next: makeTask(id) });
      expect(await pttls(id)).toEqual([-1, -1]);
      expect(await redis.client.zscore(`${prefix}expiring`, id)).toBeNull();
    });

    it('the log alone (EventLog.append) expires as its status events say', async () => {
      const backend = newBackend(undefined, SHORT);
      const id = `logged-${randomUUID()}`;
      const ttl = () => redis.client.pttl(`${prefix}log:${id}`);
      await backend.log.append(id, statusEvent(id, 'working'), 0);
      expect(await ttl()).toBe(-1);
      await backend.log.append(id, { statusUpdate: { taskId: id, contextId: 'ctx-1', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } }, 1);
      expect(await ttl()).toBeGreaterThan(0);
      await backend.log.append(id, { artifactUpdate: { taskId: id, contextId: 'ctx-1', artifact: { artifactId: 'a', parts: [{ text: 'x' }] } } }, 2);
      expect(await ttl()).toBeGreaterThan(0); // an event without a state keeps the expiry
      await backend.log.append(id, statusEvent(id, 'working again'), 3);
      expect(await ttl()).toBe(-1);
    });

    it('a retention whose interruptedTtlMs is not a positive integer is refused', () => {
      expect(() => newBackend(undefined, { ...RETENTION, interruptedTtlMs: 0 })).toThrow(A2AConfigurationError);
    });
  });

  describe("another caller's task", () => {
    it('is not found, and nothing of its snapshot leaves Redis: it costs what a missing task costs', async () => {
      const client = await connectClient();
      try {
        const backend = newBackend(undefined, RETENTION, client);
        const owner = freshScope();
        const id = `big-${randomUUID()}`;
        await backend.commit({ scope: owner, current: undefined, events: [statusEvent(id, 'asks')], next: makeTask(id, { state: 'TASK_STATE_INPUT_REQUIRED', text: 'x'.repeat(1 << 20) }) });
        // what this connection receives from Redis, in bytes
        const socket = (client as unknown as { stream: Socket }).stream;
        const bytesFor = async (read: () => Promise<unknown>) => {
          const before = socket.bytesRead;
          await read();
          return socket.bytesRead - before;
        };
        const other = { ...owner, subject: 'bob' };
        expect(await backend.store.get(other, id)).toBeUndefined();
        expect(await bytesFor(() => backend.store.get(other, id))).toBeLessThan(64);
        expect(await bytesFor(() => backend.store.get(owner, `missing-${randomUUID()}`))).toBeLessThan(64);
        expect(await bytesFor(() => backend.store.get(owner, id))).toBeGreaterThan(1 << 20);
      } finally {
        await Promise.all(backends.splice(0).map((b) => b.close()));
        client.disconnect();
      }
    });
  });
});
