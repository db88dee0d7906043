/**
 * Deliveries that used up their schedule, kept for inspection. A record names the notification
 * (task, event, config) and how its last attempt went; never credentials, tokens or query values.
 *
 * Redis key, under the module's prefix: `push:dead` (a list, newest first, capped at a count and kept
 * as long as tasks are).
 */
import type { Redis } from 'ioredis';
import { LuaScript } from '../redis/lua-script.js';
import { redisCall } from '../redis/redis-call.js';
import { DEFAULT_KEY_PREFIX } from '../redis/redis-keys.js';
import type { TaskScope } from '../tasks/task-store.js';

/** @publicApi */
export interface PushDeadLetter {
  readonly webhookId: string;
  readonly scope: TaskScope;
  readonly taskId: string;
  readonly seq: number;
  readonly configId: string;
  /** The webhook URL, redacted. */
  readonly url: string;
  readonly attempts: number;
  /** The last answer's HTTP status, when there was one. */
  readonly lastStatus?: number;
  /** Why the last attempt failed. */
  readonly lastError: string;
  /** RFC 3339. */
  readonly failedAt: string;
}

/** @publicApi */
export interface PushDeadLetters {
  record(letter: PushDeadLetter): Promise<void>;
  /** The newest records first, at most `limit` (default 100). */
  list(limit?: number): Promise<PushDeadLetter[]>;
  /** The record of one notification, by its `webhook-id`. */
  get(webhookId: string): Promise<PushDeadLetter | undefined>;
  /** Deletes the record of one notification (it is being redelivered). @returns whether there was one */
  remove(webhookId: string): Promise<boolean>;
}

/**
 * Adds a record, keeps the newest ARGV[2], and drops from the oldest end those that failed before
 * ARGV[3] (RFC 3339 texts of one format compare as their instants); the list goes ARGV[4] ms after
 * its last record. KEYS[1] the list. ARGV record JSON, limit, cutoff, ttlMs.
 */
const RECORD = new LuaScript(`
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
while true do
  local oldest = redis.call('LINDEX', KEYS[1], -1)
  if not oldest then break end
  local ok, letter = pcall(cjson.decode, oldest)
  if ok and type(letter.failedAt) == 'string' and letter.failedAt >= ARGV[3] then break end
  redis.call('RPOP', KEYS[1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1`);

const DEFAULT_RETENTION_MS = 60 * 60 * 1000;

/** Injection token of {@link PushDeadLetters}. @publicApi */
export const PushDeadLetters = Symbol('A2A:PushDeadLetters');

/** @publicApi */
export class RedisPushDeadLetters implements PushDeadLetters {
  private readonly key: string;

  /** `retentionMs`: how long a record is kept (as long as tasks, by default 1 h); `limit`: how many at most. */
  constructor(
    private readonly redis: Redis,
    private readonly options: { keyPrefix?: string; limit: number; retentionMs?: number; now?: () => number },
  ) {
    this.key = `${options.keyPrefix ?? DEFAULT_KEY_PREFIX}push:dead`;
  }

  async record(letter: PushDeadLetter): Promise<void> {
    if (this.options.limit === 0) return;
    const retentionMs = this.options.retentionMs ?? DEFAULT_RETENTION_MS;
    const cutoff = new Date((this.options.now ?? Date.now)() - retentionMs).toISOString();
    await redisCall(() => RECORD.run(this.redis, [this.key], [JSON.stringify(letter), this.options.limit, cutoff, retentionMs]));
  }

  async list(limit = 100): Promise<PushDeadLetter[]> {
    const entries = await redisCall(() => this.redis.lrange(this.key, 0, Math.max(0, limit - 1)));
    return entries.map((entry) => JSON.parse(entry) as PushDeadLetter);
  }

  async get(webhookId: string): Promise<PushDeadLetter | undefined> {
    return (await this.find(webhookId))?.letter;
  }

  async remove(webhookId: string): Promise<boolean> {
    const found = await this.find(webhookId);
    if (!found) return false;
    return (await redisCall(() => this.redis.lrem(this.key, 1, found.entry))) > 0;
  }

  private async find(webhookId: string): Promise<{ entry: string; letter: PushDeadLetter } | undefined> {
    for (const entry of await redisCall(() => this.redis.lrange(this.key, 0, -1))) {
      const letter = JSON.parse(entry) as PushDeadLetter;
      if (letter.webhookId === webhookId) return { entry, letter };
    }
    return undefined;
  }
}
