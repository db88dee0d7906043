/**
 * The behaviour every {@link TaskBackend} must have, as a reusable jest suite: the TaskStore and
 * EventLog contracts on its store and log, and its commit and coordination as the task engine relies
 * on them. Our in-memory and Redis backends run it; run it against a backend of your own:
 *
 * ```ts
 * describeTaskBackendContract('PostgresTaskBackend', async () => {
 *   const backend = new PostgresTaskBackend(pool);
 *   return { backend, peer: async () => new PostgresTaskBackend(pool), close: () => backend.close() };
 * }, { leaseMs: 300 });
 * ```
 *
 * Every test works in scopes and task ids of its own, so a factory may hand out backends that share
 * storage (one key prefix, schema or database per spec file is enough).
 */
import { randomUUID } from 'node:crypto';
import { testGlobals } from './test-globals.js';
import type { StreamResponse, Task, TaskState } from '../protocol/types.js';
import type { TaskBackend, TaskWrite } from '../tasks/task-backend.js';
import { ConcurrentTaskUpdateError, type StoredTask, type TaskScope } from '../tasks/task-store.js';
import { ResourceExhaustedError } from '../protocol/errors.js';
import { collect, describeEventLogContract, statusEvent } from './event-log.contract.js';
import { at, describeTaskStoreContract, makeTask } from './task-store.contract.js';
import { waitUntil } from './wait-until.js';

export interface TaskBackendUnderTest {
  readonly backend: TaskBackend;
  /**
   * Makes another instance on the same storage (as a second app instance would be), for a backend
   * that serves several: claims, cancel requests and orphans are then also tested across the two.
   * Leave it out for a backend of one process. The suite closes the peers it makes.
   */
  readonly peer?: () => Promise<TaskBackend>;
  /** Closes `backend` (and whatever the factory made for it). */
  close(): Promise<void>;
}

export interface TaskBackendContractOptions {
  /**
   * How long a claim nobody renews takes to lapse, in ms (the lease the factory gives its instances).
   * With `peer`, the orphan test waits a few of these. Default 10000.
   */
  readonly leaseMs?: number;
  /**
   * The per-caller byte budget the factory gives its backends (e.g. `tasks.maxStoredBytesPerCaller`),
   * for a backend that keeps budgets; the overall one must hold a few callers' more. With it, the
   * suite checks admission: a caller whose running task fills its budget is refused with 429, another
   * is admitted, and a finished task gives way. Leave it out for a backend without budgets.
   */
  readonly budgetPerCaller?: number;
}

/** `state` as a task event (`task`), the way a turn opens. */
function openingEvent(task: Task): StreamResponse {
  return { task };
}

function stateEvent(taskId: string, state: TaskState): StreamResponse {
  return { statusUpdate: { taskId, contextId: 'ctx-default', status: { state, timestamp: '2030-01-01T00:00:00.000Z' } } };
}

