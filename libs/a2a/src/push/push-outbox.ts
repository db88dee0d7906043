/**
 * The push outbox and the delivery cursors, in Redis: what makes push a projection of the task's log.
 *
 * | key (under the module's prefix) | type | holds |
 * |---|---|---|
 * | `push:due` | hash | taskId → `<seq> <terminal 0/1> <scope JSON>`: the task has configs and events up to `seq` may be undelivered |
 * | `push:cur:<sk>:<taskId>` | hash | configId → the last seq delivered (or given up) to that config |
 * | `push:try:<sk>:<taskId>` | hash | configId → the last failed attempt at the event after its cursor (JSON) |
 * | `push:run:<sk>:<taskId>` | hash | configId → the lease of the run sending that config's events: `<holder> <expiresAt ms> <notBefore ms>` (Redis time); the hash lives as long as its longest lease at least |
 *
 * The Redis task backend's commit script writes `push:due` in the same atomic step that appends the
 * events, whenever the task has a config (`push:cfg:<sk>:<taskId>` exists; see
 * tasks/redis/redis-task-scripts.ts, which builds both names itself: keep them in step). The relay
 * reads it, enqueues the job each lagging config needs next, and clears the entry (only if no commit
 * changed it meanwhile) once every config's cursor has reached it.
 *
 * The lease (`push:run`) makes one run at a time the sender of a config's events, so that a run may go
 * on from one event to the next without a job per event. Its holder is a job's `webhook-id`; it is
 * taken ({@link RedisPushOutbox.claim}), renewed and let go ({@link RedisPushOutbox.advance}) in the
 * same scripts that read `push:due` and move the cursor, which is what keeps a wake-up from being
 * lost: see ordered-push-delivery.ts. A lease lapses on its own (`expiresAt`), so a run that died
 * holds nothing for long; all times are Redis's clock (`TIME`), never an instance's.
 */
import type { Redis } from 'ioredis';
import { LuaScript } from '../redis/lua-script.js';
import { DEFAULT_KEY_PREFIX, scopeKey } from '../redis/redis-keys.js';
import type { TaskScope } from '../tasks/task-store.js';
import type { StoredPushConfig } from './push-config-store.js';
import { pushConfigKey } from './redis-push-config-store.js';

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

/**
 * Deletes a due entry if it is still the one read, giving the other keys (a finished task's configs,
 * cursors, failed attempts and leases) a TTL of ARGV[3] ms first. KEYS[1] push:due, KEYS[2..] the
 * keys to expire. ARGV taskId, entry, ttlMs.
 */
const CLEAR = new LuaScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
for i = 2, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
return redis.call('HDEL', KEYS[1], ARGV[1])`);

/** Redis's clock in ms, for the scripts that keep leases. */
const NOW = `local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)`;

/**
 * Keeps a lease hash at least `ms` longer (never shortens it): the hash outlives its leases and no
 * more, whether or not the relay has given the finished task's keys their TTL yet.
 */
const KEEP_FOR = `local function keep_for(key, ms)
  local ttl = redis.call('PTTL', key)
  if ttl == -1 or ttl < ms then redis.call('PEXPIRE', key, ms) end
end`;

/** A lease's holder, expiry and earliest start, or nils. */
const LEASE_OF = `local function lease_of(value)
  if not value then return nil end
  local holder, expires, notBefore = string.match(value, '^(%S+) (%d+) (%d+)$')
  return holder, tonumber(expires), tonumber(notBefore)
end`;

/**
 * Takes a config's lease for run ARGV[3] if it is free (absent, lapsed) or ARGV[3]'s already, and
 * something is due after the cursor (an absent cursor counts as ARGV[2]). KEYS[1] the cursor hash,
 * KEYS[2] push:due, KEYS[3] the lease hash, KEYS[4] the config hash. ARGV configId, start, holder,
 * leaseMs, taskId. Returns [state, cursor (-1: none yet), due seq, ms to wait, the config or false];
 * state 1 taken, 0 held by another run, 2 the holder's but not before the wait (a retry's backoff),
 * 3 nothing due (not taken).
 */
const CLAIM = new LuaScript(`${NOW}
${LEASE_OF}
${KEEP_FOR}
local config = redis.call('HGET', KEYS[4], ARGV[1])
local stored = redis.call('HGET', KEYS[1], ARGV[1])
local cursor = tonumber(stored or ARGV[2])
local due = redis.call('HGET', KEYS[2], ARGV[5])
due = due and tonumber(string.match(due, '^(%d+)')) or 0
local holder, expires, notBefore = lease_of(redis.call('HGET', KEYS[3], ARGV[1]))
local raw = stored and cursor or -1
if holder and expires > now then
  if holder ~= ARGV[3] then return { 0, raw, due, 0, config } end
  if notBefore > now then return { 2, raw, due, notBefore - now, config } end
