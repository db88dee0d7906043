import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { A2AConfigurationError } from '../../config/a2a-configuration.error.js';
import type { TaskState } from '../../protocol/types.js';
import { ConcurrentTaskUpdateError, type TaskScope } from '../task-store.js';
import { at, makeTask } from '../../testing/task-store.contract.js';
import { RedisTaskKeys } from './redis-task-keys.js';
import { RedisTaskStore } from './redis-task-store.js';
import { connectClient, deleteKeys, keysUnder, redisOfSpec, sleep, uniquePrefix, unreachableClient } from '../../redis/testing/redis-test-support.js';
import { waitUntil } from '../../testing/wait-until.js';

const RETENTION = { ttlMs: 60 * 60 * 1000, maxTerminalTasks: 10_000 };
const redis = redisOfSpec();
const { prefix } = redis;

describe('RedisTaskStore', () => {
  const stores: RedisTaskStore[] = [];
  /** A scope of this test alone. */
  const freshScope = (): TaskScope => ({ agent: `agent-${randomUUID()}`, tenant: '', subject: 'alice' });

  function newStore(ttlMs = RETENTION.ttlMs, keyPrefix = prefix): RedisTaskStore {
    const store = new RedisTaskStore(redis.client, { keyPrefix, retention: { ...RETENTION, ttlMs } });
    stores.push(store);
    return store;
  }

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });

  const ids = (page: { tasks: Array<{ id: string }> }) => page.tasks.map((t) => t.id);

  describe('indexes', () => {
    it('stay exact while tasks move between states, for every filter combination', async () => {
      const store = newStore();
      const scope = freshScope();
      const save = async (id: string, state: TaskState, seconds: number, contextId: string, version: number) =>
        store.save(scope, makeTask(id, { state, timestamp: at(seconds), contextId }), version + 1, version);

      await save('a', 'TASK_STATE_SUBMITTED', 1, 'ctx-1', 0);
      await save('b', 'TASK_STATE_SUBMITTED', 2, 'ctx-1', 0);
      await save('c', 'TASK_STATE_SUBMITTED', 3, 'ctx-2', 0);
      await save('a', 'TASK_STATE_WORKING', 4, 'ctx-1', 1);
      await save('b', 'TASK_STATE_WORKING', 5, 'ctx-1', 1);
      await save('a', 'TASK_STATE_COMPLETED', 6, 'ctx-1', 2);
      await save('c', 'TASK_STATE_INPUT_REQUIRED', 7, 'ctx-2', 1);
      await save('c', 'TASK_STATE_WORKING', 8, 'ctx-2', 2);

      const list = (query: Parameters<RedisTaskStore['list']>[1]) => store.list(scope, query);
      expect(ids(await list({ pageSize: 10 }))).toEqual(['c', 'a', 'b']);
      expect(await list({ pageSize: 10, status: 'TASK_STATE_SUBMITTED' })).toEqual({ tasks: [], totalSize: 0, nextPageToken: '' });
      expect((await list({ pageSize: 10, status: 'TASK_STATE_INPUT_REQUIRED' })).totalSize).toBe(0);
      const working = await list({ pageSize: 10, status: 'TASK_STATE_WORKING' });
      expect(ids(working)).toEqual(['c', 'b']);
      expect(working.totalSize).toBe(2);
      expect(ids(await list({ pageSize: 10, status: 'TASK_STATE_COMPLETED' }))).toEqual(['a']);
      const ctx1Working = await list({ pageSize: 10, contextId: 'ctx-1', status: 'TASK_STATE_WORKING' });
      expect(ids(ctx1Working)).toEqual(['b']);
      expect(ctx1Working.totalSize).toBe(1);
      expect((await list({ pageSize: 10, contextId: 'ctx-1' })).totalSize).toBe(2);
      expect((await list({ pageSize: 10, statusTimestampAfter: at(6) })).totalSize).toBe(2);
      // the returned snapshot is the latest
      expect((await list({ pageSize: 10, contextId: 'ctx-2' })).tasks[0].status).toEqual({ state: 'TASK_STATE_WORKING', timestamp: at(8) });

      // in Redis: each index holds exactly its members, and indexes of states nobody is in are gone
      const keys = new RedisTaskKeys(prefix);
      const sk = keys.scope(scope);
      const members = async (filter: { contextId?: string; status?: string }) =>
        (await redis.client.zrange(keys.index(sk, filter), '0', '-1')).map((m) => m.slice(m.indexOf(':') + 1)).sort();
      expect(await members({})).toEqual(['a', 'b', 'c']);
      expect(await members({ status: 'TASK_STATE_WORKING' })).toEqual(['b', 'c']);
      expect(await members({ contextId: 'ctx-2', status: 'TASK_STATE_WORKING' })).toEqual(['c']);
      expect(await redis.client.exists(keys.index(sk, { status: 'TASK_STATE_SUBMITTED' }))).toBe(0);
      expect(await redis.client.exists(keys.index(sk, { status: 'TASK_STATE_INPUT_REQUIRED' }))).toBe(0);
      expect(await redis.client.exists(keys.index(sk, { contextId: 'ctx-2', status: 'TASK_STATE_INPUT_REQUIRED' }))).toBe(0);
    });

    it('keep scopes apart whatever characters their values contain', async () => {
      const store = newStore();
      const run = randomUUID();
      // pairs that a naive "agent:tenant:subject" key would merge
      const one: TaskScope = { agent: `a:${run}`, tenant: 'b', subject: 'c' };
      const two: TaskScope = { agent: 'a', tenant: `${run}:b`, subject: 'c' };
      const odd: TaskScope = { agent: `*?[]{}\n ${run}`, tenant: 'ténant/ü', subject: '.' };
      await store.save(one, makeTask(`${run}-1`, { contextId: 'x:y' }), 1, 0);
      await store.save(two, makeTask(`${run}-2`, { contextId: 'x:y' }), 1, 0);
      await store.save(odd, makeTask(`${run}-3`, { contextId: '*' }), 1, 0);
      expect(ids(await store.list(one, { pageSize: 10 }))).toEqual([`${run}-1`]);
      expect(ids(await store.list(two, { pageSize: 10, contextId: 'x:y' }))).toEqual([`${run}-2`]);
      expect(ids(await store.list(odd, { pageSize: 10, contextId: '*' }))).toEqual([`${run}-3`]);
      expect(await store.get(one, `${run}-2`)).toBeUndefined();
      expect((await store.get(odd, `${run}-3`))?.scope).toEqual(odd);
    });

    it('keep every key under the prefix', async () => {
      const own = uniquePrefix();
      const store = newStore(RETENTION.ttlMs, own);
      const scope = freshScope();
      await store.save(scope, makeTask('t1', { contextId: 'c' }), 1, 0);
      await store.save(scope, makeTask('t2', { state: 'TASK_STATE_COMPLETED', contextId: 'c' }), 1, 0);
      const keys = await keysUnder(redis.client, own);
      expect(keys.every((k) => k.startsWith(own))).toBe(true);
      expect(keys).toEqual(
        expect.arrayContaining([`${own}task:t1`, `${own}task:t2`, `${own}expiring`, `${own}expiring-info`, expect.stringMatching(/idx:/)]),
      );
      await deleteKeys(redis.client, own);
    });
  });

  describe('retention', () => {
    it('expires terminal tasks after the ttl: gone from get, list and totalSize; unfinished tasks stay', async () => {
      const store = newStore(150);
      const scope = freshScope();
      await store.save(scope, makeTask('done', { state: 'TASK_STATE_WORKING', timestamp: at(1) }), 1, 0);
      await store.save(scope, makeTask('done', { state: 'TASK_STATE_COMPLETED', timestamp: at(2) }), 2, 1);
      await store.save(scope, makeTask('failed', { state: 'TASK_STATE_FAILED', timestamp: at(3) }), 1, 0);
      await store.save(scope, makeTask('working', { state: 'TASK_STATE_WORKING', timestamp: at(4) }), 1, 0);
      await store.save(scope, makeTask('waiting', { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: at(5) }), 1, 0);

      const before = await store.list(scope, { pageSize: 10 });
      expect(before.totalSize).toBe(4);
      const ttl = await redis.client.pttl(`${prefix}task:done`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(150);
      expect(await redis.client.pttl(`${prefix}task:working`)).toBe(-1);

      await sleep(250);
      expect(await store.get(scope, 'done')).toBeUndefined();
      expect(await store.get(scope, 'failed')).toBeUndefined();
      const after = await store.list(scope, { pageSize: 10 });
      expect(ids(after)).toEqual(['waiting', 'working']);
      expect(after.totalSize).toBe(2);
      expect((await store.list(scope, { pageSize: 10, status: 'TASK_STATE_COMPLETED' })).totalSize).toBe(0);
      expect((await store.list(scope, { pageSize: 10, contextId: 'ctx-default' })).totalSize).toBe(2);
      expect((await store.list(scope, { pageSize: 1 })).totalSize).toBe(2);
    });

    it('counts exactly when tasks expire between pages', async () => {
      const store = newStore(200);
      const scope = freshScope();
      for (let i = 0; i < 4; i++) await store.save(scope, makeTask(`live-${i}`, { timestamp: at(i) }), 1, 0);
      for (let i = 0; i < 4; i++) await store.save(scope, makeTask(`done-${i}`, { state: 'TASK_STATE_CANCELED', timestamp: at(10 + i) }), 1, 0);
      const first = await store.list(scope, { pageSize: 3 });
      expect(first.totalSize).toBe(8);
      expect(ids(first)).toEqual(['done-3', 'done-2', 'done-1']);
      await sleep(300);
      const second = await store.list(scope, { pageSize: 3, pageToken: first.nextPageToken });
      expect(second.totalSize).toBe(4);
      expect(ids(second)).toEqual(['live-3', 'live-2', 'live-1']);
      const third = await store.list(scope, { pageSize: 3, pageToken: second.nextPageToken });
      expect(ids(third)).toEqual(['live-0']);
      expect(third.nextPageToken).toBe('');
    });

    it('sweeps the indexes of expired tasks on a timer, without anyone listing', async () => {
      const own = uniquePrefix();
      const store = newStore(400, own);
      const scope = freshScope();
      await store.save(scope, makeTask('done', { state: 'TASK_STATE_COMPLETED', contextId: 'c' }), 1, 0);
      await store.save(scope, makeTask('working', { contextId: 'c' }), 1, 0);
      const keys = new RedisTaskKeys(own);
      expect(await redis.client.exists(`${own}expiring`, `${own}expiring-info`)).toBe(2);
      // nothing of the expired task is left: no snapshot, no index entry, no expiry bookkeeping
      const left = [
        `${own}task:working`,
        keys.index(keys.scope(scope), {}),
        keys.index(keys.scope(scope), { contextId: 'c' }),
        keys.index(keys.scope(scope), { status: 'TASK_STATE_WORKING' }),
        keys.index(keys.scope(scope), { contextId: 'c', status: 'TASK_STATE_WORKING' }),
        // the byte budget counts the working task alone: the expired one's bytes came back with it
        keys.budget(),
        `${own}budget-tasks`,
      ].sort();
      // the sweep runs every min(ttl, 60 s): the first one after the expiry (SCAN is not atomic, so the
      // key list is read again until it settles, or for a few seconds on a loaded machine)
      let keysLeft: string[] = [];
      await waitUntil(async () => (keysLeft = await keysUnder(redis.client, own)).length === left.length, { attempts: 50, intervalMs: 100 });
      expect(keysLeft).toEqual(left);
      expect(await redis.client.zcard(keys.index(keys.scope(scope), {}))).toBe(1);
      expect(await redis.client.hkeys(`${own}budget-tasks`)).toEqual(['working']);
      await deleteKeys(redis.client, own);
    });

    it('does not expire a terminal task that is saved again in a live state', async () => {
      const store = newStore(100);
      const scope = freshScope();
      await store.save(scope, makeTask('back', { state: 'TASK_STATE_COMPLETED' }), 1, 0);
      await store.save(scope, makeTask('back', { state: 'TASK_STATE_WORKING' }), 2, 1);
      expect(await redis.client.pttl(`${prefix}task:back`)).toBe(-1);
      await sleep(200);
      expect((await store.get(scope, 'back'))?.version).toBe(2);
      expect((await store.list(scope, { pageSize: 10 })).totalSize).toBe(1);
      expect(await redis.client.zscore(`${prefix}expiring`, 'back')).toBeNull();
    });

    it('frees the id of an expired task, leaving nothing of the old one in the indexes', async () => {
      const store = newStore(50);
      const scope = freshScope();
      const id = `reused-${randomUUID()}`;
      await store.save(scope, makeTask(id, { state: 'TASK_STATE_FAILED', timestamp: at(1), contextId: 'old' }), 1, 0);
      await sleep(100);
      const created = await store.save(scope, makeTask(id, { timestamp: at(2), contextId: 'new' }), 1, 0);
      expect(created.version).toBe(1);
      expect(await store.list(scope, { pageSize: 10, contextId: 'old' })).toEqual({ tasks: [], totalSize: 0, nextPageToken: '' });
      expect((await store.list(scope, { pageSize: 10 })).totalSize).toBe(1);
      expect((await store.list(scope, { pageSize: 10, status: 'TASK_STATE_FAILED' })).totalSize).toBe(0);
    });
  });

  describe("another caller's task", () => {
    it('is not found, and nothing of its snapshot leaves Redis: it costs what a missing task costs', async () => {
      const client = await connectClient();
      const store = new RedisTaskStore(client, { keyPrefix: prefix, retention: RETENTION });
      try {
        const owner = freshScope();
        const id = `big-${randomUUID()}`;
        await store.save(owner, makeTask(id, { state: 'TASK_STATE_INPUT_REQUIRED', text: 'x'.repeat(1 << 20) }), 1, 0);
        // what this connection receives from Redis, in bytes
        const socket = (client as unknown as { stream: Socket }).stream;
        const bytesFor = async (read: () => Promise<unknown>) => {
          const before = socket.bytesRead;
          await read();
          return socket.bytesRead - before;
        };
        const other = { ...owner, subject: 'bob' };
        expect(await store.get(other, id)).toBeUndefined();
        expect(await bytesFor(() => store.get(other, id))).toBeLessThan(64);
        expect(await bytesFor(() => store.get(owner, `missing-${randomUUID()}`))).toBeLessThan(64);
        expect(await bytesFor(() => store.get(owner, id))).toBeGreaterThan(1 << 20);
        expect((await store.get(owner, id))?.task.history?.[0].parts[0].text).toHaveLength(1 << 20);
      } finally {
        await store.close();
        client.disconnect();
      }
    });
  });

  describe('configuration and failure', () => {
    it('refuses an ioredis redis.client with its own keyPrefix, and a non-positive ttl', async () => {
      const prefixed = await connectClient(undefined, { keyPrefix: 'oops:' });
      try {
        expect(() => new RedisTaskStore(prefixed, { retention: RETENTION })).toThrow(A2AConfigurationError);
        expect(() => new RedisTaskStore(redis.client, { retention: { ttlMs: 0, maxTerminalTasks: 1 } })).toThrow(/ttlMs/);
      } finally {
        await prefixed.quit();
      }
    });

    it('fails fast while Redis is unreachable, and close() still returns', async () => {
      const down = unreachableClient();
      const store = new RedisTaskStore(down, { keyPrefix: prefix, retention: RETENTION });
      const scope = freshScope();
      const started = Date.now();
      await expect(store.get(scope, 'x')).rejects.toThrow();
      await expect(store.save(scope, makeTask('x'), 1, 0)).rejects.toThrow();
      await expect(store.save(scope, makeTask('x'), 1, 0)).rejects.not.toBeInstanceOf(ConcurrentTaskUpdateError);
      await expect(store.list(scope, { pageSize: 10 })).rejects.toThrow();
      await store.sweep(); // logs and carries on
      await store.close();
      expect(Date.now() - started).toBeLessThan(1000);
      down.disconnect();
    });
  });
});
