import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { StreamResponse, TaskState } from '../../protocol/types.js';
import { waitUntil } from '../../testing/wait-until.js';
import { ConcurrentTaskUpdateError } from '../task-store.js';
import { InMemoryEventLog } from './in-memory-event-log.js';
import { statusEvent } from '../../testing/event-log.contract.js';

function stateEvent(taskId: string, state: TaskState): StreamResponse {
  return { statusUpdate: { taskId, contextId: 'ctx', status: { state } } };
}

describe('InMemoryEventLog retention', () => {
  let log: InMemoryEventLog | undefined;

  afterEach(() => {
    log?.close();
    log = undefined;
    jest.useRealTimers();
  });

  /** Does the log of `taskId` still exist? A dropped log takes a fresh first append (expectedSeq 0) again. */
  async function exists(taskId: string): Promise<boolean> {
    try {
      await log!.append(taskId, statusEvent(taskId, 'probe'), 0);
    } catch (error) {
      if (error instanceof ConcurrentTaskUpdateError) return true;
      throw error;
    }
    return false;
  }

  async function logOf(taskId: string, ...states: TaskState[]): Promise<void> {
    let seq = 0;
    for (const state of states) seq = await log!.append(taskId, stateEvent(taskId, state), seq);
  }

  it('drops the log of a finished task after the ttl, never the log of an unfinished one', async () => {
    jest.useFakeTimers();
    log = new InMemoryEventLog({ ttlMs: 1000, maxTerminalTasks: 100 });
    await logOf('done', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED');
    await logOf('waiting', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED');
    await logOf('working', 'TASK_STATE_WORKING');

    jest.advanceTimersByTime(900);
    expect(await exists('done')).toBe(true);
    jest.advanceTimersByTime(1200);
    expect(await exists('done')).toBe(false);
    jest.advanceTimersByTime(10 * 60 * 60 * 1000);
    expect(await exists('waiting')).toBe(true);
    expect(await exists('working')).toBe(true);
  });

  it('keeps at most maxTerminalTasks finished logs, dropping the oldest first', async () => {
    log = new InMemoryEventLog({ ttlMs: 60_000, maxTerminalTasks: 2 });
    await logOf('running', 'TASK_STATE_WORKING');
    await logOf('t1', 'TASK_STATE_FAILED');
    await logOf('t2', 'TASK_STATE_WORKING', 'TASK_STATE_CANCELED');
    await logOf('t3', 'TASK_STATE_COMPLETED');
    expect(await exists('t1')).toBe(false);
    expect(await exists('t2')).toBe(true);
    expect(await exists('t3')).toBe(true);
    expect(await exists('running')).toBe(true);
  });

  it('drops with a real timer too (short ttl, real wait)', async () => {
    log = new InMemoryEventLog({ ttlMs: 30, maxTerminalTasks: 100 });
    await logOf('done', 'TASK_STATE_COMPLETED');
    await logOf('working', 'TASK_STATE_WORKING');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await exists('done')).toBe(false);
    expect(await exists('working')).toBe(true);
  });
});

describe('InMemoryEventLog.drop', () => {
  it('forgets the log and ends whoever follows it', async () => {
    const log = new InMemoryEventLog();
    try {
      await log.append('t', statusEvent('t', 'one'), 0);
      const seen: number[] = [];
      const following = (async () => {
        for await (const { seq } of log.follow('t', 0, new AbortController().signal)) seen.push(seq);
      })();
      await waitUntil(() => seen.length === 1);
      log.drop('t');
      await following; // ends instead of waiting for an event that will never come
      expect(seen).toEqual([1]);
      expect(await log.append('t', statusEvent('t', 'again'), 0)).toBe(1); // the id starts afresh
    } finally {
      log.close();
    }
  });
});

describe('InMemoryEventLog.waitingFollowers', () => {
  it('counts the followers waiting for an append, and none once they stopped', async () => {
    const log = new InMemoryEventLog();
    await log.append('t', stateEvent('t', 'TASK_STATE_WORKING'), 0);
    const stop = new AbortController();
    const followers = [0, 1, 1].map(async (after) => {
      for await (const _event of log.follow('t', after, stop.signal)) void _event;
    });
    await waitUntil(() => log.waitingFollowers === 3);
    expect(log.waitingFollowers).toBe(3);
    stop.abort();
    await Promise.all(followers);
    expect(log.waitingFollowers).toBe(0);
    log.close();
  });
});

describe('InMemoryEventLog waiters', () => {
  it('holds a set of waiting followers only while one waits: a kept log holds none once its streams took their events or left', async () => {
    const log = new InMemoryEventLog();
    try {
      await log.append('t', stateEvent('t', 'TASK_STATE_WORKING'), 0);
      expect(log.logOf('t').waiters).toBeUndefined(); // nobody ever followed it
      const taken: number[] = [];
      const reading = (async () => {
        for await (const { seq } of log.follow('t', 0)) {
          taken.push(seq);
          if (seq === 2) break; // as a stream ends at the task's final state
        }
      })();
      await waitUntil(() => log.waitingFollowers === 1);
      await log.append('t', stateEvent('t', 'TASK_STATE_COMPLETED'), 1);
      await reading;
      expect(taken).toEqual([1, 2]);
      expect(log.logOf('t').waiters).toBeUndefined();

      // a follower that leaves while it waits takes its set with it
      await log.append('u', stateEvent('u', 'TASK_STATE_WORKING'), 0);
      const leaving = log.follow('u', 1)[Symbol.asyncIterator]();
      const waiting = leaving.next();
      expect(log.waitingFollowers).toBe(1);
      await leaving.return!();
      expect(await waiting).toEqual({ done: true, value: undefined });
      expect(log.logOf('u').waiters).toBeUndefined();
    } finally {
      log.close();
    }
  });
});

describe('InMemoryEventLog.follow, return()', () => {
  it('ends a follower that waits for an append at once (a generator would wait for that append), leaving no waiter behind', async () => {
    const log = new InMemoryEventLog();
    try {
      const follower = log.follow('never-started', 0, new AbortController().signal)[Symbol.asyncIterator]();
      const waiting = follower.next();
      expect(log.waitingFollowers).toBe(1);
      expect(await follower.return!()).toEqual({ done: true, value: undefined });
      expect(await waiting).toEqual({ done: true, value: undefined });
      expect(log.waitingFollowers).toBe(0);
      expect(await follower.next()).toEqual({ done: true, value: undefined });
    } finally {
      log.close();
    }
  });

  it('answers a next() asked while another waits after it, in order', async () => {
    const log = new InMemoryEventLog();
    try {
      const follower = log.follow('t', 0, new AbortController().signal)[Symbol.asyncIterator]();
      const first = follower.next();
      const second = follower.next();
      await log.append('t', statusEvent('t', 'one'), 0);
      await log.append('t', statusEvent('t', 'two'), 1);
      expect([(await first).value?.seq, (await second).value?.seq]).toEqual([1, 2]);
      await follower.return!();
    } finally {
      log.close();
    }
  });
});