export function describeTaskBackendContract(name: string, create: () => Promise<TaskBackendUnderTest>, options: TaskBackendContractOptions = {}): void {
  const { afterEach, beforeEach, describe, expect, it } = testGlobals();
  const leaseMs = options.leaseMs ?? 10_000;

  describeTaskStoreContract(name, async () => {
    const subject = await create();
    return { store: subject.backend.store, close: () => subject.close() };
  });

  describeEventLogContract(name, async () => {
    const subject = await create();
    return { log: subject.backend.log, close: () => subject.close() };
  });

  describe(`TaskBackend contract: ${name}`, () => {
    let subject: TaskBackendUnderTest;
    let backend: TaskBackend;
    let peers: TaskBackend[];
    /** A scope and an id prefix of this test alone. */
    let scope: TaskScope;
    let prefix: string;

    beforeEach(async () => {
      subject = await create();
      backend = subject.backend;
      peers = [];
      const run = randomUUID();
      scope = { agent: `agent-${run}`, tenant: 'tenant-a', subject: 'alice' };
      prefix = `t-${run}-`;
    });

    afterEach(async () => {
      await Promise.all(peers.map((peer) => peer.close()));
      await subject.close();
    });

    /** Another instance on the same storage, or undefined for a backend of one process. */
    async function peer(): Promise<TaskBackend | undefined> {
      const made = await subject.peer?.();
      if (made) peers.push(made);
      return made;
    }

    /** A write that creates `id` in WORKING: its task event, then WORKING. */
    function creating(id: string, inScope = scope): TaskWrite {
      const submitted = makeTask(id, { state: 'TASK_STATE_SUBMITTED' });
      return { scope: inScope, current: undefined, events: [openingEvent(submitted), stateEvent(id, 'TASK_STATE_WORKING')], next: makeTask(id) };
    }

    /** A write after `current`: a status update with `text` (WORKING), or moving the task to `state`. */
    function continuing(current: StoredTask, change: { text?: string; state?: TaskState } = {}): TaskWrite {
      const id = current.task.id;
      const event = change.state ? stateEvent(id, change.state) : statusEvent(id, change.text ?? 'more');
      return { scope: current.scope, current, events: [event], next: makeTask(id, { state: change.state ?? 'TASK_STATE_WORKING', text: change.text }) };
    }

    /** What the log of `taskId` holds now. */
    async function logOf(taskId: string, count: number): Promise<StreamResponse[]> {
      return (await collect(backend.log, taskId, 0, count, 500).done).map((logged) => logged.event);
    }

    describe('commit', () => {
      it('creates a task: its events numbered from 1, the snapshot at their last seq with version 1', async () => {
        const write = creating(`${prefix}1`);
        const stored = await backend.commit(write);
        expect(stored).toEqual({ task: write.next, scope, seq: 2, version: 1 });
        expect(await backend.store.get(scope, write.next.id)).toEqual(stored);
        const { done } = collect(backend.log, write.next.id, 0, 2);
        expect((await done).map((logged) => [logged.seq, logged.event])).toEqual(write.events.map((event, i) => [i + 1, event]));
      });

      it('continues from current: its events after current.seq, the version one up', async () => {
        const created = await backend.commit(creating(`${prefix}1`));
        const write = continuing(created, { text: 'next' });
        const stored = await backend.commit(write);
        expect(stored).toEqual({ task: write.next, scope, seq: 3, version: 2 });
        expect(await backend.store.get(scope, created.task.id)).toEqual(stored);
        expect((await logOf(created.task.id, 3))[2]).toEqual(write.events[0]);
      });

      it.each([
        ['a stale snapshot version (the log where the writer expects it)', (s: StoredTask) => ({ ...s, version: s.version - 1 })],
        ['a snapshot version from the future', (s: StoredTask) => ({ ...s, version: s.version + 1 })],
        ['a log that has moved past current.seq', (s: StoredTask) => ({ ...s, seq: s.seq - 1 })],
        ['a log behind current.seq', (s: StoredTask) => ({ ...s, seq: s.seq + 1 })],
      ])('refuses %s with ConcurrentTaskUpdateError and writes nothing, neither to the log nor to the snapshot', async (_label, skew) => {
        const created = await backend.commit(creating(`${prefix}1`));
        const latest = await backend.commit(continuing(created, { text: 'second' }));
        const write = continuing(skew(latest), { state: 'TASK_STATE_COMPLETED' });
        await expect(backend.commit(write)).rejects.toBeInstanceOf(ConcurrentTaskUpdateError);
        expect(await backend.store.get(scope, latest.task.id)).toEqual(latest);
        expect(await logOf(latest.task.id, 4)).toHaveLength(3);
      });

      it('refuses to create a task that exists, and to write one of another scope, writing nothing', async () => {
        const created = await backend.commit(creating(`${prefix}1`));
        await expect(backend.commit(creating(created.task.id))).rejects.toBeInstanceOf(ConcurrentTaskUpdateError);
        const other = { ...scope, subject: 'mallory' };
        await expect(backend.commit({ ...continuing(created), scope: other, current: { ...created, scope: other } })).rejects.toBeInstanceOf(ConcurrentTaskUpdateError);
        expect(await backend.store.get(scope, created.task.id)).toEqual(created);
        expect(await backend.store.get(other, created.task.id)).toBeUndefined();
        expect(await logOf(created.task.id, 3)).toHaveLength(2);
      });

      it('lets exactly one of two racing commits with the same current win; the loser writes nothing', async () => {
        const created = await backend.commit(creating(`${prefix}1`));
        const results = await Promise.allSettled([backend.commit(continuing(created, { text: 'first' })), backend.commit(continuing(created, { text: 'second' }))]);
        const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
        const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect(lost[0]).toBeInstanceOf(ConcurrentTaskUpdateError);
        expect(await backend.store.get(scope, created.task.id)).toEqual(won[0]);
        expect(await logOf(created.task.id, 4)).toHaveLength(3);
      });

      it('lands pipelined commits (each issued before the one before answered) in order', async () => {
        const create = creating(`${prefix}1`);
        const predicted: StoredTask = { task: create.next, scope, seq: 2, version: 1 };
        const next = continuing(predicted, { text: 'pipelined' });
        const last = continuing({ task: next.next, scope, seq: 3, version: 2 }, { state: 'TASK_STATE_COMPLETED' });
        const stored = await Promise.all([backend.commit(create), backend.commit(next), backend.commit(last)]);
        expect(stored.map((s) => [s.seq, s.version])).toEqual([
          [2, 1],
          [3, 2],
          [4, 3],
        ]);
        expect(await logOf(create.next.id, 4)).toEqual([...create.events, ...next.events, ...last.events]);
        expect(await backend.coordinator.isClaimed(create.next.id)).toBe(false);
      });
    });

    describe('conversations (what ctx.conversation() reads)', () => {
      it('lists the tasks committed in a context by contextId, newest first, to their own scope only, on every instance', async () => {
        const contextId = `ctx-${prefix}`;
        const inContext = (id: string, seconds: number, inScope = scope): TaskWrite => {
          const write = creating(id, inScope);
          return { ...write, next: { ...write.next, contextId, status: { ...write.next.status, timestamp: at(seconds) } } };
        };
        const mallory = { ...scope, subject: 'mallory' };
        for (const [id, seconds] of [['1', 1], ['2', 2], ['3', 3]] as const) await backend.commit(inContext(`${prefix}${id}`, seconds));
        await backend.commit(creating(`${prefix}elsewhere`));
        await backend.commit(inContext(`${prefix}m`, 4, mallory));
        const readers = [backend, await peer()].filter((reader): reader is TaskBackend => reader !== undefined);
        for (const reader of readers) {
          const newest = await reader.store.list(scope, { contextId, pageSize: 2 });
          expect(newest.tasks.map((t) => t.id)).toEqual([`${prefix}3`, `${prefix}2`]);
          expect(newest.totalSize).toBe(3);
          const theirs = await reader.store.list(mallory, { contextId, pageSize: 10 });
          expect(theirs.tasks.map((t) => t.id)).toEqual([`${prefix}m`]);
        }
      });
    });

    describe('claims', () => {
      it('are exclusive, this instance included, until released', async () => {
        const id = `${prefix}1`;
        expect(await backend.coordinator.claim(id, scope)).toBe(true);
        expect(await backend.coordinator.claim(id, scope)).toBe(false);
        expect(await backend.coordinator.isClaimed(id)).toBe(true);
        await backend.coordinator.release(id);
        expect(await backend.coordinator.isClaimed(id)).toBe(false);
        expect(await backend.coordinator.claim(id, scope)).toBe(true);
        await backend.coordinator.release(id);
      });

      it('go with the writes: a commit that creates a task takes its claim, one that ends it drops the claim', async () => {
        const created = await backend.commit(creating(`${prefix}1`));
        const id = created.task.id;
        expect(await backend.coordinator.isClaimed(id)).toBe(true);
        expect(await backend.coordinator.claim(id, scope)).toBe(false);
        const working = await backend.commit(continuing(created));
        expect(await backend.coordinator.isClaimed(id)).toBe(true);
        await backend.commit(continuing(working, { state: 'TASK_STATE_COMPLETED' }));
        expect(await backend.coordinator.isClaimed(id)).toBe(false);
      });

      it('are left to none by a commit that creates and ends a task at once', async () => {
        const id = `${prefix}1`;
        const write = creating(id);
        await backend.commit({ ...write, events: [...write.events, stateEvent(id, 'TASK_STATE_COMPLETED')], next: makeTask(id, { state: 'TASK_STATE_COMPLETED' }) });
        expect(await backend.coordinator.isClaimed(id)).toBe(false);
      });

      it('end without a release once abandoned: the claim lapses, and the task can be claimed again', async () => {
        const created = await backend.commit(creating(`${prefix}1`));
        backend.coordinator.abandon(created.task.id);
        const claimAgain = () => backend.coordinator.claim(created.task.id, scope);
        await waitUntil(claimAgain, { attempts: Math.ceil((4 * leaseMs) / 50), intervalMs: 50 });
        expect(await backend.coordinator.isClaimed(created.task.id)).toBe(true); // ours again: claimAgain won it
        await backend.coordinator.release(created.task.id);
      });

      it("route a cancel request to the claim holder's listeners", async () => {
        const created = await backend.commit(creating(`${prefix}1`));
        const heard: string[] = [];
        backend.coordinator.onCancelRequest((taskId) => heard.push(taskId));
        await backend.coordinator.requestCancel(created.task.id);
        await waitUntil(() => heard.includes(created.task.id));
        expect(heard).toContain(created.task.id);
      });

      describe('across instances (with peer)', () => {
        it('hold against another instance, which sees them', async () => {
          const other = await peer();
          if (!other) return;
          const created = await backend.commit(creating(`${prefix}1`));
          expect(await other.coordinator.isClaimed(created.task.id)).toBe(true);
          expect(await other.coordinator.claim(created.task.id, scope)).toBe(false);
          await backend.commit(continuing(created, { state: 'TASK_STATE_CANCELED' }));
          expect(await other.coordinator.isClaimed(created.task.id)).toBe(false);
          expect(await other.coordinator.claim(created.task.id, scope)).toBe(true);
          await other.coordinator.release(created.task.id);
        });

        it('route a cancel request made on another instance to the holder only', async () => {
          const other = await peer();
          if (!other) return;
          const created = await backend.commit(creating(`${prefix}1`));
          const heard: Array<[string, string]> = [];
          backend.coordinator.onCancelRequest((taskId) => heard.push(['holder', taskId]));
          other.coordinator.onCancelRequest((taskId) => heard.push(['other', taskId]));
          // asked again until heard: an instance that just started may not listen yet
          await waitUntil(async () => {
            await other.coordinator.requestCancel(created.task.id);
            return heard.length > 0;
          });
          await new Promise((resolve) => setTimeout(resolve, 100)); // room for a wrong delivery
          expect(heard.length).toBeGreaterThan(0);
          expect(heard.every((entry) => entry[0] === 'holder' && entry[1] === created.task.id)).toBe(true);
        });

        it('report a task whose holder stopped renewing its claim as an orphan, once, with its scope', async () => {
          const other = await peer();
          if (!other) return;
          const orphans: Array<[string, TaskScope]> = [];
          // (claims that earlier tests' closed backends left to lapse are reported too: only this test's count)
          const hear = (taskId: string, orphanScope: TaskScope) => void (taskId.startsWith(prefix) && orphans.push([taskId, orphanScope]));
          for (const instance of [backend, other]) instance.coordinator.onOrphan(hear);
          const created = await other.commit(creating(`${prefix}1`));
          other.coordinator.abandon(created.task.id); // as an instance that died would
          await waitUntil(() => orphans.length > 0, { attempts: Math.ceil((4 * leaseMs) / 50), intervalMs: 50 });
          await new Promise((resolve) => setTimeout(resolve, leaseMs)); // a few more sweeps: nobody reports it again
          expect(orphans).toEqual([[created.task.id, scope]]);
        });
      });
    });

    it("admits a turn's message when the caller has nothing stored", async () => {
      await expect(backend.admit(scope, 1024)).resolves.toBeUndefined();
    });

    describe('byte budgets', () => {
      const budget = options.budgetPerCaller;
      /** A caller of this test alone (budgets are per tenant and subject, across agents). */
      const caller = (): TaskScope => ({ ...scope, subject: `caller-${prefix}` });
      /** Creates a task of `caller` in `state` whose history alone takes the whole budget. */
      const filling = (inScope: TaskScope, id: string, state: TaskState): TaskWrite => {
        const task = makeTask(id, { state, text: 'x'.repeat(budget ?? 0) });
        return { scope: inScope, current: undefined, events: [openingEvent(task)], next: task };
      };

      it('refuses a caller whose running task fills its budget (429 with a retry delay), and admits another caller', async () => {
        if (budget === undefined) return;
        const full = caller();
        await backend.commit(filling(full, `${prefix}1`, 'TASK_STATE_WORKING'));
        const refusal = await backend.admit(full, 1024).then(() => undefined, (error: unknown) => error);
        expect(refusal).toBeInstanceOf(ResourceExhaustedError);
        expect((refusal as ResourceExhaustedError).httpStatus).toBe(429);
        expect((refusal as ResourceExhaustedError).metadata.retryAfterSeconds).toMatch(/^[1-9]\d*$/);
        expect(await backend.store.get(full, `${prefix}1`)).toBeDefined(); // nothing running is dropped for room
        await expect(backend.admit({ ...full, subject: `other-${prefix}` }, 1024)).resolves.toBeUndefined();
      });

      it("lets the caller's finished task give way to its next turn", async () => {
        if (budget === undefined) return;
        const full = caller();
        await backend.commit(filling(full, `${prefix}1`, 'TASK_STATE_COMPLETED'));
        await expect(backend.admit(full, 1024)).resolves.toBeUndefined();
        expect(await backend.store.get(full, `${prefix}1`)).toBeUndefined();
      });
    });

    it('close() resolves', async () => {
      await backend.commit(creating(`${prefix}1`));
      const closed = await Promise.race([subject.close().then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still closing'), 5000))]);
      expect(closed).toBe('closed');
      subject = { ...subject, close: async () => undefined }; // closed once, as the module does
    });
  });
}
