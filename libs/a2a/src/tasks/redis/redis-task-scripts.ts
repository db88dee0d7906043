/**
 * The Lua scripts of the Redis task store and event log. Each runs atomically on the server, which is
 * what makes optimistic concurrency, index upkeep and exact counts hold with many app instances.
 * Key names built here mirror `RedisTaskKeys` (see redis-task-keys.ts).
 */
import { isInterruptedState, isTerminalState, type Task } from '../../protocol/types.js';
import { LuaScript } from '../../redis/lua-script.js';
import { sortKeyOf } from '../list-cursor.js';
import { DEFAULT_INTERRUPTED_TTL_MS, type RetentionOptions } from '../retention.js';
import type { TaskScope } from '../task-store.js';
import { ADMIT_BODY, BUDGET_FUNCTIONS } from './redis-budget-scripts.js';
import { TIME_KEY_LENGTH, timeKey, type RedisTaskKeys } from './redis-task-keys.js';

/** Helpers shared by the task-store scripts (the byte budgets' first: `expire` releases a task's bytes). */
const COMMON = `${BUDGET_FUNCTIONS}
local function now_ms()
  local t = server_time()
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Takes a task off the expiring sets; with remove_indexes, also out of the indexes it was in when it
-- became terminal (its snapshot, which names them, is gone or about to be). A task is on the
-- expiring sets exactly when it has an expiring-info entry (the scripts write and remove them together).
local function forget(prefix, id, remove_indexes)
  local info_key = prefix .. 'expiring-info'
  local raw = redis.call('HGET', info_key, id)
  if raw then
    local info = cjson.decode(raw)
    if remove_indexes then
      local member = info.tk .. ':' .. id
      for _, key in ipairs(info.idx) do redis.call('ZREM', key, member) end
    end
    redis.call('ZREM', prefix .. 'expiring:' .. info.sk, id)
    redis.call('ZREM', prefix .. 'expiring', id)
    redis.call('HDEL', info_key, id)
  end
end

-- A terminal task whose time is up: everything about it goes.
local function expire(prefix, id)
  forget(prefix, id, true)
  redis.call('DEL', prefix .. 'task:' .. id)
  release_bytes(prefix, id)
end
`;

/**
 * refused(current, expected, sk): whether a write expecting `expected` must be refused, given
 * `current` = HMGET task_key version sk tk idx: another version, or the task belongs to another scope.
 *
 * save_snapshot(current, task_key, index_keys, prefix, id, expected, sk, scope_json, task_json, seq, tk, terminal, ttl):
 * writes a snapshot that `refused` let through and keeps the indexes exact. Returns the new version.
 * The indexes are rewritten only when the task moves in them (status time, state or context
 * changed): an artifact update touches none.
 */
const SAVE_SNAPSHOT = `
local function read_snapshot(task_key)
  return redis.call('HMGET', task_key, 'version', 'sk', 'tk', 'idx')
end

local function refused(current, expected, sk)
  if current[1] then return tonumber(current[1]) ~= expected or current[2] ~= sk end
  return expected ~= 0
end

local function save_snapshot(current, task_key, index_keys, prefix, id, expected, sk, scope_json, task_json, seq, tk, terminal, ttl)
  local encoded_idx = cjson.encode(index_keys)
  local moved = true
  if current[1] then
    moved = current[3] ~= tk or current[4] ~= encoded_idx
    if moved then
      local old_member = current[3] .. ':' .. id
      for _, key in ipairs(cjson.decode(current[4])) do redis.call('ZREM', key, old_member) end
    end
  else
    -- a task of this id may have expired without being swept yet: its index entries go now
    forget(prefix, id, true)
  end
  if moved then
    local member = tk .. ':' .. id
    for _, key in ipairs(index_keys) do redis.call('ZADD', key, 0, member) end
  end
  local version = expected + 1
  redis.call('HSET', task_key, 'task', task_json, 'scope', scope_json, 'sk', sk, 'seq', seq, 'version', version, 'tk', tk, 'idx', encoded_idx)
  if terminal ~= '0' then
    -- finished ('1') or interrupted ('2'): kept for its ttl, then swept like a finished task.
    -- PEXPIREAT and the expiring score share one instant, so "due" and "expired" agree exactly
    local at = now_ms() + tonumber(ttl)
    redis.call('PEXPIREAT', task_key, at)
    redis.call('ZADD', prefix .. 'expiring', at, id)
    redis.call('ZADD', prefix .. 'expiring:' .. sk, at, id)
    redis.call('HSET', prefix .. 'expiring-info', id, cjson.encode({ sk = sk, tk = tk, idx = index_keys }))
  elseif current[1] and redis.call('PTTL', task_key) > 0 then
    -- interrupted (or terminal) before, live again: it no longer expires
    redis.call('PERSIST', task_key)
    forget(prefix, id, false)
  end
  return version
end
`;