end
if due <= cursor then
  if holder then redis.call('HDEL', KEYS[3], ARGV[1]) end
  return { 3, raw, due, 0, config }
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3] .. ' ' .. (now + tonumber(ARGV[4])) .. ' 0')
keep_for(KEYS[3], tonumber(ARGV[4]))
return { 1, raw, due, 0, config }`);

/**
 * Moves a config's cursor from ARGV[2] to ARGV[3] (an absent cursor counts as ARGV[4], the config's
 * starting point), and forgets the failed attempts of the event it leaves. Then, if run ARGV[6]
 * holds the lease: with ARGV[8] = 1 and an event due after the cursor, renews it for ARGV[7] ms
 * (the run goes on); otherwise lets it go. KEYS[1] the cursor hash, KEYS[2] push:due, KEYS[3] the
 * failed-attempt hash, KEYS[4] the lease hash, KEYS[5] the config hash. ARGV configId, from, to,
 * start, taskId, holder, leaseMs, goOn, ttlMs. Returns [moved 1/0, the cursor now, the task's due
 * seq (0 when nothing is due), goes on 1/0, the config when it goes on (false: none, or deleted)].
 * With ARGV[9] (a TTL) and nothing due after the cursor, it also does what the relay's CLEAR does once
 * every config of the task has caught up (a config without a cursor is at its `afterSeq`): a finished
 * task's keys get that TTL, and the due entry goes. Without it, or while one lags, the relay does.
 */
const ADVANCE = new LuaScript(`${NOW}
${LEASE_OF}
${KEEP_FOR}
local cursor = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or ARGV[4])
local moved = 0
if cursor == tonumber(ARGV[2]) and ARGV[2] ~= ARGV[3] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  redis.call('HDEL', KEYS[3], ARGV[1])
  cursor = tonumber(ARGV[3])
  moved = 1
end
local due = redis.call('HGET', KEYS[2], ARGV[5])
due = due and tonumber(string.match(due, '^(%d+)')) or 0
local goesOn = 0
if lease_of(redis.call('HGET', KEYS[4], ARGV[1])) == ARGV[6] then
  if ARGV[8] == '1' and due > cursor then
    redis.call('HSET', KEYS[4], ARGV[1], ARGV[6] .. ' ' .. (now + tonumber(ARGV[7])) .. ' 0')
    keep_for(KEYS[4], tonumber(ARGV[7]))
    goesOn = 1
  else
    redis.call('HDEL', KEYS[4], ARGV[1])
  end
end
if goesOn == 0 and due > 0 and due <= cursor and ARGV[9] then
  local configs = redis.call('HGETALL', KEYS[5])
  for i = 1, #configs, 2 do
    local at = tonumber(redis.call('HGET', KEYS[1], configs[i])) or tonumber(cjson.decode(configs[i + 1]).afterSeq) or 0
    if at < due then return { moved, cursor, due, goesOn, false } end
  end
  if #configs > 0 and string.match(redis.call('HGET', KEYS[2], ARGV[5]), '^%d+ 1 ') then
    for i = 1, 5 do if i ~= 2 then redis.call('PEXPIRE', KEYS[i], ARGV[9]) end end
  end
  redis.call('HDEL', KEYS[2], ARGV[5])
