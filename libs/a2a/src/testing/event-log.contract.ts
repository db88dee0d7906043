/**
 * The behaviour every {@link EventLog} must have, as a reusable jest suite. Each implementation's
 * spec calls {@link describeEventLogContract} with a factory; the Redis log runs the same tests.
 *
 * Every test uses task ids of its own, so a factory may hand out logs that share a backend.
 * Followers are bounded by a deadline: a broken implementation fails an assertion instead of
 * hanging the suite.
 */
import { randomUUID } from 'node:crypto';
import { testGlobals } from './test-globals.js';
import { waitUntil } from './wait-until.js';
import type { StreamResponse } from '../protocol/types.js';
import type { EventLog, LoggedEvent } from '../tasks/event-log.js';
import { ConcurrentTaskUpdateError } from '../tasks/task-store.js';

export interface EventLogUnderTest {
  log: EventLog;
  close(): Promise<void>;
}

/** How long a follower may wait for an event it expects before the test gives up on it. */
const DEADLINE_MS = 2000;

/** A WORKING status update carrying `text`, so events are told apart by content. */
export function statusEvent(taskId: string, text: string): StreamResponse {
  return {
    statusUpdate: {
      taskId,
      contextId: 'ctx-1',
      status: {
        state: 'TASK_STATE_WORKING',
        message: { messageId: `m-${text}`, role: 'ROLE_AGENT', parts: [{ text }] },
        timestamp: '2030-01-01T00:00:00.000Z',
      },
    },
  };
}

/** The status message text of a logged event made by {@link statusEvent}. */
export function textOf(logged: LoggedEvent): string | undefined {
  return 'statusUpdate' in logged.event ? logged.event.statusUpdate.status.message?.parts[0].text : undefined;
}

