/** The push outbox and cursors on a real Redis, under a key prefix of this spec's own. */
import { describe, expect, it } from '@jest/globals';
import { scopeKey } from '../redis/redis-keys.js';
import { redisOfSpec } from '../redis/testing/redis-test-support.js';
import type { TaskScope } from '../tasks/task-store.js';
import { RedisPushOutbox } from './push-outbox.js';

const redis = redisOfSpec();
const scope: TaskScope = { agent: 'echo', tenant: 't', subject: 'alice' };
const outbox = () => new RedisPushOutbox(redis.client, { keyPrefix: redis.prefix });
/** An advance by a run that holds no lease. */
const NO_LEASE = { holder: 'nobody', leaseMs: 1000, goOn: true };

describe('RedisPushOutbox', () => {
  it('marks a task due up to a seq, never lowering it, and reads it back with its scope', async () => {
    const box = outbox();
    await box.mark(scope, 'task-1', 3, false);
    await box.mark(scope, 'task-1', 2, true); // an older mark changes nothing
    expect(await box.due('task-1')).toEqual({ taskId: 'task-1', scope, seq: 3, terminal: false, entry: expect.any(String) });
    await box.mark(scope, 'task-1', 5, true);
    expect(await box.due('task-1')).toMatchObject({ seq: 5, terminal: true });
    expect(await box.due('task-2')).toBeUndefined();
  });

  it('clears an entry only while it is the one read: a commit in between keeps it', async () => {
    const box = outbox();
    await box.mark(scope, 'task-3', 1, false);
    const read = (await box.due('task-3'))!;
    await box.mark(scope, 'task-3', 2, false);
    expect(await box.clear(read)).toBe(false);
    expect(await box.clear((await box.due('task-3'))!)).toBe(true);
    expect(await box.due('task-3')).toBeUndefined();
  });

  it('reads what the relay needs in one step: the entry, the configs’ starting points, their cursors, the live leases', async () => {
    const box = outbox();
    const sk = scopeKey(scope);
    await box.mark(scope, 'pending-1', 4, true);
    await redis.client.hset(`${redis.prefix}push:cfg:${sk}:pending-1`, 'a', JSON.stringify({ id: 'a', afterSeq: 2 }), 'b', JSON.stringify({ id: 'b' }));
    await box.advance(scope, 'pending-1', 'b', { from: 0, to: 1, start: 0 }, NO_LEASE);
    await box.claim(scope, 'pending-1', 'a', 'run-a', 2, 1000);
    const pending = await box.pending(scope, 'pending-1');
    expect(pending.due).toMatchObject({ taskId: 'pending-1', scope, seq: 4, terminal: true });
    expect(pending.configs).toEqual(new Map([['a', 2], ['b', 0]]));
    expect(pending.cursors).toEqual(new Map([['b', 1]]));
    expect(pending.leased).toEqual(new Set(['a']));
    expect((await box.pending(scope, 'pending-2')).due).toBeUndefined();
  });

  it('gives a finished task’s configs, cursors and leases their TTL in the step that clears its entry, and only then', async () => {
    const box = outbox();
    const sk = scopeKey(scope);
    const keys = ['cfg', 'cur', 'run'].map((kind) => `${redis.prefix}push:${kind}:${sk}:finished-1`);
    await redis.client.hset(keys[0], 'a', JSON.stringify({ id: 'a' }));
    await box.mark(scope, 'finished-1', 1, true);
    await box.advance(scope, 'finished-1', 'a', { from: 0, to: 1, start: 0 }, NO_LEASE);
    await box.claim(scope, 'finished-1', 'other', 'run-b', 0, 60_000);
    const read = (await box.due('finished-1'))!;
    await box.mark(scope, 'finished-1', 2, true);
    expect(await box.clear(read, 5_000)).toBe(false);
    expect(await redis.client.pttl(keys[0])).toBe(-1);
    expect(await redis.client.pttl(keys[1])).toBe(-1);
    expect(await box.clear((await box.due('finished-1'))!, 5_000)).toBe(true);
    for (const key of keys) expect(await redis.client.pttl(key)).toBeGreaterThan(4_000);
    for (const key of keys) expect(await redis.client.pttl(key)).toBeLessThanOrEqual(5_000);
    expect(await box.due('finished-1')).toBeUndefined();
  });

  it('scans every due task, page by page', async () => {
    const box = outbox();
    for (let i = 0; i < 25; i++) await box.mark(scope, `scan-${i}`, i + 1, false);
    const seen: string[] = [];
    let cursor = '0';
    do {
      const page = await box.scan(cursor, 10);
      cursor = page.cursor;
      seen.push(...page.tasks.map((t) => t.taskId));
    } while (cursor !== '0');
    expect(seen.filter((id) => id.startsWith('scan-')).sort()).toEqual(Array.from({ length: 25 }, (_, i) => `scan-${i}`).sort());
  });

  it('moves a cursor only from where it is (its start when it has none), and says what is due', async () => {
    const box = outbox();
    await box.mark(scope, 'task-4', 6, false);
    expect(await box.advance(scope, 'task-4', 'cfg', { from: 2, to: 3, start: 2 }, NO_LEASE)).toEqual({ moved: true, cursor: 3, dueSeq: 6, goesOn: false }); // from its start, 2
    expect(await box.advance(scope, 'task-4', 'cfg', { from: 2, to: 3, start: 2 }, NO_LEASE)).toEqual({ moved: false, cursor: 3, dueSeq: 6, goesOn: false }); // a repeat moves nothing
    expect(await box.advance(scope, 'task-4', 'cfg', { from: 3, to: 4, start: 2 }, NO_LEASE)).toEqual({ moved: true, cursor: 4, dueSeq: 6, goesOn: false });
    expect(await box.cursors(scope, 'task-4')).toEqual(new Map([['cfg', 4]]));
    // another scope's cursors are another key
    expect(await box.cursors({ ...scope, subject: 'bob' }, 'task-4')).toEqual(new Map());
    await box.forget(scope, 'task-4', 'cfg');
    expect(await box.cursors(scope, 'task-4')).toEqual(new Map());
    expect(await box.advance(scope, 'task-5', 'cfg', { from: 0, to: 1, start: 0 }, NO_LEASE)).toEqual({ moved: true, cursor: 1, dueSeq: 0, goesOn: false }); // nothing due
  });

  it('reads the config with the lease and with every move that goes on, as it is then (deleted: none)', async () => {
    const box = outbox();
    const configs = `${redis.prefix}push:cfg:${scopeKey(scope)}:config-1`;
    await box.mark(scope, 'config-1', 3, false);
    await redis.client.hset(configs, 'cfg', JSON.stringify({ id: 'cfg', url: 'https://a.example/hook' }));
    expect((await box.claim(scope, 'config-1', 'cfg', 'run-a', 0, 10_000)).config).toEqual({ id: 'cfg', url: 'https://a.example/hook' });
    const run = { holder: 'run-a', leaseMs: 10_000, goOn: true };
    await redis.client.hset(configs, 'cfg', JSON.stringify({ id: 'cfg', url: 'https://b.example/hook' }));
    expect(await box.advance(scope, 'config-1', 'cfg', { from: 0, to: 1, start: 0 }, run)).toMatchObject({ goesOn: true, config: { url: 'https://b.example/hook' } });
    await redis.client.hdel(configs, 'cfg');
    expect(await box.advance(scope, 'config-1', 'cfg', { from: 1, to: 2, start: 0 }, run)).toMatchObject({ goesOn: true, config: undefined });
    expect((await box.claim(scope, 'config-1', 'cfg', 'run-a', 0, 10_000)).config).toBeUndefined();
  });

  it('leases a config to one run at a time, only while something is due after its cursor', async () => {
    const box = outbox();
    await box.mark(scope, 'lease-1', 2, false);
    expect(await box.claim(scope, 'lease-1', 'cfg', 'run-a', 0, 10_000)).toEqual({ state: 'taken', cursor: undefined, dueSeq: 2 });
    expect(await box.claim(scope, 'lease-1', 'cfg', 'run-a', 0, 10_000)).toMatchObject({ state: 'taken' }); // its own again
    expect(await box.claim(scope, 'lease-1', 'cfg', 'run-b', 0, 10_000)).toEqual({ state: 'held', cursor: undefined, dueSeq: 2, waitMs: 0 });
    expect(await box.leased(scope, 'lease-1')).toEqual(new Set(['cfg']));
    // the leases' hash outlives its leases, and no more (a finished task's keys get their TTL from the relay)
    const leases = `${redis.prefix}push:run:${scopeKey(scope)}:lease-1`;
    expect(await redis.client.pttl(leases)).toBeGreaterThan(9_000);
    expect(await redis.client.pttl(leases)).toBeLessThanOrEqual(10_000);
    // another config of the task is free
    expect(await box.claim(scope, 'lease-1', 'other', 'run-b', 0, 10_000)).toMatchObject({ state: 'taken' });
    // the holder moves on while more is due, and lets go when nothing is
    const run = { holder: 'run-a', leaseMs: 10_000, goOn: true };
    expect(await box.advance(scope, 'lease-1', 'cfg', { from: 0, to: 1, start: 0 }, run)).toEqual({ moved: true, cursor: 1, dueSeq: 2, goesOn: true });
    expect(await box.advance(scope, 'lease-1', 'cfg', { from: 1, to: 2, start: 0 }, run)).toEqual({ moved: true, cursor: 2, dueSeq: 2, goesOn: false });
    expect(await box.leased(scope, 'lease-1')).toEqual(new Set(['other']));
    // nothing due after the cursor: not taken
    expect(await box.claim(scope, 'lease-1', 'cfg', 'run-b', 0, 10_000)).toEqual({ state: 'idle', cursor: 2, dueSeq: 2 });
    // a commit after the holder let go: the next run takes it
    await box.mark(scope, 'lease-1', 3, false);
    expect(await box.claim(scope, 'lease-1', 'cfg', 'run-b', 0, 10_000)).toEqual({ state: 'taken', cursor: 2, dueSeq: 3 });
    // a run that is not the holder neither renews nor lets go
    expect(await box.advance(scope, 'lease-1', 'cfg', { from: 2, to: 2, start: 0 }, run)).toMatchObject({ goesOn: false });
    expect(await box.claim(scope, 'lease-1', 'cfg', 'run-a', 0, 10_000)).toMatchObject({ state: 'held' });
  });

  it('a lapsed lease is free; a handed-over one belongs to the next run, which may start only after its delay', async () => {
    const box = outbox();
    await box.mark(scope, 'lease-2', 3, false);
    expect(await box.claim(scope, 'lease-2', 'cfg', 'run-a', 0, 50)).toMatchObject({ state: 'taken' });
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await box.leased(scope, 'lease-2')).toEqual(new Set());
    expect(await box.claim(scope, 'lease-2', 'cfg', 'run-b', 0, 10_000)).toMatchObject({ state: 'taken' });
    expect(await box.handOver(scope, 'lease-2', 'cfg', 'run-a', 'run-c', 0, 10_000)).toBe(false); // not run-a's any more
    expect(await box.handOver(scope, 'lease-2', 'cfg', 'run-b', 'run-c', 300, 10_000)).toBe(true);
    expect(await box.claim(scope, 'lease-2', 'cfg', 'run-b', 0, 10_000)).toMatchObject({ state: 'held' });
    const early = await box.claim(scope, 'lease-2', 'cfg', 'run-c', 0, 10_000);
    expect(early).toMatchObject({ state: 'early' });
    expect((early as { waitMs: number }).waitMs).toBeGreaterThan(150);
    await new Promise((resolve) => setTimeout(resolve, 320));
    expect(await box.claim(scope, 'lease-2', 'cfg', 'run-c', 0, 10_000)).toMatchObject({ state: 'taken' });
    // a config forgotten (410, deleted) loses its lease too
    await box.forget(scope, 'lease-2', 'cfg');
    expect(await box.leased(scope, 'lease-2')).toEqual(new Set());
  });
});
