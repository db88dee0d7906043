/**
 * The behaviour every {@link TaskStore} must have, as a reusable jest suite. Each implementation's
 * spec calls {@link describeTaskStoreContract} with a factory; the Redis store runs the same tests.
 *
 * Every test works in scopes and task ids of its own, so a factory may hand out stores that share
 * a backend (one Redis key prefix per spec file is enough).
 */
import { randomUUID } from 'node:crypto';
import { testGlobals } from './test-globals.js';
import { InvalidParamsError } from '../protocol/errors.js';
import type { Task, TaskState } from '../protocol/types.js';
import { ConcurrentTaskUpdateError, type TaskQuery, type TaskScope, type TaskStore } from '../tasks/task-store.js';

export interface TaskStoreUnderTest {
  store: TaskStore;
  close(): Promise<void>;
}

const BASE_TIME = Date.UTC(2030, 0, 1, 12, 0, 0);

/** RFC 3339 timestamp `seconds` after a fixed base time. */
export function at(seconds: number): string {
  return new Date(BASE_TIME + seconds * 1000).toISOString();
}

export function makeTask(id: string, options: { contextId?: string; state?: TaskState; timestamp?: string; text?: string } = {}): Task {
  return {
    id,
    contextId: options.contextId ?? 'ctx-default',
    status: { state: options.state ?? 'TASK_STATE_WORKING', timestamp: options.timestamp ?? at(0) },
    history: options.text === undefined ? undefined : [{ messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text: options.text }] }],
  };
}