/**
 * append_events(log_key, expected_seq, events, terminal, ttl): appends the events (a list of JSON
 * texts) when the stream's last sequence number is the expected one; with `terminal`, the log
 * expires after `ttl`. Returns the last new sequence number, or -1 when the log has moved on (or
 * was expected to exist and does not).
 */
const APPEND = `
local function append_events(log_key, expected_seq, events, terminal, ttl)
  if #events == 0 then return expected_seq end
  local last = 0
  local top = redis.call('XREVRANGE', log_key, '+', '-', 'COUNT', 1)
  if top[1] then last = tonumber(string.match(top[1][1], '^(%d+)')) end
  if last ~= expected_seq then return -1 end
  for i, event_json in ipairs(events) do
    redis.call('XADD', log_key, string.format('%d-0', expected_seq + i), 'e', event_json)
  end
  if terminal ~= '0' then redis.call('PEXPIRE', log_key, ttl) end
  return expected_seq + #events
end
`;

/**
 * A running turn's claim (the coordinator's CLAIM and RELEASE, and the commit script's inline claim):
 * take_claim(lease_key, claims_key, instance, ms, task_id, scope_json) sets the lease if it is free
 * and remembers the claim's scope (1), or leaves both (0); drop_claim(lease_key, claims_key,
 * instance, task_id) drops our own lease and claim, and nobody else's.
 */
export const CLAIM_FUNCTIONS = `
local function take_claim(lease_key, claims_key, instance, ms, task_id, scope_json)
  if redis.call('SET', lease_key, instance, 'PX', ms, 'NX') then
    redis.call('HSET', claims_key, task_id, scope_json)
    return 1
  end
  return 0
end

local function drop_claim(lease_key, claims_key, instance, task_id)
  if redis.call('GET', lease_key) == instance then
    redis.call('DEL', lease_key)
    redis.call('HDEL', claims_key, task_id)
  end
end
`;

function indexKeys(from: number): string {
  return `local index_keys = {}
for i = ${from}, #KEYS do index_keys[#index_keys + 1] = KEYS[i] end`;
}

/**
 * Writes a snapshot (see save_snapshot). KEYS[1] the task hash, KEYS[2..] the indexes the new
 * snapshot belongs to. ARGV prefix, taskId, expectedVersion, scopeKey, scopeJson, taskJson, seq,
 * timeKey, expiry (1 terminal, 2 interrupted, 0 live), ttlMs. Returns the new version, or 0 when refused.
 */
export const SAVE_TASK = new LuaScript(`${COMMON}${SAVE_SNAPSHOT}
${indexKeys(2)}
local current = read_snapshot(KEYS[1])
if refused(current, tonumber(ARGV[3]), ARGV[4]) then return 0 end
local version = save_snapshot(current, KEYS[1], index_keys, ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10])
-- byte budgets (redis-budget-scripts.ts)
count_bytes(ARGV[1], ARGV[2], ARGV[4], tonumber(ARGV[3]) == 0, #ARGV[6], 0, ARGV[9] == '1')
return version
`);

/**
 * The push outbox (issue 13), written by the commit itself so that no instance can die between
 * storing events and recording that they are to be sent: when the task has push configs, the task
 * is marked due up to this commit's last event (`push:due`, taskId → `<seq> <terminal> <scope JSON>`).
 * Key names mirror push/push-outbox.ts and push/redis-push-config-store.ts. A task without configs
 * (every task of an app without push) costs one EXISTS.
 */
