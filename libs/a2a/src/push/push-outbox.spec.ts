/** The push outbox and cursors on a real Redis, under a key prefix of this spec's own. */
import { describe, expect, it } from '@jest/globals';
import { redisOfSpec } from '../redis/testing/redis-test-support.js';
import type { TaskScope } from '../tasks/task-store.js';
import { RedisPushOutbox } from './push-outbox.js';

const redis = redisOfSpec();
const scope: TaskScope = { agent: 'echo', tenant: 't', subject: 'alice' };
const outbox = () => new RedisPushOutbox(redis.client, { keyPrefix: redis.prefix });

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
    expect(await box.advance(scope, 'task-4', 'cfg', 2, 3, 2)).toEqual({ moved: true, cursor: 3, dueSeq: 6 }); // from its start, 2
    expect(await box.advance(scope, 'task-4', 'cfg', 2, 3, 2)).toEqual({ moved: false, cursor: 3, dueSeq: 6 }); // a repeat moves nothing
    expect(await box.advance(scope, 'task-4', 'cfg', 3, 4, 2)).toEqual({ moved: true, cursor: 4, dueSeq: 6 });
    expect(await box.cursors(scope, 'task-4')).toEqual(new Map([['cfg', 4]]));
    // another scope's cursors are another key
    expect(await box.cursors({ ...scope, subject: 'bob' }, 'task-4')).toEqual(new Map());
    await box.forget(scope, 'task-4', 'cfg');
    expect(await box.cursors(scope, 'task-4')).toEqual(new Map());
    expect(await box.advance(scope, 'task-5', 'cfg', 0, 1, 0)).toEqual({ moved: true, cursor: 1, dueSeq: 0 }); // nothing due
  });
});
