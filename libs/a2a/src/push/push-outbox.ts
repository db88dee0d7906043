/**
 * The push outbox and the delivery cursors, in Redis: what makes push a projection of the task's log.
 *
 * | key (under the module's prefix) | type | holds |
 * |---|---|---|
 * | `push:due` | hash | taskId → `<seq> <terminal 0/1> <scope JSON>`: the task has configs and events up to `seq` may be undelivered |
 * | `push:cur:<sk>:<taskId>` | hash | configId → the last seq delivered (or given up) to that config |
 * | `push:try:<sk>:<taskId>` | hash | configId → the last failed attempt at the event after its cursor (JSON) |
 *
 * The Redis task backend's commit script writes `push:due` in the same atomic step that appends the
 * events, whenever the task has a config (`push:cfg:<sk>:<taskId>` exists; see
 * tasks/redis/redis-task-scripts.ts, which builds both names itself: keep them in step). The relay
 * reads it, enqueues the job each lagging config needs next, and clears the entry (only if no commit
 * changed it meanwhile) once every config's cursor has reached it.
 */
import type { Redis } from 'ioredis';
import { LuaScript } from '../redis/lua-script.js';
import { DEFAULT_KEY_PREFIX, scopeKey } from '../redis/redis-keys.js';
import type { TaskScope } from '../tasks/task-store.js';

/** A task with work pending: events up to `seq`, for whichever of its configs lag behind. */
export interface DueTask {
  readonly taskId: string;
  readonly scope: TaskScope;
  readonly seq: number;
  /** The event at `seq` ended the task (its configs then expire with it). */
  readonly terminal: boolean;
  /** The entry as stored: clearing it succeeds only while it is unchanged. */
  readonly entry: string;
}

/** The last failed attempt at a config's next event. @publicApi */
export interface FailedAttempt {
  readonly seq: number;
  /** Attempts made so far. */
  readonly attempts: number;
  readonly lastError: string;
  readonly lastStatus?: number;
  /** RFC 3339: when the next attempt is due. */
  readonly nextAttemptAt: string;
}

/** Marks a task due up to ARGV[2] unless it already is up to that or later. KEYS[1] push:due. ARGV taskId, seq, terminal, scopeJson. */
const MARK = new LuaScript(`
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current and tonumber(string.match(current, '^(%d+)')) >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. ARGV[3] .. ' ' .. ARGV[4])
return 1`);

/** Deletes a due entry if it is still the one read. KEYS[1] push:due. ARGV taskId, entry. */
const CLEAR = new LuaScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0`);

/**
 * Moves a config's cursor from ARGV[2] to ARGV[3] (an absent cursor counts as ARGV[4], the config's
 * starting point), and forgets the failed attempts of the event it leaves. KEYS[1] the cursor hash,
 * KEYS[2] push:due, KEYS[3] the failed-attempt hash. ARGV configId, from, to, start, taskId.
 * Returns [moved 1/0, the cursor now, the task's due seq (0 when nothing is due)].
 */
const ADVANCE = new LuaScript(`
local cursor = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or ARGV[4])
local moved = 0
if cursor == tonumber(ARGV[2]) and ARGV[2] ~= ARGV[3] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  redis.call('HDEL', KEYS[3], ARGV[1])
  cursor = tonumber(ARGV[3])
  moved = 1
