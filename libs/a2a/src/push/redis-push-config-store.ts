/**
 * Push configs in Redis, under the module's key prefix:
 *
 * | key | type | holds |
 * |---|---|---|
 * | `push:cfg:<sk>:<taskId>` | hash | config id → the config as JSON (secrets sealed when a key is set) |
 *
 * `<sk>` is the task's scope key (`scopeKey`, see redis/redis-keys.ts), so a config of another scope has another key:
 * Get, List and Delete from another caller find nothing, exactly as for a missing config.
 */
import type { Redis } from 'ioredis';
import { LuaScript } from '../redis/lua-script.js';
import { redisCall } from '../redis/redis-call.js';
import { DEFAULT_KEY_PREFIX, scopeKey } from '../redis/redis-keys.js';
import type { TaskScope } from '../tasks/task-store.js';
import type { PushConfigPutResult, PushConfigStore, StoredPushConfig } from './push-config-store.js';

/** Store unless the task is full. KEYS: the hash. ARGV: id, json, max. Returns 1 created, 2 replaced, 0 full. */
const PUT = new LuaScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return 2
end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1`);

/** The hash of a task's configs (the outbox's scripts and the commit script read it too). @internal */
export function pushConfigKey(prefix: string, scope: TaskScope, taskId: string): string {
  return `${prefix}push:cfg:${scopeKey(scope)}:${taskId}`;
}

/** @publicApi */
export class RedisPushConfigStore implements PushConfigStore {
  private readonly prefix: string;

  /** `redis`: the module's command client (fail-fast); never closed here. */
  constructor(
    private readonly redis: Redis,
    options: { keyPrefix?: string } = {},
  ) {
    this.prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  }

  async put(scope: TaskScope, config: StoredPushConfig, maxPerTask: number): Promise<PushConfigPutResult> {
    const result = Number(await redisCall(() => PUT.run(this.redis, [this.key(scope, config.taskId)], [config.id, JSON.stringify(config), maxPerTask])));
    return result === 1 ? 'created' : result === 2 ? 'replaced' : 'full';
  }

  async get(scope: TaskScope, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
    const json = await redisCall(() => this.redis.hget(this.key(scope, taskId), id));
    return json === null ? undefined : (JSON.parse(json) as StoredPushConfig);
  }

  async list(scope: TaskScope, taskId: string): Promise<StoredPushConfig[]> {
    const all = await redisCall(() => this.redis.hgetall(this.key(scope, taskId)));
    return Object.keys(all)
      .sort()
      .map((id) => JSON.parse(all[id]) as StoredPushConfig);
  }

  async delete(scope: TaskScope, taskId: string, id: string): Promise<boolean> {
    return (await redisCall(() => this.redis.hdel(this.key(scope, taskId), id))) > 0;
  }

  async expire(scope: TaskScope, taskId: string, ttlMs: number): Promise<void> {
    await redisCall(() => this.redis.pexpire(this.key(scope, taskId), Math.max(1, Math.round(ttlMs))));
  }

  private key(scope: TaskScope, taskId: string): string {
    return pushConfigKey(this.prefix, scope, taskId);
  }
}
