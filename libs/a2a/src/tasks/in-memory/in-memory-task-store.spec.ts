import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { TaskState } from '../../protocol/types.js';
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