end
local due = redis.call('HGET', KEYS[2], ARGV[5])
return { moved, cursor, due and tonumber(string.match(due, '^(%d+)')) or 0 }`);

/** @internal */
export class RedisPushOutbox {
  private readonly prefix: string;
  private readonly dueKey: string;

  /** `redis`: the module's command client (fail-fast); never closed here. */
  constructor(
    private readonly redis: Redis,
    options: { keyPrefix?: string } = {},
  ) {
    this.prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.dueKey = `${this.prefix}push:due`;
  }

  /** Marks a task due up to `seq` (what the commit script does for the Redis task backend). */
  async mark(scope: TaskScope, taskId: string, seq: number, terminal: boolean): Promise<void> {
    await MARK.run(this.redis, [this.dueKey], [taskId, seq, terminal ? 1 : 0, scopeJson(scope)]);
  }

  /** One page of due tasks; `cursor` '0' starts, and the returned cursor '0' means the scan is done. */
  async scan(cursor: string, count: number): Promise<{ cursor: string; tasks: DueTask[] }> {
    const [next, flat] = await this.redis.hscan(this.dueKey, cursor, 'COUNT', count);
    const tasks: DueTask[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      const task = parseDue(flat[i], flat[i + 1]);
      if (task) tasks.push(task);
    }
    return { cursor: next, tasks };
  }

  /** The due entry of one task, if it has one. */
  async due(taskId: string): Promise<DueTask | undefined> {
    const entry = await this.redis.hget(this.dueKey, taskId);
    return entry === null ? undefined : parseDue(taskId, entry);
  }

  /** Clears a due entry, unless a commit has changed it since it was read. */
  async clear(task: DueTask): Promise<boolean> {
    return Number(await CLEAR.run(this.redis, [this.dueKey], [task.taskId, task.entry])) === 1;
  }

  /** One config's cursor: the last seq delivered or given up; undefined before its first (it is at its start). */
  async cursor(scope: TaskScope, taskId: string, configId: string): Promise<number | undefined> {
    const seq = await this.redis.hget(this.cursorKey(scope, taskId), configId);
    return seq === null ? undefined : Number(seq);
  }

  /** The cursors of a task's configs (configId → last seq done); configs without one are at their start. */
  async cursors(scope: TaskScope, taskId: string): Promise<Map<string, number>> {
    const all = await this.redis.hgetall(this.cursorKey(scope, taskId));
    return new Map(Object.entries(all).map(([id, seq]) => [id, Number(seq)]));
  }

  /**
   * Moves a config's cursor from `from` to `to`, if it is still at `from` (`start` when it has none yet).
   * @returns whether it moved, where it is now, and the task's due seq (0: nothing due)
   */
  async advance(scope: TaskScope, taskId: string, configId: string, from: number, to: number, start: number): Promise<{ moved: boolean; cursor: number; dueSeq: number }> {
    const reply = (await ADVANCE.run(this.redis, [this.cursorKey(scope, taskId), this.dueKey, this.tryKey(scope, taskId)], [configId, from, to, start, taskId])) as number[];
    return { moved: Number(reply[0]) === 1, cursor: Number(reply[1]), dueSeq: Number(reply[2]) };
  }

  /** The last failed attempt at the event after a config's cursor (what an operator sees of a delivery that waits). */
  async recordFailedAttempt(scope: TaskScope, taskId: string, configId: string, attempt: FailedAttempt): Promise<void> {
    await this.redis.hset(this.tryKey(scope, taskId), configId, JSON.stringify(attempt));
  }

  /** The last failed attempt of each config's next event (configId → attempt); an event that was sent or given up has none. */
  async failedAttempts(scope: TaskScope, taskId: string): Promise<Map<string, FailedAttempt>> {
    const all = await this.redis.hgetall(this.tryKey(scope, taskId));
    return new Map(Object.entries(all).map(([id, json]) => [id, JSON.parse(json) as FailedAttempt]));
  }

  /** A config is gone (deleted, 410): its cursor goes too. */
  async forget(scope: TaskScope, taskId: string, configId: string): Promise<void> {
    await this.redis.multi().hdel(this.cursorKey(scope, taskId), configId).hdel(this.tryKey(scope, taskId), configId).exec();
  }

  /** The task has finished: its cursors go when its configs do. */
  async expire(scope: TaskScope, taskId: string, ttlMs: number): Promise<void> {
    const ms = Math.max(1, Math.round(ttlMs));
    await this.redis.multi().pexpire(this.cursorKey(scope, taskId), ms).pexpire(this.tryKey(scope, taskId), ms).exec();
  }

  private cursorKey(scope: TaskScope, taskId: string): string {
    return `${this.prefix}push:cur:${scopeKey(scope)}:${taskId}`;
  }

  private tryKey(scope: TaskScope, taskId: string): string {
    return `${this.prefix}push:try:${scopeKey(scope)}:${taskId}`;
  }
}

/** The scope as the commit script writes it (the same JSON as the task's `scope` field). */
function scopeJson(scope: TaskScope): string {
  return JSON.stringify({ agent: scope.agent, tenant: scope.tenant, subject: scope.subject });
}

function parseDue(taskId: string, entry: string): DueTask | undefined {
  const match = /^(\d+) ([01]) (.*)$/s.exec(entry);
  if (!match) return undefined;
  try {
    return { taskId, seq: Number(match[1]), terminal: match[2] === '1', scope: JSON.parse(match[3]) as TaskScope, entry };
  } catch {
    return undefined;
  }
}