const PUSH_OUTBOX = `
if redis.call('EXISTS', ARGV[1] .. 'push:cfg:' .. ARGV[4] .. ':' .. ARGV[2]) == 1 then
  redis.call('HSET', ARGV[1] .. 'push:due', ARGV[2], seq .. ' ' .. ARGV[9] .. ' ' .. ARGV[5])
end`;

/**
 * Commits events: appends them to the task's log and saves the snapshot they fold into, in one
 * atomic step, so the snapshot never lags the log and a stale writer changes nothing. With an
 * instance id, the same step takes that instance's claim (lease + claims entry) when asked, and
 * drops it when the task ends; with push configs, it marks the task due (see PUSH_OUTBOX).
 * KEYS[1] the task hash, KEYS[2] the log, KEYS[3] the lease, KEYS[4] the claims hash, KEYS[5..]
 * the indexes of the new snapshot.
 * ARGV prefix, taskId, expectedVersion, scopeKey, scopeJson, taskJson, expectedSeq, timeKey,
 * expiry (1 terminal, 2 interrupted, 0 live), ttlMs (of that expiry), instanceId ('' for none), leaseMs, takeClaim (1/0), eventJson1, ….
 * Returns [version, seq of the last event]; [0, 0] when the snapshot refused, [-1, -1] when the log refused.
 */
export const COMMIT_EVENTS = new LuaScript(`${COMMON}${SAVE_SNAPSHOT}${APPEND}${CLAIM_FUNCTIONS}
${indexKeys(5)}
local current = read_snapshot(KEYS[1])
if refused(current, tonumber(ARGV[3]), ARGV[4]) then return { 0, 0 } end
local events = {}
for i = 14, #ARGV do events[#events + 1] = ARGV[i] end
-- only the last event can end the task: the log's expiry goes with the batch
local seq = append_events(KEYS[2], tonumber(ARGV[7]), events, ARGV[9], ARGV[10])
if seq < 0 then return { -1, -1 } end
local version = save_snapshot(current, KEYS[1], index_keys, ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5], ARGV[6], seq, ARGV[8], ARGV[9], ARGV[10])
-- byte budgets (redis-budget-scripts.ts): the snapshot, and the events this write appended
local log_bytes = 0
for _, event_json in ipairs(events) do log_bytes = log_bytes + #event_json end
count_bytes(ARGV[1], ARGV[2], ARGV[4], tonumber(ARGV[3]) == 0, #ARGV[6], log_bytes, ARGV[9] == '1')
-- an interrupted task that is live again keeps its log too
if ARGV[9] == '0' then redis.call('PERSIST', KEYS[2]) end
local instance = ARGV[11]
if instance ~= '' then
  local take, ends = ARGV[13] == '1', ARGV[9] == '1'
  -- a turn that starts and ends in this very write would take a claim only to drop it: neither happens
  if take and not ends then take_claim(KEYS[3], KEYS[4], instance, ARGV[12], ARGV[2], ARGV[5]) end
  if ends and not take then drop_claim(KEYS[3], KEYS[4], instance, ARGV[2]) end
end
${PUSH_OUTBOX}
return { version, seq }
`);

/**
 * Reads a snapshot for one scope: KEYS[1] the task hash, ARGV[1] the scope key. Returns
 * [taskJson, scopeJson, seq, version], or nil when the task is missing or another scope's: the
 * scope is checked before anything of the snapshot is read, so both cost the same.
 */
export const GET_TASK = new LuaScript(`
if redis.call('HGET', KEYS[1], 'sk') ~= ARGV[1] then return nil end
return redis.call('HMGET', KEYS[1], 'task', 'scope', 'seq', 'version')
`);

/**
 * One page of ListTasks, counted exactly: first the scope's terminal tasks whose time is up are
 * removed (snapshot and index entries), then the count and the page are read in the same atomic step.
 * KEYS[1] the index answering the query.
 * ARGV prefix, scopeKey, min (lex bound: '-' or '[<timeKey>'), max ('+' or '(<cursor member>'), pageSize.
 * Returns [totalSize, more (1/0), member1, taskJson1, member2, taskJson2, …].
 */
