import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { TaskContext } from '../task-context.js';
import { TaskManager } from '../engine/task-manager.js';
import type { RunnableAgent } from '../engine/turn.js';
import type { TaskScope } from '../task-store.js';
import { RedisTaskBackend } from './redis-task-backend.js';
import { RedisTaskCoordinator } from './redis-task-coordinator.js';
import { Redis } from 'ioredis';
import { REDIS_FAIL_FAST_OPTIONS } from '../../redis/redis-connection.js';
import { RedisProxy } from '../../redis/testing/redis-proxy.js';
import { keysUnder, redisOfSpec } from '../../redis/testing/redis-test-support.js';
import { waitUntil } from '../../testing/wait-until.js';

const redis = redisOfSpec();
const { prefix } = redis;
const scope: TaskScope = { agent: 'agent', tenant: '', subject: 'alice' };

/** One app instance: the Redis backend and a task manager on it. */
function instance(leaseMs: number) {
  const backend = new RedisTaskBackend(redis.client, { keyPrefix: prefix, leaseMs, retention: { ttlMs: 60_000, maxTerminalTasks: 1000 } });
  const manager = new TaskManager({ backend }, { executorTimeoutMs: 60_000 });
  return {
    coordinator: backend.coordinator,
    store: backend.store,
    manager,
    close: async () => {
      await manager.shutdown();
      await backend.close();
    },
  };
}

/** An agent whose every turn goes WORKING, then runs `rest`. */
function agentThat(rest: (ctx: TaskContext) => Promise<void>): RunnableAgent {
  return {
    name: 'agent',
    executor: {
      async execute(ctx: TaskContext) {
        await ctx.working();
        await rest(ctx);
      },
    },
  };
}

function start(manager: TaskManager, agent: RunnableAgent) {
  return manager.send({ agent, scope, request: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] } }, caller: { subject: 'alice' }, extensions: [] });
}

