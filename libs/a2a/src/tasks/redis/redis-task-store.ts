/**
 * Task snapshots in Redis, shared by every instance of an app. Key layout: see redis-task-keys.ts; the
 * writes and the ListTasks reads are Lua scripts (redis-task-scripts.ts), so each is one atomic step.
 */
import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { Task } from '../../protocol/types.js';
import { decodeCursor, encodeCursor, type SortKey } from '../list-cursor.js';
import { ConcurrentTaskUpdateError, type StoredTask, type TaskPage, type TaskQuery, type TaskScope, type TaskStore } from '../task-store.js';
import { redisCall } from '../../redis/redis-call.js';
import { DEFAULT_KEY_PREFIX } from '../../redis/redis-keys.js';
import { RedisTaskKeys, indexMember, sortKeyOfMember, timeKey } from './redis-task-keys.js';
import { assertRedisBackendUsable, type RedisTaskBackendOptions } from './redis-task-options.js';
import { GET_TASK, LIST_TASKS, SAVE_TASK, SWEEP_EXPIRED, snapshotArgs, type RedisRetention } from './redis-task-scripts.js';

/** How many expired tasks one sweep script removes, and how many scripts one timer tick runs at most. */
const SWEEP_BATCH = 500;
const SWEEP_BATCHES_PER_TICK = 20;

/**
 * Task snapshots in Redis: one hash per task, sorted-set indexes per scope (and per contextId,
 * status, and both) for ListTasks, expiry of terminal tasks after `retention.ttlMs`. Part of the
 * {@link RedisTaskBackend}, whose commits write snapshot and log together.
 *
 * `redis` is the app's command connection: this store never closes it. Give it the options of
 * {@link REDIS_FAIL_FAST_OPTIONS} so commands fail instead of hanging while Redis is down.
 * @publicApi
 */
export class RedisTaskStore implements TaskStore {
  private readonly logger = new Logger(RedisTaskStore.name);
  private readonly keys: RedisTaskKeys;
  private readonly ttlMs: number;
  private readonly retention: RedisRetention;
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  private sweepFailing = false;

  constructor(
    private readonly redis: Redis,
    options: RedisTaskBackendOptions,
  ) {
    assertRedisBackendUsable(redis, options);
    this.keys = new RedisTaskKeys(options.keyPrefix ?? DEFAULT_KEY_PREFIX);
    this.ttlMs = options.retention.ttlMs;
    this.retention = options.retention;
    // ListTasks sweeps its own scope before counting; this timer bounds what scopes nobody lists leave behind
    this.timer = setInterval(() => void this.sweep(), Math.min(this.ttlMs, 60_000));
    this.timer.unref();
  }

  async get(scope: TaskScope, taskId: string): Promise<StoredTask | undefined> {
    // the scope is checked in Redis: another caller's task costs what a missing one does, nothing of it is read
    const fields = (await redisCall(() => GET_TASK.run(this.redis, [this.keys.task(taskId)], [this.keys.scope(scope)]))) as Array<string | null> | null;
    if (fields === null) return undefined;
    const [task, storedScope, seq, version] = fields;
    if (task === null || storedScope === null) return undefined;
    return { task: JSON.parse(task) as Task, scope: JSON.parse(storedScope) as TaskScope, seq: Number(seq), version: Number(version) };
  }

  async save(scope: TaskScope, task: Task, seq: number, expectedVersion: number): Promise<StoredTask> {
    const { keys, args } = snapshotArgs(this.keys, this.retention, scope, task, expectedVersion, seq);
    const version = await redisCall(() => SAVE_TASK.run(this.redis, [keys.task, ...keys.indexes], args));
    if (Number(version) <= 0) throw new ConcurrentTaskUpdateError(task.id);
    return { task, scope, seq, version: Number(version) };
  }

  async list(scope: TaskScope, query: TaskQuery): Promise<TaskPage> {
    const cursor = query.pageToken ? decodeCursor(query.pageToken) : undefined;
    let min = '-';
    if (query.statusTimestampAfter !== undefined) {
      const after = Date.parse(query.statusTimestampAfter);
      // as in memory: no time is at or after an unparseable one
      if (Number.isNaN(after)) return { tasks: [], totalSize: 0, nextPageToken: '' };
      min = `[${timeKey(Math.ceil(after))}`;
    }
    const scopeKey = this.keys.scope(scope);
    const pageSize = Math.max(0, Math.trunc(query.pageSize));
    const reply = (await redisCall(() =>
      LIST_TASKS.run(
        this.redis,
        [this.keys.index(scopeKey, { contextId: query.contextId, status: query.status })],
        [this.keys.prefix, scopeKey, min, cursor ? upperBoundAfter(cursor) : '+', pageSize],
      ),
    )) as Array<string | number>;
    const tasks: Task[] = [];
    let last: SortKey | undefined;
    for (let i = 2; i + 1 < reply.length; i += 2) {
      const json = String(reply[i + 1]);
      if (json === '') continue; // an index entry without a snapshot: the scripts never leave one
      tasks.push(JSON.parse(json) as Task);
      last = sortKeyOfMember(String(reply[i]));
    }
    return {
      tasks,
      totalSize: Number(reply[0]),
      nextPageToken: Number(reply[1]) === 1 && last ? encodeCursor(last) : '',
    };
  }

  /** Removes terminal tasks whose time is up from the indexes, across all scopes. */
  async sweep(): Promise<void> {
    try {
      for (let batch = 0; batch < SWEEP_BATCHES_PER_TICK && !this.closed; batch++) {
        const removed = Number(await SWEEP_EXPIRED.run(this.redis, [], [this.keys.prefix, SWEEP_BATCH]));
        if (removed < SWEEP_BATCH) break;
      }
      if (this.sweepFailing) this.logger.log('Sweeping expired tasks works again');
      this.sweepFailing = false;
    } catch (error) {
      // Redis is down or slow; the next tick tries again, and ListTasks sweeps its own scope anyway
      if (!this.sweepFailing && !this.closed) this.logger.warn(`Sweeping expired tasks failed: ${(error as Error).message}`);
      this.sweepFailing = true;
    }
  }

  /** Stops the sweep timer. The Redis client belongs to the caller and stays open. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
  }
}

/** The lex bound that selects the members strictly after `cursor` in newest-first order. */
function upperBoundAfter(cursor: SortKey): string {
  // our tokens carry whole milliseconds; for any other number, everything older than it follows
  return Number.isInteger(cursor.time) ? `(${indexMember(cursor)}` : `(${timeKey(Math.ceil(cursor.time))}`;
}