end
return { moved, cursor, due, goesOn, goesOn == 1 and redis.call('HGET', KEYS[5], ARGV[1]) }`);

/**
 * Hands a config's lease from run ARGV[2] to run ARGV[3], which may start in ARGV[4] ms (its job's
 * delay) and holds it ARGV[5] ms after that. KEYS[1] the lease hash. ARGV configId, from, to, delayMs,
 * leaseMs. Returns 1, or 0 when ARGV[2] no longer held it (nothing changed).
 */
const HAND_OVER = new LuaScript(`${NOW}
${LEASE_OF}
${KEEP_FOR}
local holder = lease_of(redis.call('HGET', KEYS[1], ARGV[1]))
if holder and holder ~= ARGV[2] then return 0 end
local start = now + tonumber(ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3] .. ' ' .. (start + tonumber(ARGV[5])) .. ' ' .. start)
keep_for(KEYS[1], tonumber(ARGV[4]) + tonumber(ARGV[5]))
return 1`);

/**
 * What the relay reads of a task, in one step: its due entry, its configs, their cursors and the
 * configs a live run leases. KEYS[1] push:due, KEYS[2] the config hash, KEYS[3] the cursor hash,
 * KEYS[4] the lease hash. ARGV taskId. Returns [the entry or false, HGETALL of the configs, HGETALL
 * of the cursors, the leased config ids].
 */
const PENDING = new LuaScript(`${NOW}
${LEASE_OF}
local leased = {}
local leases = redis.call('HGETALL', KEYS[4])
for i = 1, #leases, 2 do
  local holder, expires = lease_of(leases[i + 1])
  if holder and expires > now then leased[#leased + 1] = leases[i] end
end
return { redis.call('HGET', KEYS[1], ARGV[1]), redis.call('HGETALL', KEYS[2]), redis.call('HGETALL', KEYS[3]), leased }`);

/** A task's work as the relay reads it: its due entry (if any), its configs' starting points, their cursors, and the configs a live run leases. */
export interface Pending {
  readonly due: DueTask | undefined;
  /** configId → the seq its deliveries start after (the config's `afterSeq`, 0 without one). */
  readonly configs: Map<string, number>;
  readonly cursors: Map<string, number>;
  readonly leased: Set<string>;
}

/** What a run found when it asked for a config's lease, and the config as it is (undefined: deleted). */
export type Claim = { readonly config: StoredPushConfig | undefined } & (
  | { readonly state: 'taken' | 'idle'; readonly cursor: number | undefined; readonly dueSeq: number }
  /** Another run holds it; or this one does, but may start only in `waitMs` (its backoff). */
  | { readonly state: 'held' | 'early'; readonly cursor: number | undefined; readonly dueSeq: number; readonly waitMs: number }
);

/**
 * A config's cursor and the task's due seq after an advance; `goesOn`: the run still holds the lease
 * (more is due), and then `config` is the config as it is now (undefined: deleted meanwhile).
 */
export interface Advanced {
  readonly moved: boolean;
  readonly cursor: number;
  readonly dueSeq: number;
  readonly goesOn: boolean;
  readonly config?: StoredPushConfig;
}

const CLAIM_STATES = ['held', 'taken', 'early', 'idle'] as const;

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

  /**
   * Clears a due entry, unless a commit has changed it since it was read; `ttlMs` (a finished task):
   * its configs, cursors, failed attempts and leases go that long after, in the same step.
   */
  async clear(task: DueTask, ttlMs?: number): Promise<boolean> {
    const { scope, taskId } = task;
    const keys = ttlMs === undefined ? [] : [pushConfigKey(this.prefix, scope, taskId), this.cursorKey(scope, taskId), this.tryKey(scope, taskId), this.leaseKey(scope, taskId)];
    return Number(await CLEAR.run(this.redis, [this.dueKey, ...keys], [taskId, task.entry, Math.max(1, Math.round(ttlMs ?? 0))])) === 1;
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
   * Takes a config's lease for run `holder` (a job's `webhook-id`), if no other live run holds it
   * and an event is due after the cursor; `start` stands for a cursor not written yet.
   */
  async claim(scope: TaskScope, taskId: string, configId: string, holder: string, start: number, leaseMs: number): Promise<Claim> {
    const keys = [this.cursorKey(scope, taskId), this.dueKey, this.leaseKey(scope, taskId), pushConfigKey(this.prefix, scope, taskId)];
    const reply = (await CLAIM.run(this.redis, keys, [configId, start, holder, Math.round(leaseMs), taskId])) as [number, number, number, number, string | null];
    const [state, cursor, dueSeq, waitMs] = reply.slice(0, 4).map(Number);
    const at = cursor < 0 ? undefined : cursor;
    const config = parseConfig(reply[4]);
    return state === 1 || state === 3
      ? { state: CLAIM_STATES[state] as 'taken' | 'idle', cursor: at, dueSeq, config }
      : { state: CLAIM_STATES[state] as 'held' | 'early', cursor: at, dueSeq, waitMs, config };
  }

  /**
   * Moves a config's cursor from `from` to `to`, if it is still at `from` (`start` when it has none
   * yet); then, if run `holder` holds the lease, renews it when `goOn` and an event is due after the
   * cursor, or lets it go (in the same atomic step: a commit is seen either by the holder or, once the
   * lease is free, by the relay). `clearTtlMs`: the run also clears the task's due entry once every
   * config has caught up, giving a finished task's keys that TTL (what the relay would do next).
   */
  async advance(
    scope: TaskScope,
    taskId: string,
    configId: string,
    move: { from: number; to: number; start: number },
    lease: { holder: string; leaseMs: number; goOn: boolean },
    clearTtlMs?: number,
  ): Promise<Advanced> {
    const keys = [this.cursorKey(scope, taskId), this.dueKey, this.tryKey(scope, taskId), this.leaseKey(scope, taskId), pushConfigKey(this.prefix, scope, taskId)];
    const args = [configId, move.from, move.to, move.start, taskId, lease.holder, Math.round(lease.leaseMs), lease.goOn ? 1 : 0, ...(clearTtlMs === undefined ? [] : [Math.max(1, Math.round(clearTtlMs))])];
    const reply = (await ADVANCE.run(this.redis, keys, args)) as [number, number, number, number, string | null];
    const [moved, cursor, dueSeq, goesOn] = reply.slice(0, 4).map(Number);
    return { moved: moved === 1, cursor, dueSeq, goesOn: goesOn === 1, config: parseConfig(reply[4]) };
  }

  /**
   * Hands the lease from run `from` to run `to` (the job of the event `from` stopped at), which may
   * start in `delayMs`; false when `from` no longer held it.
   */
  async handOver(scope: TaskScope, taskId: string, configId: string, from: string, to: string, delayMs: number, leaseMs: number): Promise<boolean> {
    return Number(await HAND_OVER.run(this.redis, [this.leaseKey(scope, taskId)], [configId, from, to, Math.round(delayMs), Math.round(leaseMs)])) === 1;
  }

  /**
   * A task's due entry, its configs' starting points, their cursors, and the configs whose lease a
   * live run holds (the relay leaves their events to it): one command.
   */
  async pending(scope: TaskScope, taskId: string): Promise<Pending> {
    const keys = [this.dueKey, pushConfigKey(this.prefix, scope, taskId), this.cursorKey(scope, taskId), this.leaseKey(scope, taskId)];
    const [entry, configFlat, cursorFlat, leased] = (await PENDING.run(this.redis, keys, [taskId])) as [string | null, string[], string[], string[]];
    const configs = new Map<string, number>();
    for (let i = 0; i < configFlat.length; i += 2) configs.set(configFlat[i], parseConfig(configFlat[i + 1])?.afterSeq ?? 0);
    const cursors = new Map<string, number>();
    for (let i = 0; i < cursorFlat.length; i += 2) cursors.set(cursorFlat[i], Number(cursorFlat[i + 1]));
    return { due: entry === null ? undefined : parseDue(taskId, entry), configs, cursors, leased: new Set(leased) };
  }

  /** The configs of a task whose lease a live run holds. */
  async leased(scope: TaskScope, taskId: string): Promise<Set<string>> {
    return (await this.pending(scope, taskId)).leased;
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
    await this.redis.multi().hdel(this.cursorKey(scope, taskId), configId).hdel(this.tryKey(scope, taskId), configId).hdel(this.leaseKey(scope, taskId), configId).exec();
  }

  private cursorKey(scope: TaskScope, taskId: string): string {
    return `${this.prefix}push:cur:${scopeKey(scope)}:${taskId}`;
  }

  private tryKey(scope: TaskScope, taskId: string): string {
    return `${this.prefix}push:try:${scopeKey(scope)}:${taskId}`;
  }

  private leaseKey(scope: TaskScope, taskId: string): string {
    return `${this.prefix}push:run:${scopeKey(scope)}:${taskId}`;
  }
}

/** The scope as the commit script writes it (the same JSON as the task's `scope` field). */
function scopeJson(scope: TaskScope): string {
  return JSON.stringify({ agent: scope.agent, tenant: scope.tenant, subject: scope.subject });
}

function parseConfig(json: string | null | undefined): StoredPushConfig | undefined {
  return json ? (JSON.parse(json) as StoredPushConfig) : undefined;
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
