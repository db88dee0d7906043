/**
 * Tasks in Redis, shared by every instance of an app: snapshots, one stream per task's log, claims
 * with leases, cancel requests over pub/sub. A commit is one Lua script that appends the events,
 * saves the snapshot and takes or drops this instance's claim: one round trip per batch of events.
 */
import type { Redis } from 'ioredis';
import { isTerminalState } from '../../protocol/types.js';
import { answersPing, redisCall } from '../../redis/redis-call.js';
import { DEFAULT_KEY_PREFIX } from '../../redis/redis-keys.js';
import { DEFAULT_STORAGE_BUDGET, storageBudgetExhausted, type StorageBudgetOptions } from '../storage-budget.js';
import type { TaskBackend, TaskWrite } from '../task-backend.js';
import { ConcurrentTaskUpdateError, type StoredTask, type TaskScope } from '../task-store.js';
import { RedisEventLog } from './redis-event-log.js';
import { RedisTaskCoordinator } from './redis-task-coordinator.js';
import { RedisTaskKeys } from './redis-task-keys.js';
import type { RedisTaskBackendOptions } from './redis-task-options.js';
import { ADMIT_TURN, COMMIT_EVENTS, snapshotArgs, type RedisRetention } from './redis-task-scripts.js';
import { RedisTaskStore } from './redis-task-store.js';

/** How long the health check's PING may take. */
const HEALTH_PING_MS = 1_000;
/** How many tasks whose time is up an admission expires before it counts (the sweep takes the rest). */
const ADMIT_EXPIRE_BATCH = 500;
/** How many times Redis stores a turn's message: in the snapshot's history, and in the log. */
const STORED_COPIES = 2;

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
  private readonly budget: StorageBudgetOptions;

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
    this.budget = options.budget ?? DEFAULT_STORAGE_BUDGET;
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
   * Room for `bytes` more of `scope`'s caller, counted in Redis for every instance at once: tasks
   * whose time is up go first, then finished tasks give way, oldest first (the caller's own for its
   * budget, anyone's for the overall one), all in one script. Room is made for twice `bytes`: Redis
   * holds a message twice, in the snapshot's history and in the log, and a turn admitted within the
   * budget should leave it within, so that the caller can still answer its interrupted tasks.
   * @throws ResourceExhaustedError (429, `Retry-After: 30`) when running and interrupted tasks fill a budget
   */
  async admit(scope: TaskScope, bytes: number): Promise<void> {
    const { maxBytes, maxBytesPerCaller } = this.budget;
    const args = [this.keys.prefix, this.keys.owner(scope), Math.ceil(bytes) * STORED_COPIES, maxBytes, maxBytesPerCaller, ADMIT_EXPIRE_BATCH];
    const admitted = await redisCall(() => ADMIT_TURN.run(this.redis, [], args));
    if (Number(admitted) !== 1) throw storageBudgetExhausted();
  }

  /** Bytes of stored tasks (snapshots and logs), overall or of one caller (tenant and subject), as Redis counts them. */
  async storedBytes(scope?: TaskScope): Promise<number> {
    const field = scope === undefined ? '*' : this.keys.owner(scope);
    return Number((await redisCall(() => this.redis.hget(this.keys.budget(), field))) ?? 0);
  }

  /**
   * The command connection answers a PING (within a second), the event log's reader and the cancel
   * subscriber are connected. Never throws.
   */
  async health(): Promise<Record<string, boolean>> {
    return { redis: await answersPing(this.redis, HEALTH_PING_MS), eventLogReader: this.log.readerConnected(), cancelSubscriber: this.coordinator.subscriberConnected() };
  }

  /** Stops renewing and sweeping, then the store's sweep and the log's reader. */
  async close(): Promise<void> {
    await this.coordinator.close();
    await this.store.close();
    await this.log.close();
  }
}