export const LIST_TASKS = new LuaScript(`${COMMON}
local prefix, sk = ARGV[1], ARGV[2]
local due = redis.call('ZRANGEBYSCORE', prefix .. 'expiring:' .. sk, '-inf', now_ms())
for _, id in ipairs(due) do expire(prefix, id) end
local total = redis.call('ZLEXCOUNT', KEYS[1], ARGV[3], '+')
local limit = tonumber(ARGV[5])
local members = redis.call('ZREVRANGEBYLEX', KEYS[1], ARGV[4], ARGV[3], 'LIMIT', 0, limit + 1)
local reply = { total, 0 }
if #members > limit then reply[2] = 1 end
for i = 1, math.min(#members, limit) do
  local member = members[i]
  reply[#reply + 1] = member
  reply[#reply + 1] = redis.call('HGET', prefix .. 'task:' .. string.sub(member, ${TIME_KEY_LENGTH + 2}), 'task') or ''
end
return reply
`);

/**
 * Removes up to ARGV[2] terminal tasks whose time is up, across all scopes (ARGV[1] the prefix).
 * Returns how many went.
 */
export const SWEEP_EXPIRED = new LuaScript(`${COMMON}
local prefix = ARGV[1]
local due = redis.call('ZRANGEBYSCORE', prefix .. 'expiring', '-inf', now_ms(), 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(due) do expire(prefix, id) end
return #due
`);

/**
 * Byte budgets: room for a turn of one caller (see ADMIT_BODY in redis-budget-scripts.ts).
 * ARGV prefix, owner key, bytes, maxBytes, maxBytesPerCaller, how many due tasks to expire first.
 * Returns 1 (admitted) or 0 (refused).
 */
export const ADMIT_TURN = new LuaScript(`${COMMON}${ADMIT_BODY}`);

/**
 * Appends one event to a task's stream (see append_events).
 * KEYS[1] the stream. ARGV expectedSeq, eventJson, terminal (1/0), ttlMs.
 */
export const APPEND_EVENT = new LuaScript(`${APPEND}
return append_events(KEYS[1], tonumber(ARGV[1]), { ARGV[2] }, ARGV[3], ARGV[4])
`);

/**
 * The keys and ARGV of a snapshot write, shared by SAVE_TASK and COMMIT_EVENTS (ARGV prefix, taskId,
 * expectedVersion, scopeKey, scopeJson, taskJson, seq, timeKey, terminal, ttlMs). For a commit the
 * seq slot carries the log's expected last sequence number: the script counts on from it.
 */
export function snapshotArgs(keys: RedisTaskKeys, retention: RedisRetention, scope: TaskScope, task: Task, expectedVersion: number, seq: number) {
  const scopeKey = keys.scope(scope);
  const state = task.status.state;
  // a finished task is kept for ttlMs, an interrupted one for interruptedTtlMs (then both go the same way)
  const expiry = isTerminalState(state) ? '1' : isInterruptedState(state) ? '2' : '0';
  const ttlMs = expiry === '2' ? (retention.interruptedTtlMs ?? DEFAULT_INTERRUPTED_TTL_MS) : retention.ttlMs;
  const snapshot = { task: keys.task(task.id), indexes: keys.indexesOf(scopeKey, task.contextId, state) };
  const args: Array<string | number> = [
    keys.prefix,
    task.id,
    expectedVersion,
    scopeKey,
    JSON.stringify({ agent: scope.agent, tenant: scope.tenant, subject: scope.subject }),
    JSON.stringify(task),
    seq,
    timeKey(statusTime(task)),
    expiry,
    ttlMs,
  ];
  return { keys: snapshot, args };
}

/** How long finished and interrupted tasks are kept in Redis. */
export type RedisRetention = Pick<RetentionOptions, 'ttlMs' | 'interruptedTtlMs'>;

/** The status time the indexes order by; a missing or unparseable timestamp sorts as the epoch. */
function statusTime(task: Task): number {
  const { time } = sortKeyOf(task);
  return Number.isFinite(time) ? time : 0;
}