export function describeTaskStoreContract(name: string, create: () => Promise<TaskStoreUnderTest>): void {
  const { afterEach, beforeEach, describe, expect, it } = testGlobals();
  describe(`TaskStore contract: ${name}`, () => {
    let subject: TaskStoreUnderTest;
    let store: TaskStore;
    /** A scope and an id prefix of this test alone. */
    let scope: TaskScope;
    let prefix: string;

    beforeEach(async () => {
      subject = await create();
      store = subject.store;
      const run = randomUUID();
      scope = { agent: `agent-${run}`, tenant: 'tenant-a', subject: 'alice' };
      prefix = `t-${run}-`;
    });

    afterEach(async () => {
      await subject.close();
    });

    const page = (query: Partial<TaskQuery> = {}) => store.list(scope, { pageSize: 100, ...query });
    const ids = (tasks: Task[]) => tasks.map((t) => t.id);

    describe('save and get', () => {
      it('creates with expectedVersion 0 and returns version 1 with the given seq', async () => {
        const task = makeTask(`${prefix}1`, { text: 'hello' });
        const saved = await store.save(scope, task, 3, 0);
        expect(saved).toEqual({ task, scope, seq: 3, version: 1 });
        expect(await store.get(scope, task.id)).toEqual({ task, scope, seq: 3, version: 1 });
      });

      it('returns undefined for a task that does not exist', async () => {
        expect(await store.get(scope, `${prefix}missing`)).toBeUndefined();
      });

      it('bumps the version on every save and keeps the latest snapshot', async () => {
        const id = `${prefix}1`;
        await store.save(scope, makeTask(id, { state: 'TASK_STATE_SUBMITTED' }), 1, 0);
        const second = await store.save(scope, makeTask(id, { state: 'TASK_STATE_WORKING', timestamp: at(1) }), 2, 1);
        expect(second.version).toBe(2);
        const third = await store.save(scope, makeTask(id, { state: 'TASK_STATE_COMPLETED', timestamp: at(2) }), 5, 2);
        expect(third.version).toBe(3);
        const stored = await store.get(scope, id);
        expect(stored?.version).toBe(3);
        expect(stored?.seq).toBe(5);
        expect(stored?.task.status).toEqual({ state: 'TASK_STATE_COMPLETED', timestamp: at(2) });
      });

      it.each([
        ['creating a task that exists (expectedVersion 0)', 0],
        ['a stale version', 1],
        ['a version from the future', 3],
      ])('refuses %s with ConcurrentTaskUpdateError and keeps the stored task', async (_label, expectedVersion) => {
        const id = `${prefix}1`;
        await store.save(scope, makeTask(id, { state: 'TASK_STATE_SUBMITTED' }), 1, 0);
        await store.save(scope, makeTask(id, { state: 'TASK_STATE_WORKING', timestamp: at(1) }), 2, 1);
        const attempt = store.save(scope, makeTask(id, { state: 'TASK_STATE_FAILED', timestamp: at(9) }), 3, expectedVersion);
        await expect(attempt).rejects.toBeInstanceOf(ConcurrentTaskUpdateError);
        await expect(attempt).rejects.toMatchObject({ taskId: id });
        const stored = await store.get(scope, id);
        expect(stored?.version).toBe(2);
        expect(stored?.seq).toBe(2);
        expect(stored?.task.status.state).toBe('TASK_STATE_WORKING');
      });

      it('refuses an update with expectedVersion > 0 of a task that does not exist', async () => {
        await expect(store.save(scope, makeTask(`${prefix}ghost`), 2, 1)).rejects.toBeInstanceOf(ConcurrentTaskUpdateError);
        expect(await store.get(scope, `${prefix}ghost`)).toBeUndefined();
      });

      it('lets exactly one of two racing writers with the same expectedVersion win', async () => {
        const id = `${prefix}1`;
        await store.save(scope, makeTask(id), 1, 0);
        const results = await Promise.allSettled([
          store.save(scope, makeTask(id, { text: 'first' }), 2, 1),
          store.save(scope, makeTask(id, { text: 'second' }), 2, 1),
        ]);
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.filter((r) => r.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrentTaskUpdateError);
        expect((await store.get(scope, id))?.version).toBe(2);
      });
    });

    describe('scopes', () => {
      const others: Array<[string, (s: TaskScope) => TaskScope]> = [
        ['agent', (s) => ({ ...s, agent: `${s.agent}-other` })],
        ['tenant', (s) => ({ ...s, tenant: 'tenant-b' })],
        ['tenant (none vs. some)', (s) => ({ ...s, tenant: '' })],
        ['subject', (s) => ({ ...s, subject: 'mallory' })],
      ];

      it.each(others)('a task is invisible to a scope with another %s', async (_label, otherOf) => {
        const other = otherOf(scope);
        const id = `${prefix}1`;
        await store.save(scope, makeTask(id, { contextId: 'ctx-1' }), 1, 0);

        expect(await store.get(other, id)).toBeUndefined();
        const listed = await store.list(other, { pageSize: 100 });
        expect(ids(listed.tasks)).not.toContain(id);
        const byContext = await store.list(other, { pageSize: 100, contextId: 'ctx-1' });
        expect(byContext).toEqual({ tasks: [], totalSize: 0, nextPageToken: '' });
        // the owner still sees it
        expect((await store.get(scope, id))?.task.id).toBe(id);
      });

      it.each(others)('a save from a scope with another %s is refused and changes nothing', async (_label, otherOf) => {
        const other = otherOf(scope);
        const id = `${prefix}1`;
        await store.save(scope, makeTask(id, { text: 'mine' }), 1, 0);

        // neither as a create nor with the right version can another scope overwrite the task
        await expect(store.save(other, makeTask(id, { text: 'theirs' }), 2, 0)).rejects.toBeInstanceOf(ConcurrentTaskUpdateError);
        await expect(store.save(other, makeTask(id, { text: 'theirs' }), 2, 1)).rejects.toBeInstanceOf(ConcurrentTaskUpdateError);

        const stored = await store.get(scope, id);
        expect(stored?.version).toBe(1);
        expect(stored?.scope).toEqual(scope);
        expect(stored?.task.history?.[0].parts).toEqual([{ text: 'mine' }]);
        expect(await store.get(other, id)).toBeUndefined();
      });
    });

    describe('list', () => {
      async function seed(tasks: Task[]): Promise<void> {
        for (const task of tasks) await store.save(scope, task, 1, 0);
      }

      it('returns the tasks of the scope, newest status timestamp first', async () => {
        await seed([
          makeTask(`${prefix}a`, { timestamp: at(10) }),
          makeTask(`${prefix}b`, { timestamp: at(30) }),
          makeTask(`${prefix}c`, { timestamp: at(20) }),
        ]);
        const result = await page();
        expect(ids(result.tasks)).toEqual([`${prefix}b`, `${prefix}c`, `${prefix}a`]);
        expect(result.totalSize).toBe(3);
        expect(result.nextPageToken).toBe('');
      });

      it('orders by the latest saved status timestamp', async () => {
        await seed([makeTask(`${prefix}a`, { timestamp: at(10) }), makeTask(`${prefix}b`, { timestamp: at(20) })]);
        await store.save(scope, makeTask(`${prefix}a`, { timestamp: at(30), state: 'TASK_STATE_COMPLETED' }), 2, 1);
        const result = await page();
        expect(ids(result.tasks)).toEqual([`${prefix}a`, `${prefix}b`]);
        expect(result.tasks[0].status.state).toBe('TASK_STATE_COMPLETED');
        expect(result.totalSize).toBe(2);
      });

      it('breaks timestamp ties by id (descending), so the order is total', async () => {
        await seed([
          makeTask(`${prefix}b`, { timestamp: at(5) }),
          makeTask(`${prefix}d`, { timestamp: at(5) }),
          makeTask(`${prefix}a`, { timestamp: at(5) }),
          makeTask(`${prefix}c`, { timestamp: at(5) }),
          makeTask(`${prefix}z`, { timestamp: at(6) }),
        ]);
        const result = await page();
        expect(ids(result.tasks)).toEqual([`${prefix}z`, `${prefix}d`, `${prefix}c`, `${prefix}b`, `${prefix}a`]);
      });

      it('filters by contextId', async () => {
        await seed([
          makeTask(`${prefix}a`, { contextId: 'ctx-1', timestamp: at(1) }),
          makeTask(`${prefix}b`, { contextId: 'ctx-2', timestamp: at(2) }),
          makeTask(`${prefix}c`, { contextId: 'ctx-1', timestamp: at(3) }),
        ]);
        const result = await page({ contextId: 'ctx-1' });
        expect(ids(result.tasks)).toEqual([`${prefix}c`, `${prefix}a`]);
        expect(result.totalSize).toBe(2);
        expect(await page({ contextId: 'ctx-none' })).toEqual({ tasks: [], totalSize: 0, nextPageToken: '' });
      });

      it('filters by status', async () => {
        await seed([
          makeTask(`${prefix}a`, { state: 'TASK_STATE_COMPLETED', timestamp: at(1) }),
          makeTask(`${prefix}b`, { state: 'TASK_STATE_WORKING', timestamp: at(2) }),
          makeTask(`${prefix}c`, { state: 'TASK_STATE_COMPLETED', timestamp: at(3) }),
          makeTask(`${prefix}d`, { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: at(4) }),
        ]);
        const completed = await page({ status: 'TASK_STATE_COMPLETED' });
        expect(ids(completed.tasks)).toEqual([`${prefix}c`, `${prefix}a`]);
        expect(completed.totalSize).toBe(2);
        const working = await page({ status: 'TASK_STATE_WORKING' });
        expect(ids(working.tasks)).toEqual([`${prefix}b`]);
        expect((await page({ status: 'TASK_STATE_CANCELED' })).totalSize).toBe(0);
      });

      it('filters by statusTimestampAfter, inclusive', async () => {
        await seed([
          makeTask(`${prefix}a`, { timestamp: at(10) }),
          makeTask(`${prefix}b`, { timestamp: at(20) }),
          makeTask(`${prefix}c`, { timestamp: at(30) }),
        ]);
        const result = await page({ statusTimestampAfter: at(20) });
        expect(ids(result.tasks)).toEqual([`${prefix}c`, `${prefix}b`]);
        expect(result.totalSize).toBe(2);
        // one millisecond later excludes the task stamped exactly at 20 s
        const later = await page({ statusTimestampAfter: new Date(Date.parse(at(20)) + 1).toISOString() });
        expect(ids(later.tasks)).toEqual([`${prefix}c`]);
        expect((await page({ statusTimestampAfter: at(31) })).totalSize).toBe(0);
      });

      it('combines filters', async () => {
        await seed([
          makeTask(`${prefix}a`, { contextId: 'ctx-1', state: 'TASK_STATE_COMPLETED', timestamp: at(10) }),
          makeTask(`${prefix}b`, { contextId: 'ctx-1', state: 'TASK_STATE_COMPLETED', timestamp: at(20) }),
          makeTask(`${prefix}c`, { contextId: 'ctx-1', state: 'TASK_STATE_WORKING', timestamp: at(30) }),
          makeTask(`${prefix}d`, { contextId: 'ctx-2', state: 'TASK_STATE_COMPLETED', timestamp: at(40) }),
        ]);
        const result = await page({ contextId: 'ctx-1', status: 'TASK_STATE_COMPLETED', statusTimestampAfter: at(15) });
        expect(ids(result.tasks)).toEqual([`${prefix}b`]);
        expect(result.totalSize).toBe(1);
      });

      it('paginates with a cursor: every task exactly once, in order, with totalSize on each page', async () => {
        // 11 tasks, several sharing a timestamp, so page boundaries fall inside ties
        const seeded: Task[] = [];
        for (let i = 0; i < 11; i++) seeded.push(makeTask(`${prefix}${String(i).padStart(2, '0')}`, { timestamp: at(Math.floor(i / 3)) }));
        await seed(seeded.slice().reverse());
        const everything = ids((await page()).tasks);
        expect(everything).toHaveLength(11);

        const seen: string[] = [];
        const sizes: number[] = [];
        let token: string | undefined;
        for (let round = 0; round < 10; round++) {
          const result = await page({ pageSize: 4, pageToken: token });
          expect(result.totalSize).toBe(11);
          seen.push(...ids(result.tasks));
          sizes.push(result.tasks.length);
          if (result.nextPageToken === '') break;
          expect(typeof result.nextPageToken).toBe('string');
          token = result.nextPageToken;
        }
        expect(sizes).toEqual([4, 4, 3]);
        expect(seen).toEqual(everything);
        expect(new Set(seen).size).toBe(11);
        // newest first: the three tasks at the highest timestamp lead
        expect(seen.slice(0, 2)).toEqual([`${prefix}10`, `${prefix}09`]);
      });

      it('gives nextPageToken "" when the last page is exactly full', async () => {
        await seed([0, 1, 2, 3].map((i) => makeTask(`${prefix}${i}`, { timestamp: at(i) })));
        const first = await page({ pageSize: 2 });
        expect(ids(first.tasks)).toEqual([`${prefix}3`, `${prefix}2`]);
        expect(first.nextPageToken).not.toBe('');
        const second = await page({ pageSize: 2, pageToken: first.nextPageToken });
        expect(ids(second.tasks)).toEqual([`${prefix}1`, `${prefix}0`]);
        expect(second.nextPageToken).toBe('');
        expect(second.totalSize).toBe(4);
      });

      it('paginates within filters', async () => {
        await seed([0, 1, 2, 3, 4, 5].map((i) => makeTask(`${prefix}${i}`, { contextId: i % 2 === 0 ? 'even' : 'odd', timestamp: at(i) })));
        const first = await page({ contextId: 'even', pageSize: 2 });
        expect(ids(first.tasks)).toEqual([`${prefix}4`, `${prefix}2`]);
        expect(first.totalSize).toBe(3);
        const second = await page({ contextId: 'even', pageSize: 2, pageToken: first.nextPageToken });
        expect(ids(second.tasks)).toEqual([`${prefix}0`]);
        expect(second.totalSize).toBe(3);
        expect(second.nextPageToken).toBe('');
      });

      it('answers an empty scope with an empty last page', async () => {
        expect(await page()).toEqual({ tasks: [], totalSize: 0, nextPageToken: '' });
      });

      it.each([['garbage'], ['not a token!'], [Buffer.from('{"time":1}').toString('base64url')], [Buffer.from('[1]').toString('base64url')]])(
        'refuses the page token %j with InvalidParamsError naming pageToken',
        async (pageToken) => {
          await seed([makeTask(`${prefix}a`)]);
          const attempt = page({ pageToken });
          await expect(attempt).rejects.toBeInstanceOf(InvalidParamsError);
          await expect(attempt).rejects.toMatchObject({ fieldViolations: [expect.objectContaining({ field: 'pageToken' })] });
        },
      );
    });
  });
}