describe('RedisTaskCoordinator with the task manager', () => {
  it('renews running claims while tasks end, without ever reporting one of them lost', async () => {
    const warnings: string[] = [];
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
    // renewals every 300 ms, racing the writes that end the tasks (and drop their claims); a lease
    // of 900 ms, so that only the race can lose a claim, not an event loop stalled by a loaded machine
    const one = instance(900);
    try {
      const agent = agentThat(async (ctx) => {
        await sleep(Math.random() * 1200);
        await ctx.complete();
      });
      const turns = await Promise.all(Array.from({ length: 100 }, () => start(one.manager, agent)));
      await Promise.all(turns.map((t) => t.settled));
      await sleep(700); // a few more renewals after the last task ended
      expect(warnings.filter((w) => w.includes('Lost the claim'))).toEqual([]);
      expect((await keysUnder(redis.client, prefix)).filter((k) => k.includes(':lease:'))).toEqual([]);
      expect(await redis.client.hlen(`${prefix}claims`)).toBe(0);
    } finally {
      warn.mockRestore();
      await one.close();
    }
  });

  it('reports each lapsed claim once, across sweeps of many pages and several instances', async () => {
    const scopeOf = (id: string): TaskScope => ({ ...scope, subject: `subject-${id}` });
    // a long lease: on a loaded machine a short one could lapse while the 1,200 claims are taken,
    // and the dying instance's own sweep would take (and report to nobody) what the survivors must
    const dying = new RedisTaskCoordinator(redis.client, { keyPrefix: prefix, leaseMs: 60_000 });
    const ids = Array.from({ length: 1200 }, () => randomUUID());
    expect(await Promise.all(ids.map((id) => dying.claim(id, scopeOf(id))))).toEqual(ids.map(() => true));
    await dying.close(); // stops renewing and drops its leases: every claim is left for the survivors' sweeps
    const reported: Array<[string, TaskScope]> = [];
    const survivors = [1, 2].map(() => new RedisTaskCoordinator(redis.client, { keyPrefix: prefix, leaseMs: 300 }));
    try {
      survivors.forEach((c) => c.onOrphan((id, orphanScope) => reported.push([id, orphanScope])));
      // a loaded machine sweeps slower: a generous bound costs nothing when the sweeps are quick
      await waitUntil(() => reported.length >= ids.length, { attempts: 400, intervalMs: 50 });
      await sleep(400); // a few more sweeps: nothing is reported twice
      expect(reported.map(([id]) => id).sort()).toEqual([...ids].sort());
      for (const [id, orphanScope] of reported) expect(orphanScope).toEqual(scopeOf(id));
      expect(await redis.client.hlen(`${prefix}claims`)).toBe(0);
    } finally {
      await Promise.all(survivors.map((c) => c.close()));
    }
  }, 60_000);

  it('fails every task of an instance that stopped, once each, on one of the instances left', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const [dying, b, c] = [instance(300), instance(300), instance(300)];
    try {
      // the dying instance's executors never write again: it stops renewing, as a killed process would
      const turns = await Promise.all(Array.from({ length: 30 }, () => start(dying.manager, agentThat(() => new Promise<void>(() => undefined)))));
      const ids = await Promise.all(turns.map(async (t) => ((await t.started) as { taskId: string }).taskId));
      await dying.coordinator.close();
      const states = async () => Promise.all(ids.map(async (id) => (await b.store.get(scope, id))?.task.status));
      await waitUntil(async () => (await states()).every((s) => s?.state === 'TASK_STATE_FAILED'), { attempts: 400, intervalMs: 50 });
      for (const status of await states()) {
        expect(status?.state).toBe('TASK_STATE_FAILED');
        expect(status?.message?.parts).toEqual([{ text: 'The agent instance running this task stopped before finishing it.' }]);
      }
      // one FAILED event per task: the instances left did not both fail it
      for (const id of ids) {
        const events = await redis.client.xrange(`${prefix}log:${id}`, '-', '+');
        expect(events.map(([, fields]) => JSON.parse(fields[1]).statusUpdate?.status.state ?? 'task')).toEqual(['task', 'TASK_STATE_WORKING', 'TASK_STATE_FAILED']);
      }
      expect(await redis.client.hlen(`${prefix}claims`)).toBe(0);
    } finally {
      warn.mockRestore();
      await Promise.all([b.close(), c.close()]);
      await dying.store.close();
    }
  }, 60_000);

  it('hands the claims it still holds over when it closes: a survivor reports them at its next sweep, not once they lapse', async () => {
    const leaseMs = 4_000;
    const closing = new RedisTaskCoordinator(redis.client, { keyPrefix: prefix, leaseMs });
    const survivor = new RedisTaskCoordinator(redis.client, { keyPrefix: prefix, leaseMs });
    const ids = [randomUUID(), randomUUID()];
    try {
      for (const id of ids) expect(await closing.claim(id, scope)).toBe(true);
      const reported: string[] = [];
      survivor.onOrphan((id) => reported.push(id));
      const t0 = Date.now();
      await closing.close();
      expect((await keysUnder(redis.client, prefix)).filter((k) => ids.some((id) => k.endsWith(`lease:${id}`)))).toEqual([]);
      await waitUntil(() => reported.length === ids.length, { attempts: 100, intervalMs: 50 });
      expect(reported.sort()).toEqual([...ids].sort());
      // its sweep runs every leaseMs / 2: well before the leases would have lapsed
      expect(Date.now() - t0).toBeLessThan(leaseMs);
    } finally {
      await survivor.close();
    }
  }, 30_000);

  it('keeps its cancel channel when the connection drops again while it re-subscribes: no unhandled rejection, and cancels from another instance arrive once Redis answers', async () => {
    // a SUBSCRIBE rejected with no handler (ioredis's own re-subscribe) fails this test: Jest reports it
    const warnings: string[] = [];
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
    const proxy = await RedisProxy.start();
    const client = new Redis(proxy.url, { ...REDIS_FAIL_FAST_OPTIONS, connectionName: 'a2a-test-proxied', lazyConnect: true });
    client.on('error', () => undefined);
    await client.connect();
    const flaky = new RedisTaskCoordinator(client, { keyPrefix: prefix, leaseMs: 60_000 });
    const other = new RedisTaskCoordinator(redis.client, { keyPrefix: prefix, leaseMs: 60_000 });
    const cancelled: string[] = [];
    flaky.onCancelRequest((id) => cancelled.push(id));
    /** A task `flaky` runs, cancelled from `other` (a PUBLISH) until the cancel arrives. */
    const cancelArrives = async () => {
      const id = randomUUID();
      flaky.adopt(id);
      await waitUntil(async () => (await other.requestCancel(id), cancelled.includes(id)), { attempts: 100, intervalMs: 50 });
      return cancelled.includes(id);
    };
    try {
      expect(await cancelArrives()).toBe(true);

      // the connection drops; the subscriber reconnects and its SUBSCRIBE never gets an answer…
      proxy.swallow('$9\r\nsubscribe\r\n'); // the command, not the connection's name
      proxy.cut();
      await waitUntil(() => proxy.swallowedWrites > 0);
      expect(proxy.swallowedWrites).toBeGreaterThan(0);
      // …because the connection drops again and Redis stays unreachable: the SUBSCRIBE fails
      await proxy.stop();
      await waitUntil(() => warnings.some((w) => w.startsWith('Cancel channel unavailable')));
      expect(warnings.filter((w) => w.startsWith('Cancel channel unavailable'))).toHaveLength(1);

      proxy.swallow(undefined);
      await proxy.resume();
      expect(await cancelArrives()).toBe(true);
    } finally {
      warn.mockRestore();
      await Promise.all([flaky.close(), other.close()]);
      client.disconnect();
      await proxy.stop();
    }
  }, 30_000);
});
