/**
 * Byte budgets of stored tasks on Redis, per caller and overall, shared by every instance: the Lua
 * the task scripts include (redis-task-scripts.ts) to count what each commit stores and release it
 * when a task goes, and the body of the script that admits or refuses a turn.
 *
 * Why counters beside each task rather than sizes read on demand: a task's bytes are known exactly
 * where they are written (the commit script), and a task leaves in exactly one place (`expire`, run
 * by the periodic sweep, by ListTasks and by admission), so one entry per task, released there, keeps
 * the counters exact without scanning anything. Snapshot keys expire on their own (TTL) before the
 * sweep sees them: admission first expires every task whose time is up, so a caller's bytes come back
 * the moment its tasks are due, whether or not a sweep ran.
 *
 * | key | type | holds |
 * |---|---|---|
 * | `budget` | hash | owner → bytes its stored tasks take; `*` → all owners together |
 * | `budget-tasks` | hash | taskId → JSON `{o, b, l}`: its owner, the bytes counted for it, of which its log's |
 * | `budget-finished:<owner>` | zset | the owner's finished tasks by finishing time (µs): the first to give way |
 * | `budget-finished` | zset | every owner's finished tasks, the same way: the first to give way when all together are over |
 *
 * `<owner>` is the caller across agents: tenant and subject as key parts (see `RedisTaskKeys.owner`),
 * which is the scope key without its agent part. Bytes are the stored JSON: the snapshot and every
 * event of the log (Redis holds both).
 */

/** Lua functions: `server_time`, `owner_of`, `release_bytes`, `count_bytes`. Included before `COMMON`'s `expire`, which releases. */
export const BUDGET_FUNCTIONS = `
-- the server's TIME, read once per script run: every step of one atomic write happens at one instant
local time_of_run
local function server_time()
  if not time_of_run then time_of_run = redis.call('TIME') end
  return time_of_run
end
-- the owner part of a scope key (agent.tenant.subject, each base64url: no '.' inside a part)
local function owner_of(sk)
  return string.match(sk, '^[^.]*%.(.*)$')
end

local function add_bytes(prefix, owner, delta)
  local budget = prefix .. 'budget'
  for _, field in ipairs({ owner, '*' }) do
    if redis.call('HINCRBY', budget, field, delta) <= 0 then redis.call('HDEL', budget, field) end
  end
end

-- The task is gone: its bytes come back to its owner and to the overall budget.
local function release_bytes(prefix, id)
  local tasks_key = prefix .. 'budget-tasks'
  local raw = redis.call('HGET', tasks_key, id)
  if not raw then return end
  local entry = cjson.decode(raw)
  add_bytes(prefix, entry.o, -entry.b)
  redis.call('HDEL', tasks_key, id)
  redis.call('ZREM', prefix .. 'budget-finished:' .. entry.o, id)
  redis.call('ZREM', prefix .. 'budget-finished', id)
end

-- A write of the task: its snapshot now takes snapshot_bytes, its log log_bytes more than before.
local function count_bytes(prefix, id, sk, created, snapshot_bytes, log_bytes, terminal)
  -- a task of this id that expired without being swept yet is gone now
  if created then release_bytes(prefix, id) end
  local tasks_key = prefix .. 'budget-tasks'
  -- a created task has no entry left (release_bytes removed it)
  local raw = not created and redis.call('HGET', tasks_key, id)
  local entry = raw and cjson.decode(raw) or { o = owner_of(sk), b = 0, l = 0 }
  local log = entry.l + log_bytes
  local bytes = snapshot_bytes + log
  add_bytes(prefix, entry.o, bytes - entry.b)
  redis.call('HSET', tasks_key, id, cjson.encode({ o = entry.o, b = bytes, l = log }))
  local finished = prefix .. 'budget-finished:' .. entry.o
  if terminal then
    -- in microseconds: two tasks finished in the same millisecond still give way in the order they finished
    local t = server_time()
    local finished_at = tonumber(t[1]) * 1000000 + tonumber(t[2])
    redis.call('ZADD', finished, finished_at, id)
    redis.call('ZADD', prefix .. 'budget-finished', finished_at, id)
  else
    redis.call('ZREM', finished, id)
    redis.call('ZREM', prefix .. 'budget-finished', id)
  end
end
`;

/**
 * The body of the admission script (after `COMMON`): room for ARGV[3] more bytes of owner ARGV[2]?
 * Tasks whose time is up go first (up to ARGV[6]), then finished tasks give way, oldest first: the
 * owner's own while the owner is over its budget (ARGV[5]), anyone's while all are over theirs
 * (ARGV[4]); with their logs. ARGV[1] the prefix. Returns 1 when the bytes fit, 0 when running and
 * interrupted tasks fill a budget.
 */
export const ADMIT_BODY = `
local prefix, owner, bytes = ARGV[1], ARGV[2], tonumber(ARGV[3])
local max_all, max_owner = tonumber(ARGV[4]), tonumber(ARGV[5])
local expiring = prefix .. 'expiring'
for _, id in ipairs(redis.call('ZRANGEBYSCORE', expiring, '-inf', now_ms(), 'LIMIT', 0, tonumber(ARGV[6]))) do
  expire(prefix, id)
end
local function used(field)
  return tonumber(redis.call('HGET', prefix .. 'budget', field) or '0')
end
-- read again only after a task gave way
local used_owner, used_all = used(owner), used('*')
-- the oldest of a set gives way, log and all; taken off the set whatever it held, so every round makes progress
local function give_way(set)
  local oldest = redis.call('ZRANGE', set, 0, 0)[1]
  if not oldest then return false end
  expire(prefix, oldest)
  redis.call('DEL', prefix .. 'log:' .. oldest)
  redis.call('ZREM', set, oldest)
  used_owner, used_all = used(owner), used('*')
  return true
end
while used_owner + bytes > max_owner and give_way(prefix .. 'budget-finished:' .. owner) do end
-- only finished tasks give way: the expiring set also holds interrupted tasks, which wait for an answer
while used_all + bytes > max_all and give_way(prefix .. 'budget-finished') do end
if used_owner + bytes > max_owner or used_all + bytes > max_all then return 0 end
return 1
`;
