import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import type { StreamResponse } from '../../protocol/types.js';
import type { LoggedEvent } from '../event-log.js';
import { ConcurrentTaskUpdateError } from '../task-store.js';
import { collect, statusEvent, textOf } from '../../testing/event-log.contract.js';
import { RedisEventLog } from './redis-event-log.js';
import { connectClient, connectionsNamed, redisOfSpec, sleep, unreachableClient } from '../../redis/testing/redis-test-support.js';
import { waitUntil } from '../../testing/wait-until.js';

const RETENTION = { ttlMs: 60 * 60 * 1000, maxTerminalTasks: 10_000 };
const redis = redisOfSpec();
const { prefix } = redis;

/** Follows until `count` events arrived or 5 s passed (the reader may need a moment under load). */
// a safety net, not a bound under test: 10,000 followers on a loaded machine can take seconds
const follow = (log: RedisEventLog, taskId: string, afterSeq: number, count: number) => collect(log, taskId, afterSeq, count, 20_000);

async function appendTexts(log: RedisEventLog, taskId: string, texts: string[], after = 0): Promise<number> {
  let seq = after;
  for (const text of texts) seq = await log.append(taskId, statusEvent(taskId, text), seq);
  return seq;
}

const seqs = (events: LoggedEvent[]) => events.map((e) => e.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('RedisEventLog', () => {
  const logs: RedisEventLog[] = [];
  const clients: Redis[] = [];
  const taskId = () => `t-${randomUUID()}`;

  async function instance(name = `a2a-test-${randomUUID()}`): Promise<{ log: RedisEventLog; commands: Redis; name: string }> {
    const commands = await connectClient(name);
    const log = new RedisEventLog(commands, { keyPrefix: prefix, retention: RETENTION });
    logs.push(log);
    clients.push(commands);
    return { log, commands, name };
  }

  afterEach(async () => {
    await Promise.all(logs.splice(0).map((log) => log.close()));
    for (const c of clients.splice(0)) c.disconnect();
  });

  it('serves many followers of many tasks with two connections: commands and one blocking reader', async () => {
    const { log, name } = await instance();
    // 10,000 followers: 100 tasks with 100 each, the second half joining while the reader blocks
    const tasks = Array.from({ length: 100 }, taskId);
    const join = (ids: string[]) => ids.flatMap((id) => Array.from({ length: 100 }, () => follow(log, id, 0, 3)));
    const followers = join(tasks.slice(0, 50));
    await sleep(50);
    followers.push(...join(tasks.slice(50)));
    // under load the reader may need a moment to re-issue its read: wait for it, don't guess
    const blocked = async () => {
      const found = await connectionsNamed(redis.client, name);
      const reader = found.find((c) => c.name.endsWith(':a2a-event-reader'));
      return log.followedLogs === 100 && reader?.cmd === 'xread' && reader.flags.includes('b') ? found : undefined;
    };
    let connections: Awaited<ReturnType<typeof blocked>>;
    await waitUntil(async () => (connections = await blocked()) !== undefined, { intervalMs: 20 });
    expect(log.followedLogs).toBe(100);

    // while they wait, the reader is blocked in XREAD, not polling
    expect(connections).toHaveLength(2);
    expect(connections!.map((c) => c.name).sort()).toEqual([name, `${name}:a2a-event-reader`]);

    await Promise.all(tasks.map((id) => appendTexts(log, id, ['a', 'b', 'c'])));
    for (const follower of followers) expect(seqs(await follower.done)).toEqual([1, 2, 3]);
    expect(await connectionsNamed(redis.client, name)).toHaveLength(2);
    // every follower is gone, so is every followed log
    await waitUntil(() => log.followedLogs === 0, { intervalMs: 20 });
    expect(log.followedLogs).toBe(0);
  });

  it('starts reading a log followed while the reader is blocked on others', async () => {
    const { log } = await instance();
    const [first, second, third] = [taskId(), taskId(), taskId()];
    const one = follow(log, first, 0, 1);
    await sleep(30); // the reader now blocks on the first log alone
    const two = follow(log, second, 0, 1);
    await sleep(30);
    await appendTexts(log, second, ['only the re-issued read sees this']);
    expect(seqs(await two.done)).toEqual([1]);
    // and a follower that joins right before the append, with no pause at all
    const three = follow(log, third, 0, 1);
    await appendTexts(log, third, ['x']);
    expect(seqs(await three.done)).toEqual([1]);
    await appendTexts(log, first, ['y']);
    expect(seqs(await one.done)).toEqual([1]);
  });

  it('drops a task from the read set when its last follower stops, and still serves the others', async () => {
    const { log } = await instance();
    const [quiet, busy] = [taskId(), taskId()];
    const quitter = follow(log, quiet, 0, 100);
    const stayer = follow(log, busy, 0, 3);
    await sleep(30);
    expect(log.followedLogs).toBe(2);
    quitter.controller.abort();
    await quitter.done;
    await sleep(30);
    expect(log.followedLogs).toBe(1);
    await appendTexts(log, busy, ['a', 'b', 'c']);
    expect((await stayer.done).map(textOf)).toEqual(['a', 'b', 'c']);
  });

  it('ends a waiting follower at once on return() (a generator would wait for the next event) and stops reading its log', async () => {
    const { log } = await instance();
    const id = taskId();
    await appendTexts(log, id, ['a']);
    const follower = log.follow(id, 0, new AbortController().signal)[Symbol.asyncIterator]();
    expect(textOf((await follower.next()).value as LoggedEvent)).toBe('a');
    const waiting = follower.next();
    expect(log.followedLogs).toBe(1);
    expect(await follower.return!()).toEqual({ done: true, value: undefined });
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(log.followedLogs).toBe(0);
    await appendTexts(log, id, ['b'], 1);
    expect(await follower.next()).toEqual({ done: true, value: undefined });
  });

  it('gives followers joining mid-stream every event after their afterSeq exactly once, in order', async () => {
    const { log } = await instance();
    const id = taskId();
    const total = 120;
    const early = follow(log, id, 0, total);
    const joiners: Array<{ after: number; follower: ReturnType<typeof follow> }> = [];
    let seq = 0;
    for (let i = 1; i <= total; i++) {
      seq = await log.append(id, statusEvent(id, `e${i}`), seq);
      if (i % 10 === 0) {
        // some ask for events the reader has passed, some for events it has not read yet
        const after = Math.max(0, i - 15 + (i % 20));
        joiners.push({ after, follower: follow(log, id, after, total - after) });
      }
      if (i % 7 === 0) await sleep(1);
    }
    expect(seqs(await early.done)).toEqual(range(1, total));
    for (const { after, follower } of joiners) {
      const received = await follower.done;
      expect(seqs(received)).toEqual(range(after + 1, total));
      expect(received.map(textOf)).toEqual(range(after + 1, total).map((n) => `e${n}`));
    }
  });

  it('lets a slow follower read from the stream what it was not buffered, without gap or duplicate', async () => {
    const { log } = await instance();
    const id = taskId();
    const total = 1_500; // more than a follower buffers
    const controller = new AbortController();
    const iterator = log.follow(id, 0, controller.signal)[Symbol.asyncIterator]();
    const first = iterator.next();
    await sleep(30);
    await appendTexts(log, id, ['e1']);
    expect((await first).value).toMatchObject({ seq: 1 });
    // the follower takes nothing while the writer runs ahead
    await appendTexts(log, id, range(2, total).map((n) => `e${n}`), 1);
    await sleep(30);
    const rest: number[] = [];
    while (rest.length < total - 1) rest.push(((await iterator.next()).value as LoggedEvent).seq);
    expect(rest).toEqual(range(2, total));
    controller.abort();
    expect((await iterator.next()).done).toBe(true);
  });

  it('shares one log between two app instances: appends on one reach followers on the other, both ways', async () => {
    const a = await instance();
    const b = await instance();
    const id = taskId();
    const onA = follow(a.log, id, 0, 4);
    const onB = follow(b.log, id, 0, 4);
    await sleep(30);
    await a.log.append(id, statusEvent(id, 'from-a-1'), 0);
    await b.log.append(id, statusEvent(id, 'from-b-2'), 1);
    // the writers race through one Redis: the loser is refused whichever instance it runs on
    await expect(a.log.append(id, statusEvent(id, 'stale'), 1)).rejects.toBeInstanceOf(ConcurrentTaskUpdateError);
    await a.log.append(id, statusEvent(id, 'from-a-3'), 2);
    await b.log.append(id, statusEvent(id, 'from-b-4'), 3);
    const expected = ['from-a-1', 'from-b-2', 'from-a-3', 'from-b-4'];
    expect((await onA.done).map(textOf)).toEqual(expected);
    expect((await onB.done).map(textOf)).toEqual(expected);
    // a late follower on the other instance replays the whole log
    expect((await follow(b.log, id, 1, 3).done).map(textOf)).toEqual(expected.slice(1));
  });

  it('keeps following across a lost reader connection, without gap or duplicate', async () => {
    const { log, name } = await instance();
    const id = taskId();
    const follower = follow(log, id, 0, 6);
    await sleep(30);
    await appendTexts(log, id, ['a', 'b', 'c']);
    await sleep(30);
    const [reader] = await connectionsNamed(redis.client, `${name}:a2a-event-reader`);
    await redis.client.client('KILL', 'ID', String(reader.id));
    await appendTexts(log, id, ['d', 'e', 'f'], 3);
    expect((await follower.done).map(textOf)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(await connectionsNamed(redis.client, name)).toHaveLength(2);
  });

  it('sets the ttl of a log when it gets a terminal event, and only then', async () => {
    const { log } = await instance();
    const id = taskId();
    await appendTexts(log, id, ['a']);
    expect(await redis.client.pttl(`${prefix}log:${id}`)).toBe(-1);
    const done: StreamResponse = { statusUpdate: { taskId: id, contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } } };
    await log.append(id, done, 1);
    const ttl = await redis.client.pttl(`${prefix}log:${id}`);
    expect(ttl).toBeGreaterThan(RETENTION.ttlMs - 5000);
    expect(ttl).toBeLessThanOrEqual(RETENTION.ttlMs);
  });

  it('stores entries with the sequence number as the stream id', async () => {
    const { log } = await instance();
    const id = taskId();
    await appendTexts(log, id, ['a', 'b']);
    const entries = await redis.client.xrange(`${prefix}log:${id}`, '-', '+');
    expect(entries.map(([entryId]) => entryId)).toEqual(['1-0', '2-0']);
    expect(JSON.parse(entries[1][1][1])).toEqual(statusEvent(id, 'b'));
  });

  it('close() ends active followers quietly and promptly, and closes the reader connection only', async () => {
    const { log, commands, name } = await instance();
    const followers = Array.from({ length: 20 }, () => follow(log, taskId(), 0, 10));
    await sleep(30);
    expect(await connectionsNamed(redis.client, name)).toHaveLength(2);
    const started = Date.now();
    await log.close();
    expect(Date.now() - started).toBeLessThan(500);
    for (const f of followers) expect(await f.done).toEqual([]);
    await sleep(20);
    expect((await connectionsNamed(redis.client, name)).map((c) => c.name)).toEqual([name]);
    expect(await commands.ping()).toBe('PONG');
  });

  it('fails fast while Redis is unreachable, and close() returns while a follower waits', async () => {
    const down = unreachableClient();
    clients.push(down);
    const log = new RedisEventLog(down, { keyPrefix: prefix, retention: RETENTION });
    logs.push(log);
    const started = Date.now();
    await expect(log.append('t', statusEvent('t', 'a'), 0)).rejects.toThrow();
    const follower = follow(log, 't', 0, 1);
    await sleep(100); // the reader is trying to connect
    await log.close();
    expect(await follower.done).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
