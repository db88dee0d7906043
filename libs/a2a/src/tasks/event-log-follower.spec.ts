/**
 * `nextTo`: both logs' followers hand the next event to a receiver that waits as itself (issue 14:
 * a waiting stream holds no promise), on a real Redis for the Redis log.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import type { EventLog, LoggedEvent } from './event-log.js';
import { DONE, type ReceivingIterator, type ResultReceiver } from './event-log-follower.js';
import { InMemoryEventLog } from './in-memory/in-memory-event-log.js';
import { RedisEventLog } from './redis/redis-event-log.js';
import { statusEvent, textOf } from '../testing/event-log.contract.js';
import { connectClient, redisOfSpec } from '../redis/testing/redis-test-support.js';
import { waitUntil } from '../testing/wait-until.js';

const redis = redisOfSpec();

/** What a receiver was given, in order; `inAppend` is true while the test's call to append runs. */
class Receiver implements ResultReceiver<LoggedEvent> {
  readonly got: Array<IteratorResult<LoggedEvent> | { failed: unknown }> = [];
  givenDuringAppend = false;
  inAppend = false;

  receive(result: IteratorResult<LoggedEvent>): void {
    this.givenDuringAppend ||= this.inAppend;
    this.got.push(result);
  }

  fail(error: unknown): void {
    this.got.push({ failed: error });
  }
}

const texts = (results: ReadonlyArray<IteratorResult<LoggedEvent> | { failed: unknown } | undefined>) =>
  results.map((r) => (r && 'done' in r ? (r.done ? 'done' : textOf(r.value)) : r));

describe.each([
  { name: 'in memory', redis: false },
  { name: 'Redis', redis: true },
])('EventLogFollower.nextTo, $name', ({ redis: onRedis }) => {
  const closing: Array<() => unknown> = [];
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });

  async function makeLog(): Promise<EventLog & { close(): unknown }> {
    if (!onRedis) {
      const log = new InMemoryEventLog();
      closing.push(() => log.close());
      return log;
    }
    const commands: Redis = await connectClient();
    const log = new RedisEventLog(commands, { keyPrefix: redis.prefix, retention: { ttlMs: 60_000, maxTerminalTasks: 100 } });
    closing.push(async () => {
      await log.close();
      commands.disconnect();
    });
    return log;
  }

  async function append(log: EventLog, receiver: Receiver, taskId: string, text: string, after: number): Promise<number> {
    // flagged for the call itself: a receiver is given its event later, not from within the log's own code
    receiver.inAppend = true;
    const appended = log.append(taskId, statusEvent(taskId, text), after);
    receiver.inAppend = false;
    return appended;
  }

  /** A log of a task with one event ('a'), and a follow of it after `afterSeq`, with a receiver for it. */
  async function followingOneEvent(afterSeq: number) {
    const log = await makeLog();
    const taskId = `t-${randomUUID()}`;
    const receiver = new Receiver();
    await append(log, receiver, taskId, 'a', 0);
    const follower = log.follow(taskId, afterSeq) as unknown as ReceivingIterator<LoggedEvent> & AsyncIterator<LoggedEvent>;
    return { log, taskId, receiver, follower };
  }

  it('gives an event that is there at once, then waits as the receiver and is given the next append, never from within it', async () => {
    const { log, taskId, receiver, follower } = await followingOneEvent(0);
    const first = await waitUntilGiven(follower, receiver);
    expect(texts([first])).toEqual(['a']);

    expect(follower.nextTo(receiver)).toBeUndefined();
    await append(log, receiver, taskId, 'b', 1);
    await waitUntil(() => receiver.got.length === 1);
    expect(texts(receiver.got)).toEqual(['b']);
    expect(receiver.givenDuringAppend).toBe(false);
    await follower.return!();
  });

  it('gives a waiting receiver done when the follow is ended by return()', async () => {
    const { receiver, follower } = await followingOneEvent(1);
    expect(follower.nextTo(receiver)).toBeUndefined();
    expect(receiver.got).toEqual([]);
    await follower.return!();
    await waitUntil(() => receiver.got.length === 1);
    expect(receiver.got).toEqual([DONE]);
    expect(follower.nextTo(receiver)).toEqual(DONE);
  });

  it('a next() asked while a receiver waits comes after it, in order', async () => {
    const { log, taskId, receiver, follower } = await followingOneEvent(1);
    expect(follower.nextTo(receiver)).toBeUndefined();
    const asked = follower.next();
    await append(log, receiver, taskId, 'b', 1);
    await append(log, receiver, taskId, 'c', 2);
    const after = await asked;
    expect(texts(receiver.got)).toEqual(['b']);
    expect(texts([after])).toEqual(['c']);
    await follower.return!();
  });
});

/** The follower's next result through `nextTo`, now or once given (a Redis follower may read first). */
async function waitUntilGiven(follower: ReceivingIterator<LoggedEvent>, receiver: Receiver): Promise<IteratorResult<LoggedEvent>> {
  const now = follower.nextTo(receiver);
  if (now) return now;
  await waitUntil(() => receiver.got.length > 0);
  return receiver.got.shift() as IteratorResult<LoggedEvent>;
}