/** Yields to the event loop so that pending I/O and timers (a follower subscribing) can run. */
function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `promise`'s value, or 'still running' when it has not settled within the deadline. */
async function withinDeadline<T>(promise: Promise<T>): Promise<T | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((resolve) => {
    timer = setTimeout(() => resolve('still running'), DEADLINE_MS);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Follows `taskId` until `count` events arrived (or `deadlineMs` passed), then stops following; `controller` stops it early. */
export function collect(
  log: EventLog,
  taskId: string,
  afterSeq: number,
  count: number,
  deadlineMs = DEADLINE_MS,
): { done: Promise<LoggedEvent[]>; controller: AbortController } {
  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(new Error('deadline')), deadlineMs);
  const done = (async () => {
    const received: LoggedEvent[] = [];
    try {
      for await (const logged of log.follow(taskId, afterSeq, controller.signal)) {
        received.push(logged);
        if (received.length >= count) break;
      }
      return received;
    } finally {
      clearTimeout(deadline);
      controller.abort();
    }
  })();
  return { done, controller };
}

export function describeEventLogContract(name: string, create: () => Promise<EventLogUnderTest>): void {
  const { afterEach, beforeEach, describe, expect, it } = testGlobals();
  describe(`EventLog contract: ${name}`, () => {
    let subject: EventLogUnderTest;
    let log: EventLog;
    let prefix: string;

    beforeEach(async () => {
      subject = await create();
      log = subject.log;
      prefix = `t-${randomUUID()}-`;
    });

    afterEach(async () => {
      await subject.close();
    });

    async function appendAll(taskId: string, texts: string[], after = 0): Promise<number[]> {
      const seqs: number[] = [];
      let last = after;
      for (const text of texts) {
        last = await log.append(taskId, statusEvent(taskId, text), last);
        seqs.push(last);
      }
      return seqs;
    }

    describe('append', () => {
      it('numbers events gaplessly from 1, each append returning expectedSeq + 1', async () => {
        const id = `${prefix}1`;
        expect(await appendAll(id, ['a', 'b', 'c', 'd'])).toEqual([1, 2, 3, 4]);
      });

      it('numbers each task on its own', async () => {
        expect(await appendAll(`${prefix}1`, ['a', 'b'])).toEqual([1, 2]);
        expect(await appendAll(`${prefix}2`, ['x'])).toEqual([1]);
        expect(await log.append(`${prefix}1`, statusEvent(`${prefix}1`, 'c'), 2)).toBe(3);
      });

      it.each([
        ['a stale expectedSeq', 1],
        ['an expectedSeq ahead of the log', 5],
        ['expectedSeq 0 on an existing log', 0],
      ])('refuses %s with ConcurrentTaskUpdateError and appends nothing', async (_label, expectedSeq) => {
        const id = `${prefix}1`;
        await appendAll(id, ['a', 'b']);
        const attempt = log.append(id, statusEvent(id, 'intruder'), expectedSeq);
        await expect(attempt).rejects.toBeInstanceOf(ConcurrentTaskUpdateError);
        await expect(attempt).rejects.toMatchObject({ taskId: id });
        // the log did not move: the next correct append is seq 3, and nothing else is in it
        expect(await log.append(id, statusEvent(id, 'c'), 2)).toBe(3);
        const replay = await collect(log, id, 0, 3).done;
        expect(replay.map(textOf)).toEqual(['a', 'b', 'c']);
      });

      it('refuses expectedSeq > 0 on a log that does not exist', async () => {
        const id = `${prefix}ghost`;
        await expect(log.append(id, statusEvent(id, 'a'), 1)).rejects.toBeInstanceOf(ConcurrentTaskUpdateError);
        expect(await log.append(id, statusEvent(id, 'a'), 0)).toBe(1);
      });

      it('lets exactly one of two racing writers with the same expectedSeq win', async () => {
        const id = `${prefix}1`;
        await appendAll(id, ['a']);
        const results = await Promise.allSettled([log.append(id, statusEvent(id, 'x'), 1), log.append(id, statusEvent(id, 'y'), 1)]);
        expect(results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<number>).value)).toEqual([2]);
        const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
        expect(lost).toHaveLength(1);
        expect(lost[0].reason).toBeInstanceOf(ConcurrentTaskUpdateError);
      });

      it('stores the event as given', async () => {
        const id = `${prefix}1`;
        const event: StreamResponse = {
          artifactUpdate: {
            taskId: id,
            contextId: 'ctx-1',
            artifact: { artifactId: 'art-1', name: 'out', parts: [{ text: 'chunk' }, { data: { n: 1, ok: true } }] },
            append: true,
            lastChunk: true,
          },
        };
        await log.append(id, event, 0);
        const [logged] = await collect(log, id, 0, 1).done;
        expect(logged).toEqual({ seq: 1, event });
      });
    });

    describe('follow', () => {
      it('replays the events after afterSeq, then live appends, in order', async () => {
        const id = `${prefix}1`;
        await appendAll(id, ['a', 'b', 'c']);
        const follower = collect(log, id, 1, 4);
        await tick(20);
        await appendAll(id, ['d', 'e'], 3);
        const received = await follower.done;
        expect(received.map((e) => e.seq)).toEqual([2, 3, 4, 5]);
        expect(received.map(textOf)).toEqual(['b', 'c', 'd', 'e']);
      });

      it('replays everything from afterSeq 0', async () => {
        const id = `${prefix}1`;
        await appendAll(id, ['a', 'b']);
        const received = await collect(log, id, 0, 2).done;
        expect(received.map((e) => [e.seq, textOf(e)])).toEqual([
          [1, 'a'],
          [2, 'b'],
        ]);
      });

      it('waits for live events when afterSeq is the last seq', async () => {
        const id = `${prefix}1`;
        await appendAll(id, ['a', 'b']);
        const follower = collect(log, id, 2, 1);
        await tick(20);
        await log.append(id, statusEvent(id, 'c'), 2);
        expect((await follower.done).map((e) => [e.seq, textOf(e)])).toEqual([[3, 'c']]);
      });

      it('delivers appends made in a burst without losing or reordering any', async () => {
        const id = `${prefix}1`;
        const texts = Array.from({ length: 25 }, (_, i) => `e${i}`);
        const follower = collect(log, id, 0, texts.length);
        await tick(20);
        await appendAll(id, texts);
        const received = await follower.done;
        expect(received.map((e) => e.seq)).toEqual(texts.map((_, i) => i + 1));
        expect(received.map(textOf)).toEqual(texts);
      });

      it('gives several concurrent followers the same events in the same order', async () => {
        const id = `${prefix}1`;
        await appendAll(id, ['a']);
        const followers = [collect(log, id, 0, 6), collect(log, id, 0, 6), collect(log, id, 0, 6)];
        await tick(20);
        await appendAll(id, ['b', 'c'], 1);
        // a late follower joins in the middle and still sees the whole log
        followers.push(collect(log, id, 0, 6));
        await tick(5);
        await appendAll(id, ['d', 'e', 'f'], 3);
        const all = await Promise.all(followers.map((f) => f.done));
        const expected = [
          [1, 'a'],
          [2, 'b'],
          [3, 'c'],
          [4, 'd'],
          [5, 'e'],
          [6, 'f'],
        ];
        for (const received of all) expect(received.map((e) => [e.seq, textOf(e)])).toEqual(expected);
      });

      it('stopping one follower does not disturb the others', async () => {
        const id = `${prefix}1`;
        const quitter = collect(log, id, 0, 10);
        const stayer = collect(log, id, 0, 3);
        await tick(20);
        await appendAll(id, ['a']);
        await tick(20);
        quitter.controller.abort();
        expect((await quitter.done).map(textOf)).toEqual(['a']);
        await appendAll(id, ['b', 'c'], 1);
        expect((await stayer.done).map(textOf)).toEqual(['a', 'b', 'c']);
      });

      it('ends the iteration quietly when the signal aborts while waiting', async () => {
        const id = `${prefix}1`;
        await appendAll(id, ['a']);
        const controller = new AbortController();
        const received: LoggedEvent[] = [];
        const iteration = (async () => {
          for await (const logged of log.follow(id, 0, controller.signal)) received.push(logged);
          return 'ended';
        })();
        await waitUntil(() => received.length === 1);
        expect(received.map(textOf)).toEqual(['a']);
        controller.abort();
        expect(await withinDeadline(iteration)).toBe('ended');
        // appends after the abort reach nobody and still work
        expect(await log.append(id, statusEvent(id, 'b'), 1)).toBe(2);
        expect(received).toHaveLength(1);
      });

      it('ends the iteration quietly when the signal aborts between events', async () => {
        const id = `${prefix}1`;
        await appendAll(id, ['a', 'b', 'c']);
        const controller = new AbortController();
        const received: LoggedEvent[] = [];
        const iteration = (async () => {
          for await (const logged of log.follow(id, 0, controller.signal)) {
            received.push(logged);
            controller.abort();
          }
          return 'ended';
        })();
        expect(await withinDeadline(iteration)).toBe('ended');
        // the abort may land before or after events already fetched, but it ends the iteration
        expect(received.length).toBeGreaterThanOrEqual(1);
        expect(received.length).toBeLessThanOrEqual(3);
        expect(received.map(textOf)).toEqual(['a', 'b', 'c'].slice(0, received.length));
      });

      it('ends quietly for a signal that is already aborted', async () => {
        const id = `${prefix}1`;
        const controller = new AbortController();
        controller.abort();
        const received: LoggedEvent[] = [];
        const iteration = (async () => {
          for await (const logged of log.follow(id, 0, controller.signal)) received.push(logged);
          return 'ended';
        })();
        expect(await withinDeadline(iteration)).toBe('ended');
        expect(received).toEqual([]);
      });

      it('with followEndsOnReturn: follows with no signal, and return() ends a waiting follow at once', async () => {
        if (!log.followEndsOnReturn) return; // such a log is always given a signal (EventLog.followEndsOnReturn)
        const id = `${prefix}1`;
        await appendAll(id, ['a']);
        const iterator = log.follow(id, 0)[Symbol.asyncIterator]();
        const first = await withinDeadline(iterator.next());
        expect(first !== 'still running' && !first.done && textOf(first.value)).toBe('a');
        const live = iterator.next();
        await tick(20);
        await appendAll(id, ['b'], 1);
        const second = await withinDeadline(live);
        expect(second !== 'still running' && !second.done && textOf(second.value)).toBe('b');
        const waiting = iterator.next();
        await tick(20);
        expect(await withinDeadline(iterator.return!())).toEqual({ done: true, value: undefined });
        // at once: not at the next append
        expect(await withinDeadline(waiting)).toEqual({ done: true, value: undefined });
        expect(await log.append(id, statusEvent(id, 'c'), 2)).toBe(3);
        expect(await withinDeadline(iterator.next())).toEqual({ done: true, value: undefined });
      });

      it('waits for the first append of a log that does not exist yet', async () => {
        const id = `${prefix}new`;
        const follower = collect(log, id, 0, 2);
        await tick(20);
        expect(await log.append(id, statusEvent(id, 'first'), 0)).toBe(1);
        await log.append(id, statusEvent(id, 'second'), 1);
        expect((await follower.done).map((e) => [e.seq, textOf(e)])).toEqual([
          [1, 'first'],
          [2, 'second'],
        ]);
      });

      it('a follower that gave up on a log that never started does not block its creation', async () => {
        const id = `${prefix}never`;
        const follower = collect(log, id, 0, 1);
        await tick(20);
        follower.controller.abort();
        expect(await follower.done).toEqual([]);
        expect(await log.append(id, statusEvent(id, 'a'), 0)).toBe(1);
        expect((await collect(log, id, 0, 1).done).map(textOf)).toEqual(['a']);
      });
    });
  });
}
