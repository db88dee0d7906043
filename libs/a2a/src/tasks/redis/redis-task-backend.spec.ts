import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { scopeKey } from '../../redis/redis-keys.js';
import { REDIS_URL, redisOfSpec } from '../../redis/testing/redis-test-support.js';
import { ConcurrentTaskUpdateError, type TaskScope } from '../task-store.js';
import { statusEvent } from '../../testing/event-log.contract.js';
import { describeTaskBackendContract } from '../../testing/task-backend.contract.js';
import { makeTask } from '../../testing/task-store.contract.js';
import { RedisTaskBackend } from './redis-task-backend.js';

const RETENTION = { ttlMs: 60 * 60 * 1000, maxTerminalTasks: 10_000 };
const redis = redisOfSpec();
const { prefix } = redis;
/** Short, so that the contract's lapse and orphan tests take a second or two. */
const LEASE_MS = 300;
/** The contract's budget cases fill one caller's budget; every test's tasks share the overall one. */
const BUDGET = { maxBytes: 64 * 1024 * 1024, maxBytesPerCaller: 64 * 1024 };

describeTaskBackendContract(
  `RedisTaskBackend (${REDIS_URL})`,
  async () => {
    const instance = () => new RedisTaskBackend(redis.client, { keyPrefix: prefix, retention: RETENTION, leaseMs: LEASE_MS, budget: BUDGET });
    const backend = instance();
    return { backend, peer: async () => instance(), close: () => backend.close() };
  },
  { leaseMs: LEASE_MS, budgetPerCaller: BUDGET.maxBytesPerCaller },
);

describe('RedisTaskBackend', () => {
  const backends: RedisTaskBackend[] = [];
  /** A scope of this test alone. */
  const freshScope = (): TaskScope => ({ agent: `agent-${randomUUID()}`, tenant: '', subject: 'alice' });

  function newBackend(instanceId?: string): RedisTaskBackend {
    const backend = new RedisTaskBackend(redis.client, { keyPrefix: prefix, retention: RETENTION, instanceId });
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

    it('keeps an interrupted task and its log for interruptedTtlMs, and for good once it is live again', async () => {
      const backend = new RedisTaskBackend(redis.client, { keyPrefix: prefix, retention: { ...RETENTION, interruptedTtlMs: 400 } });
      backends.push(backend);
      const scope = freshScope();
      const ttls = (id: string) => Promise.all([redis.client.pttl(`${prefix}task:${id}`), redis.client.pttl(`${prefix}log:${id}`)]);
      const resumed = `resumed-${randomUUID()}`;
      const asked = await backend.commit({ scope, current: undefined, events: [statusEvent(resumed, 'asks')], next: makeTask(resumed, { state: 'TASK_STATE_INPUT_REQUIRED' }) });
      for (const ttl of await ttls(resumed)) expect(ttl).toBeGreaterThan(0);
      await backend.commit({ scope, current: asked, events: [statusEvent(resumed, 'working')], next: makeTask(resumed, { state: 'TASK_STATE_WORKING' }) });
      expect(await ttls(resumed)).toEqual([-1, -1]);
      expect(await redis.client.zscore(`${prefix}expiring`, resumed)).toBeNull();

      const abandoned = `abandoned-${randomUUID()}`;
      await backend.commit({ scope, current: undefined, events: [statusEvent(abandoned, 'asks')], next: makeTask(abandoned, { state: 'TASK_STATE_AUTH_REQUIRED' }) });
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(await backend.store.get(scope, abandoned)).toBeUndefined();
      expect(await redis.client.exists(`${prefix}log:${abandoned}`)).toBe(0);
      expect((await backend.store.list(scope, { pageSize: 10 })).tasks.map((t) => t.id)).toEqual([resumed]);
    });

    it('marks a task with push configs due in the same write (the push outbox), and no other task', async () => {
      const backend = newBackend();
      const scope = freshScope();
      const due = (id: string) => redis.client.hget(`${prefix}push:due`, id);
      const plain = `plain-${randomUUID()}`;
      await backend.commit({ scope, current: undefined, events: [statusEvent(plain, 'working')], next: makeTask(plain, { state: 'TASK_STATE_WORKING' }) });
      expect(await due(plain)).toBeNull();

      const pushed = `pushed-${randomUUID()}`;
      await redis.client.hset(`${prefix}push:cfg:${scopeKey(scope)}:${pushed}`, 'cfg', '{}');
      const opened = await backend.commit({ scope, current: undefined, events: [statusEvent(pushed, 'working')], next: makeTask(pushed, { state: 'TASK_STATE_WORKING' }) });
      expect(await due(pushed)).toBe(`1 0 ${JSON.stringify(scope)}`);
      const events = [statusEvent(pushed, 'more'), statusEvent(pushed, 'done')];
      await backend.commit({ scope, current: opened, events, next: makeTask(pushed, { state: 'TASK_STATE_COMPLETED' }) });
      expect(await due(pushed)).toBe(`3 1 ${JSON.stringify(scope)}`);
    });
  });
});
