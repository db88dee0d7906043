import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, afterAll, describe, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import { A2AConfigurationError } from '../../config/a2a-configuration.error.js';
import { ResourceExhaustedError } from '../../protocol/errors.js';
import type { StreamResponse, TaskState } from '../../protocol/types.js';
import { connectClient, deleteKeys, uniquePrefix } from '../../redis/testing/redis-test-support.js';
import { statusEvent } from '../../testing/event-log.contract.js';
import { makeTask } from '../../testing/task-store.contract.js';
import { rejectionOf } from '../../testing/thrown.js';
import { waitUntil } from '../../testing/wait-until.js';
import type { StorageBudgetOptions } from '../storage-budget.js';
import type { StoredTask, TaskScope } from '../task-store.js';
import { RedisTaskBackend } from './redis-task-backend.js';

const KB = 1024;

describe('RedisTaskBackend byte budgets (a real Redis)', () => {
  let redis: Redis;
  let other: Redis;
  let prefixes: string[] = [];
  let backends: RedisTaskBackend[] = [];
  beforeAll(async () => {
    redis = await connectClient();
    other = await connectClient(); // a second instance's own connection
  });
  afterEach(async () => {
    await Promise.all(backends.splice(0).map((b) => b.close()));
    for (const prefix of prefixes.splice(0)) await deleteKeys(redis, prefix);
  });
  afterAll(async () => {
    await redis.quit();
    await other.quit();
  });

  /** A Redis of this test alone (its own key prefix), and instances on it. */
  function storage(budget: StorageBudgetOptions, ttlMs = 60_000) {
    const keyPrefix = uniquePrefix();
    prefixes.push(keyPrefix);
    return (client: Redis = redis) => {
      const backend = new RedisTaskBackend(client, { keyPrefix, retention: { ttlMs, maxTerminalTasks: 10_000 }, budget });
      backends.push(backend);
      return backend;
    };
  }

  const scopeOf = (subject: string, agent = 'echo'): TaskScope => ({ agent, tenant: '', subject });
  const alice = scopeOf('alice');
  const bob = scopeOf('bob');

  /** Commits a task of `bytes` of history, in `state`, as a turn would (its log holds one small event). */
  async function store(backend: RedisTaskBackend, scope: TaskScope, state: TaskState, bytes = 10 * KB): Promise<StoredTask> {
    const id = `t-${randomUUID()}`;
    const events: StreamResponse[] = [statusEvent(id, 'working')];
    return backend.commit({ scope, current: undefined, events, next: makeTask(id, { state, text: 'x'.repeat(bytes) }) });
  }

  const present = async (backend: RedisTaskBackend, scope: TaskScope, tasks: StoredTask[]) =>
    (await Promise.all(tasks.map(async (t) => ((await backend.store.get(scope, t.task.id)) ? [t.task.id] : [])))).flat();

  it('counts the stored JSON exactly, snapshot and log, per caller and overall', async () => {
    const backend = storage({ maxBytes: 1000 * KB, maxBytesPerCaller: 100 * KB })();
    const id = `t-${randomUUID()}`;
    const events: StreamResponse[] = [statusEvent(id, 'working ü'), statusEvent(id, 'more')];
    const task = makeTask(id, { text: 'héllo' });
    const created = await backend.commit({ scope: alice, current: undefined, events, next: task });
    const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
    const logBytes = events.reduce((sum, e) => sum + bytesOf(e), 0);
    expect(await backend.storedBytes(alice)).toBe(bytesOf(task) + logBytes);
    // a later write replaces the snapshot's bytes and adds its events'
    const next = makeTask(id, { text: 'a longer history now' });
    const more = statusEvent(id, 'third');
    await backend.commit({ scope: alice, current: created, events: [more], next });
    expect(await backend.storedBytes(alice)).toBe(bytesOf(next) + logBytes + bytesOf(more));
    // the caller across agents: one budget
    await store(backend, scopeOf('alice', 'support'), 'TASK_STATE_WORKING', KB);
    await store(backend, bob, 'TASK_STATE_WORKING', KB);
    expect(await backend.storedBytes()).toBe((await backend.storedBytes(alice)) + (await backend.storedBytes(bob)));
    expect(await backend.storedBytes(alice)).toBeGreaterThan(bytesOf(next) + KB);
  });

  it('refuses a caller whose running and interrupted tasks fill its budget (429, Retry-After 30), and serves another caller', async () => {
    const backend = storage({ maxBytes: 1000 * KB, maxBytesPerCaller: 35 * KB })();
    const held = [
      await store(backend, alice, 'TASK_STATE_WORKING'),
      await store(backend, alice, 'TASK_STATE_INPUT_REQUIRED'),
      await store(backend, alice, 'TASK_STATE_AUTH_REQUIRED'),
    ];
    const refusal = await rejectionOf(backend.admit(alice, 10 * KB), ResourceExhaustedError);
    expect(refusal.httpStatus).toBe(429);
    expect(refusal.metadata.retryAfterSeconds).toBe('30');
    expect(await present(backend, alice, held)).toEqual(held.map((t) => t.task.id)); // nothing unfinished goes for room
    await expect(backend.admit(bob, 10 * KB)).resolves.toBeUndefined();
    await expect(backend.admit(alice, KB)).resolves.toBeUndefined(); // what still fits is admitted
    // room is made for the message twice (snapshot history and log): what the turn will store
    const empty = scopeOf('carol');
    await expect(backend.admit(empty, 17 * KB)).resolves.toBeUndefined();
    await rejectionOf(backend.admit(empty, 18 * KB), ResourceExhaustedError);
  });

  it('refuses everyone once all callers together fill the overall budget', async () => {
    const backend = storage({ maxBytes: 45 * KB, maxBytesPerCaller: 30 * KB })();
    await store(backend, alice, 'TASK_STATE_WORKING', 20 * KB);
    await store(backend, bob, 'TASK_STATE_INPUT_REQUIRED', 20 * KB);
    await rejectionOf(backend.admit(scopeOf('carol'), 5 * KB), ResourceExhaustedError);
    await expect(backend.admit(scopeOf('carol'), KB)).resolves.toBeUndefined();
  });

  it("lets the caller's own finished tasks give way, oldest first, with their logs, never another caller's", async () => {
    const backend = storage({ maxBytes: 1000 * KB, maxBytesPerCaller: 50 * KB })();
    const finished = [];
    for (let i = 0; i < 4; i++) finished.push(await store(backend, alice, 'TASK_STATE_COMPLETED', 9 * KB));
    const bobs = await store(backend, bob, 'TASK_STATE_COMPLETED');
    await backend.admit(alice, 15 * KB); // room for 30 KB: the message is stored twice (history and log)
    expect(await present(backend, alice, finished)).toEqual([finished[2].task.id, finished[3].task.id]);
    expect(await redis.exists(`${prefixes[0]}log:${finished[0].task.id}`)).toBe(0);
    expect(await present(backend, bob, [bobs])).toEqual([bobs.task.id]);
    expect((await backend.storedBytes(alice)) + 30 * KB).toBeLessThanOrEqual(50 * KB);
    expect((await backend.store.list(alice, { pageSize: 10 })).totalSize).toBe(2);
  });

  it("lets anyone's finished tasks give way, oldest first, when all together are over", async () => {
    const backend = storage({ maxBytes: 50 * KB, maxBytesPerCaller: 50 * KB })();
    const bobsFinished = await store(backend, bob, 'TASK_STATE_COMPLETED', 20 * KB);
    const alicesFinished = await store(backend, alice, 'TASK_STATE_COMPLETED', 10 * KB);
    const bobsRunning = await store(backend, bob, 'TASK_STATE_WORKING', 10 * KB);
    await backend.admit(alice, 10 * KB);
    expect(await present(backend, bob, [bobsFinished, bobsRunning])).toEqual([bobsRunning.task.id]);
    expect(await present(backend, alice, [alicesFinished])).toEqual([alicesFinished.task.id]);
  });

  it("gives the caller its budget back once its tasks' time is up, whether the sweep, ListTasks or an admission sees it first", async () => {
    const instance = storage({ maxBytes: 1000 * KB, maxBytesPerCaller: 25 * KB }, 1000);
    const backend = instance();
    await backend.store.close(); // no periodic sweep on this instance: the admission alone must see the task go
    const ended = await store(backend, alice, 'TASK_STATE_WORKING', 20 * KB);
    await rejectionOf(backend.admit(alice, 5 * KB), ResourceExhaustedError);
    // the task ends (a running task is only ever let go once it has): its keys expire after ttlMs
    await backend.commit({ scope: alice, current: ended, events: [statusEvent(ended.task.id, 'done')], next: makeTask(ended.task.id, { state: 'TASK_STATE_COMPLETED' }) });
    await waitUntil(async () => (await redis.exists(`${prefixes[0]}task:${ended.task.id}`)) === 0, { attempts: 60, intervalMs: 50 });
    expect(await backend.storedBytes(alice)).toBeGreaterThan(0); // the key went by TTL: nothing has counted it down yet
    await backend.admit(alice, 5 * KB);
    expect(await backend.storedBytes(alice)).toBe(0);

    const sweeping = instance();
    const swept = await store(sweeping, bob, 'TASK_STATE_COMPLETED', 20 * KB);
    await waitUntil(async () => (await redis.exists(`${prefixes[0]}task:${swept.task.id}`)) === 0, { attempts: 60, intervalMs: 50 });
    await sweeping.store.sweep(); // (or its timer did already)
    expect(await backend.storedBytes(bob)).toBe(0);
    expect(await backend.storedBytes()).toBe(0);
    expect(await redis.hlen(`${prefixes[0]}budget-tasks`)).toBe(0);

    await sweeping.store.close(); // no timer left: ListTasks alone must see the task go
    const carol = scopeOf('carol');
    const listed = await store(backend, carol, 'TASK_STATE_COMPLETED', 20 * KB);
    await waitUntil(async () => (await redis.exists(`${prefixes[0]}task:${listed.task.id}`)) === 0, { attempts: 60, intervalMs: 50 });
    expect(await backend.storedBytes(carol)).toBeGreaterThan(0);
    expect((await backend.store.list(carol, { pageSize: 10 })).totalSize).toBe(0);
    expect(await backend.storedBytes(carol)).toBe(0);
  });

  it('refuses budgets that are not positive byte counts when it is made', () => {
    const make = (budget: StorageBudgetOptions) => () => new RedisTaskBackend(redis, { retention: { ttlMs: 1000, maxTerminalTasks: 1 }, budget });
    expect(make({ maxBytes: 0, maxBytesPerCaller: 1.5 })).toThrow(A2AConfigurationError);
    expect(make({ maxBytes: 0, maxBytesPerCaller: 1.5 })).toThrow(/budget\.maxBytes must be a positive integer.*budget\.maxBytesPerCaller must be/s);
  });

  it('is one count for every instance on the Redis', async () => {
    const instance = storage({ maxBytes: 1000 * KB, maxBytesPerCaller: 25 * KB });
    const [first, second] = [instance(redis), instance(other)];
    await store(first, alice, 'TASK_STATE_INPUT_REQUIRED', 20 * KB);
    expect(await second.storedBytes(alice)).toBe(await first.storedBytes(alice));
    await rejectionOf(second.admit(alice, 10 * KB), ResourceExhaustedError);
    await store(second, bob, 'TASK_STATE_WORKING', 20 * KB);
    await rejectionOf(first.admit(bob, 10 * KB), ResourceExhaustedError);
    await expect(first.admit(scopeOf('carol'), 10 * KB)).resolves.toBeUndefined();
  });
});
