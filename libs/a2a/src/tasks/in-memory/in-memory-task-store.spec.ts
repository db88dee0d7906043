import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { ResourceExhaustedError } from '../../protocol/errors.js';
import type { TaskState } from '../../protocol/types.js';
import { rejectionOf } from '../../testing/thrown.js';
import { InMemoryTaskStore } from './in-memory-task-store.js';
import type { TaskScope } from '../task-store.js';
import { makeTask } from '../../testing/task-store.contract.js';

describe('InMemoryTaskStore retention', () => {
  const scope: TaskScope = { agent: 'agent', tenant: '', subject: 'alice' };
  let store: InMemoryTaskStore | undefined;

  afterEach(() => {
    store?.close();
    store = undefined;
    jest.useRealTimers();
  });

  /** Creates a task in `state` (one save) and, when `finalState` is given, moves it there (a second save). */
  async function put(id: string, state: TaskState, finalState?: TaskState): Promise<void> {
    await store!.save(scope, makeTask(id, { state }), 1, 0);
    if (finalState) await store!.save(scope, makeTask(id, { state: finalState }), 2, 1);
  }

  async function present(...ids: string[]): Promise<string[]> {
    const found: string[] = [];
    for (const id of ids) if (await store!.get(scope, id)) found.push(id);
    return found;
  }

  it('evicts terminal tasks once their ttl has passed, and never non-terminal ones', async () => {
    jest.useFakeTimers();
    store = new InMemoryTaskStore({ ttlMs: 1000, maxTerminalTasks: 100 });
    await put('done', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED');
    await put('failed', 'TASK_STATE_FAILED');
    await put('working', 'TASK_STATE_WORKING');
    await put('waiting', 'TASK_STATE_INPUT_REQUIRED');
    await put('auth', 'TASK_STATE_AUTH_REQUIRED');
    await put('submitted', 'TASK_STATE_SUBMITTED');

    jest.advanceTimersByTime(900);
    expect(await present('done', 'failed')).toEqual(['done', 'failed']);

    jest.advanceTimersByTime(1200);
    expect(await present('done', 'failed')).toEqual([]);
    expect((await store.list(scope, { pageSize: 100 })).totalSize).toBe(4);

    // however long it gets, unfinished tasks stay
    jest.advanceTimersByTime(10 * 60 * 60 * 1000);
    expect(await present('working', 'waiting', 'auth', 'submitted')).toEqual(['working', 'waiting', 'auth', 'submitted']);
  });

  it('keeps each terminal task for its own ttl, counted from when it finished', async () => {
    jest.useFakeTimers();
    store = new InMemoryTaskStore({ ttlMs: 1000, maxTerminalTasks: 100 });
    await put('early', 'TASK_STATE_CANCELED');
    jest.advanceTimersByTime(600);
    await put('late', 'TASK_STATE_WORKING', 'TASK_STATE_REJECTED');
    jest.advanceTimersByTime(600); // early: 1200 ms old, late: 600 ms
    expect(await present('early', 'late')).toEqual(['late']);
    jest.advanceTimersByTime(1000);
    expect(await present('early', 'late')).toEqual([]);
  });

  it('keeps at most maxTerminalTasks terminal tasks, evicting the oldest first', async () => {
    store = new InMemoryTaskStore({ ttlMs: 60_000, maxTerminalTasks: 2 });
    await put('running-1', 'TASK_STATE_WORKING');
    await put('t1', 'TASK_STATE_COMPLETED');
    await put('t2', 'TASK_STATE_WORKING', 'TASK_STATE_FAILED');
    await put('running-2', 'TASK_STATE_INPUT_REQUIRED');
    expect(await present('t1', 't2')).toEqual(['t1', 't2']);

    await put('t3', 'TASK_STATE_CANCELED');
    expect(await present('t1', 't2', 't3')).toEqual(['t2', 't3']);
    await put('t4', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED');
    expect(await present('t1', 't2', 't3', 't4')).toEqual(['t3', 't4']);

    // non-terminal tasks neither count toward the limit nor get evicted by it
    expect(await present('running-1', 'running-2')).toEqual(['running-1', 'running-2']);
    expect((await store.list(scope, { pageSize: 100 })).totalSize).toBe(4);
  });

  it('evicts with a real timer too (short ttl, real wait)', async () => {
    store = new InMemoryTaskStore({ ttlMs: 30, maxTerminalTasks: 100 });
    await put('done', 'TASK_STATE_COMPLETED');
    await put('working', 'TASK_STATE_WORKING');
    expect(await present('done', 'working')).toEqual(['done', 'working']);
    // the sweep runs every min(ttl, 60 s): within two periods after the ttl the task is gone
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await present('done', 'working')).toEqual(['working']);
  });

  it('frees the id of an evicted task', async () => {
    store = new InMemoryTaskStore({ ttlMs: 60_000, maxTerminalTasks: 1 });
    await put('a', 'TASK_STATE_COMPLETED');
    await put('b', 'TASK_STATE_COMPLETED');
    expect(await store.get(scope, 'a')).toBeUndefined();
    // an evicted task no longer exists: creating one with its id is a plain create
    expect((await store.save(scope, makeTask('a'), 1, 0)).version).toBe(1);
  });
});

describe('InMemoryTaskStore context index', () => {
  it('lists a context from its index: a task leaves it when evicted, and follows its contextId when that changes', async () => {
    const scope: TaskScope = { agent: 'agent', tenant: '', subject: 'alice' };
    const store = new InMemoryTaskStore({ ttlMs: 60_000, maxTerminalTasks: 1 });
    const inContext = async (contextId: string) => (await store.list(scope, { contextId, pageSize: 10 })).tasks.map((t) => t.id).sort();
    await store.save(scope, makeTask('old', { contextId: 'ctx', state: 'TASK_STATE_COMPLETED' }), 1, 0);
    await store.save(scope, makeTask('new', { contextId: 'ctx', state: 'TASK_STATE_COMPLETED' }), 1, 0); // evicts 'old'
    await store.save(scope, makeTask('moving', { contextId: 'ctx' }), 1, 0);
    await store.save(scope, makeTask('moving', { contextId: 'elsewhere' }), 2, 1);
    expect(await inContext('ctx')).toEqual(['new']);
    expect(await inContext('elsewhere')).toEqual(['moving']);
    expect((await store.list({ ...scope, subject: 'bob' }, { contextId: 'ctx', pageSize: 10 })).totalSize).toBe(0);
    // a context of one task, and one emptied by eviction
    await store.save(scope, makeTask('solo', { contextId: 'lonely', state: 'TASK_STATE_COMPLETED' }), 1, 0); // evicts 'new'
    expect(await inContext('ctx')).toEqual([]);
    expect(await inContext('lonely')).toEqual(['solo']);
    await store.save(scope, makeTask('second', { contextId: 'ctx' }), 1, 0);
    expect(await inContext('ctx')).toEqual(['second']);
    store.close();
  });
});

describe('InMemoryTaskStore ids and contexts', () => {
  it('keeps tasks and contexts whose ids are names an object has of its own (its tables are prototype-less)', async () => {
    const scope: TaskScope = { agent: 'agent', tenant: '', subject: 'alice' };
    const store = new InMemoryTaskStore();
    const odd = ['__proto__', 'constructor', 'toString', '42'];
    for (const id of odd) await store.save(scope, makeTask(id, { contextId: id }), 1, 0);
    for (const id of odd) {
      expect((await store.get(scope, id))?.task.id).toBe(id);
      expect((await store.list(scope, { contextId: id, pageSize: 10 })).tasks.map((t) => t.id)).toEqual([id]);
    }
    expect((await store.list(scope, { pageSize: 10 })).totalSize).toBe(odd.length);
    expect(await store.get(scope, 'hasOwnProperty')).toBeUndefined();
    store.close();
  });
});

describe('InMemoryTaskStore byte budget and interrupted tasks', () => {
  const alice: TaskScope = { agent: 'agent', tenant: '', subject: 'alice' };
  const bob: TaskScope = { agent: 'agent', tenant: '', subject: 'bob' };
  /** About 10 kB of JSON a task. */
  const TEXT = 'x'.repeat(10_000);
  const KB = 1024;
  let store: InMemoryTaskStore | undefined;

  afterEach(() => {
    store?.close();
    store = undefined;
    jest.useRealTimers();
  });

  async function put(scope: TaskScope, id: string, state: TaskState): Promise<void> {
    await store!.save(scope, makeTask(id, { state, text: TEXT }), 1, 0);
  }

  async function present(scope: TaskScope, ...ids: string[]): Promise<string[]> {
    const found: string[] = [];
    for (const id of ids) if (await store!.get(scope, id)) found.push(id);
    return found;
  }

  it('counts what it stores, per caller and overall, and frees it when a task goes', async () => {
    store = new InMemoryTaskStore({ ttlMs: 60_000, maxTerminalTasks: 1 });
    await put(alice, 'a1', 'TASK_STATE_COMPLETED');
    await put(bob, 'b1', 'TASK_STATE_WORKING');
    expect(store.storedBytes(alice)).toBeGreaterThan(10_000);
    expect(store.storedBytes(alice)).toBeLessThan(11_000);
    expect(store.storedBytes()).toBe(store.storedBytes(alice) + store.storedBytes(bob));
    await put(alice, 'a2', 'TASK_STATE_COMPLETED'); // maxTerminalTasks 1: a1 goes
    expect(await present(alice, 'a1', 'a2')).toEqual(['a2']);
    expect(store.storedBytes()).toBe(store.storedBytes(alice) + store.storedBytes(bob));
    expect(store.storedBytes(alice)).toBeLessThan(11_000);
  });

  it("makes room for a caller by letting its own finished tasks go, oldest first, never another caller's", async () => {
    store = new InMemoryTaskStore({ ttlMs: 60_000, maxTerminalTasks: 100, budget: { maxBytes: 1000 * KB, maxBytesPerCaller: 50 * KB } });
    for (const id of ['a1', 'a2', 'a3', 'a4']) await put(alice, id, 'TASK_STATE_COMPLETED');
    await put(bob, 'b1', 'TASK_STATE_COMPLETED');
    await store.admit(alice, 30 * KB);
    expect(await present(alice, 'a1', 'a2', 'a3', 'a4')).toEqual(['a3', 'a4']);
    expect(await present(bob, 'b1')).toEqual(['b1']);
    expect(store.storedBytes(alice) + 30 * KB).toBeLessThanOrEqual(50 * KB);
  });

  it('makes room overall by letting anyone’s finished tasks go, oldest first', async () => {
    store = new InMemoryTaskStore({ ttlMs: 60_000, maxTerminalTasks: 100, budget: { maxBytes: 50 * KB, maxBytesPerCaller: 50 * KB } });
    await put(bob, 'b1', 'TASK_STATE_COMPLETED');
    await put(alice, 'a1', 'TASK_STATE_COMPLETED');
    await put(bob, 'b2', 'TASK_STATE_WORKING');
    await store.admit(alice, 25 * KB);
    expect(await present(bob, 'b1', 'b2')).toEqual(['b2']);
    expect(await present(alice, 'a1')).toEqual(['a1']);
  });

  it('refuses with 429 and Retry-After when running and interrupted tasks fill the budget', async () => {
    store = new InMemoryTaskStore({ ttlMs: 60_000, maxTerminalTasks: 100, budget: { maxBytes: 1000 * KB, maxBytesPerCaller: 35 * KB } });
    await put(alice, 'w', 'TASK_STATE_WORKING');
    await put(alice, 'i', 'TASK_STATE_INPUT_REQUIRED');
    await put(alice, 'r', 'TASK_STATE_AUTH_REQUIRED');
    const refusal = await rejectionOf(store.admit(alice, 10 * KB));
    expect(refusal).toBeInstanceOf(ResourceExhaustedError);
    expect((refusal as ResourceExhaustedError).httpStatus).toBe(429);
    expect((refusal as ResourceExhaustedError).metadata.retryAfterSeconds).toBe('30');
    expect(await present(alice, 'w', 'i', 'r')).toEqual(['w', 'i', 'r']); // nothing unfinished is dropped for room
    await expect(store.admit(bob, 10 * KB)).resolves.toBeUndefined(); // another caller is not affected
  });

  it('keeps the whole store within its budget when agents write more, letting finished tasks go', async () => {
    store = new InMemoryTaskStore({ ttlMs: 60_000, maxTerminalTasks: 100, budget: { maxBytes: 45 * KB, maxBytesPerCaller: 45 * KB } });
    for (const id of ['a1', 'a2', 'a3', 'a4']) await put(alice, id, 'TASK_STATE_COMPLETED');
    await store.save(alice, makeTask('big', { state: 'TASK_STATE_WORKING', text: 'y'.repeat(20_000) }), 1, 0);
    expect(store.storedBytes()).toBeLessThanOrEqual(45 * KB);
    expect(await present(alice, 'a1', 'a2', 'a3', 'a4', 'big')).toEqual(['a3', 'a4', 'big']);
  });

  it('drops an interrupted task left without a message for interruptedTtlMs, and tells its listeners', async () => {
    jest.useFakeTimers();
    store = new InMemoryTaskStore({ ttlMs: 1000, maxTerminalTasks: 100, interruptedTtlMs: 5000 });
    const dropped: string[] = [];
    store.onDrop((id) => dropped.push(id));
    await put(alice, 'waiting', 'TASK_STATE_INPUT_REQUIRED');
    await put(alice, 'auth', 'TASK_STATE_AUTH_REQUIRED');
    await put(alice, 'continued', 'TASK_STATE_INPUT_REQUIRED');
    await put(alice, 'working', 'TASK_STATE_WORKING');
    jest.advanceTimersByTime(3000);
    // a write while interrupted does not restart the clock; a new turn (WORKING) stops it
    await store.save(alice, makeTask('waiting', { state: 'TASK_STATE_INPUT_REQUIRED', text: 'more' }), 2, 1);
    await store.save(alice, makeTask('continued', { state: 'TASK_STATE_WORKING' }), 2, 1);
    jest.advanceTimersByTime(2500);
    expect(await present(alice, 'waiting', 'auth', 'continued', 'working')).toEqual(['continued', 'working']);
    expect(dropped.sort()).toEqual(['auth', 'waiting']);
    // what is left: `working` (about 10 kB) and the small `continued`
    expect(store.storedBytes(alice)).toBeGreaterThan(10_000);
    expect(store.storedBytes(alice)).toBeLessThan(11_000);
  });
});
