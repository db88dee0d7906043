/**
 * Deliveries that used up their schedule, kept for inspection. A record names the notification
 * (task, event, config) and how its last attempt went; never credentials, tokens or query values.
 *
 * Redis key, under the module's prefix: `push:dead` (a list, newest first, capped).
 */
import type { Redis } from 'ioredis';
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
}

/** Injection token of {@link PushDeadLetters}. @publicApi */
export const PushDeadLetters = Symbol('A2A:PushDeadLetters');

/** @publicApi */
export class RedisPushDeadLetters implements PushDeadLetters {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    private readonly options: { keyPrefix?: string; limit: number },
  ) {
    this.key = `${options.keyPrefix ?? DEFAULT_KEY_PREFIX}push:dead`;
  }

  async record(letter: PushDeadLetter): Promise<void> {
    if (this.options.limit === 0) return;
    await redisCall(() => this.redis.multi().lpush(this.key, JSON.stringify(letter)).ltrim(this.key, 0, this.options.limit - 1).exec());
  }

  async list(limit = 100): Promise<PushDeadLetter[]> {
    const entries = await redisCall(() => this.redis.lrange(this.key, 0, Math.max(0, limit - 1)));
    return entries.map((entry) => JSON.parse(entry) as PushDeadLetter);
  }
}
