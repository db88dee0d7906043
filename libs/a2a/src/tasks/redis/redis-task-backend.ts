/**
 * Tasks in Redis, shared by every instance of an app: snapshots, one stream per task's log, claims
 * with leases, cancel requests over pub/sub. A commit is one Lua script that appends the events,
 * saves the snapshot and takes or drops this instance's claim: one round trip per batch of events.
 */
import type { Redis } from 'ioredis';
import { isTerminalState } from '../../protocol/types.js';
import { redisCall } from '../../redis/redis-call.js';
import { DEFAULT_KEY_PREFIX } from '../../redis/redis-keys.js';
import type { TaskBackend, TaskWrite } from '../task-backend.js';
import { ConcurrentTaskUpdateError, type StoredTask } from '../task-store.js';
import { RedisEventLog } from './redis-event-log.js';
import { RedisTaskCoordinator } from './redis-task-coordinator.js';
import { RedisTaskKeys } from './redis-task-keys.js';
import type { RedisTaskBackendOptions } from './redis-task-options.js';
import { COMMIT_EVENTS, snapshotArgs, type RedisRetention } from './redis-task-scripts.js';
import { RedisTaskStore } from './redis-task-store.js';

/**
 * `redis` is the app's command connection: the backend never closes it (its event log's reader and
 * its coordinator's subscriber are connections of their own, closed by `close()`). Give it the
 * options of {@link REDIS_FAIL_FAST_OPTIONS} so commands fail instead of hanging while Redis is down.
 * @publicApi
 */
export class RedisTaskBackend implements TaskBackend {
  readonly store: RedisTaskStore;
  readonly log: RedisEventLog;
  readonly coordinator: RedisTaskCoordinator;
  private readonly keys: RedisTaskKeys;
  private readonly retention: RedisRetention;

  /** @throws A2AConfigurationError when the client or the options cannot work (see `assertRedisBackendUsable`) */
  constructor(
    private readonly redis: Redis,
    options: RedisTaskBackendOptions,
  ) {
    this.store = new RedisTaskStore(redis, options);
    this.log = new RedisEventLog(redis, options);
    this.coordinator = new RedisTaskCoordinator(redis, options);
    this.keys = new RedisTaskKeys(options.keyPrefix ?? DEFAULT_KEY_PREFIX);
    this.retention = options.retention;
  }

  async commit({ scope, current, events, next }: TaskWrite): Promise<StoredTask> {
    const taskId = next.id;
    const ends = isTerminalState(next.status.state);
    const creates = current === undefined;
    // Renewals follow the claim from the moment the write that takes or drops it is sent: commands on
    // one connection run in order, so a renewal sent later finds what the write left. So the write that
    // ends the task stops them before it goes (none finds the claim gone and reports it lost), and a
    // reply that comes back after a later write was sent cannot bring back a claim that write dropped.
    if (ends) this.coordinator.abandon(taskId);
    else if (creates) this.coordinator.adopt(taskId);
    try {
      const { keys, args } = snapshotArgs(this.keys, this.retention, scope, next, current?.version ?? 0, current?.seq ?? 0);
      const claim = [this.coordinator.instanceId, this.coordinator.leaseMs, creates ? '1' : '0'];
      const reply = (await redisCall(() =>
        COMMIT_EVENTS.run(
          this.redis,
          [keys.task, this.keys.log(taskId), this.keys.lease(taskId), this.keys.claims(), ...keys.indexes],
          [...args, ...claim, ...events.map((e) => JSON.stringify(e))],
        ),
      )) as [number, number];
      const [version, seq] = reply.map(Number);
      if (version <= 0) throw new ConcurrentTaskUpdateError(taskId);
      return { task: next, scope, seq, version };
    } catch (error) {
      // nothing was taken, or nobody knows: a claim the write may have taken lapses
      if (creates) this.coordinator.abandon(taskId);
      throw error;
    }
  }

  /**
   * Redis holds its data outside the process, bounded by its own `maxmemory` and by key TTLs; byte
   * budgets per caller on Redis are not enforced yet (issue 17, item 2).
   */
  async admit(): Promise<void> {}

  /** Stops renewing and sweeping, then the store's sweep and the log's reader. */
  async close(): Promise<void> {
    await this.coordinator.close();
    await this.store.close();
    await this.log.close();
  }
}
