/** Options shared by the Redis task store and event log, and what their ioredis client must look like. */
import type { Redis, RedisOptions } from 'ioredis';
import { A2AConfigurationError } from '../../config/a2a-configuration.error.js';
import { A2AError, UnavailableError } from '../../protocol/errors.js';
import { ConcurrentTaskUpdateError } from '../task-store.js';
import type { RetentionOptions } from '../retention.js';

/** @publicApi */
export interface RedisTaskBackendOptions {
  /** Prepended to every key (default `a2a:`). Give each app (or test run) sharing a Redis its own. */
  keyPrefix?: string;
  /**
   * How long a terminal task and its log are kept (`ttlMs`). `maxTerminalTasks` bounds process memory
   * and applies to the in-memory backends only: in Redis the TTL bounds what is kept (finishing rate ×
   * ttl), the operator sizes Redis for it, and a count cap shared by every instance would evict tasks
   * one instance still serves because of the load of another.
   */
  retention: RetentionOptions;
}

/**
 * ioredis options that make store commands fail fast while Redis is unreachable instead of waiting
 * for it (the ioredis defaults queue commands while disconnected and retry each one up to 20 times
 * across reconnects). Spread them into the client the app hands to `RedisTaskStore` / `RedisEventLog`:
 *
 * - `enableOfflineQueue: false`: a command issued while disconnected fails at once. The client must
 *   then be connected before first use (`lazyConnect: true` + `await client.connect()`, or wait for
 *   its `ready` event).
 * - `maxRetriesPerRequest: 1`: a command in flight when the connection drops fails after one
 *   reconnect attempt (the scripts' version checks make a resent write harmless).
 * - `commandTimeout`: a server that accepts connections but does not answer fails the command too.
 * - `connectTimeout`: a connect attempt to a black-holed address gives up quickly.
 *
 * Never share this client with BullMQ, whose workers need `maxRetriesPerRequest: null`.
 * @publicApi
 */
export const REDIS_FAIL_FAST_OPTIONS = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 5_000,
  connectTimeout: 5_000,
} as const satisfies RedisOptions;

/** @throws A2AConfigurationError listing every problem with the client or the options */
export function assertRedisBackendUsable(redis: Redis, options: RedisTaskBackendOptions): void {
  const problems: string[] = [];
  if (redis.options.keyPrefix) {
    problems.push(
      'the ioredis client has a keyPrefix; the Redis task store and event log build key names inside Lua scripts, ' +
        'which ioredis cannot prefix: remove it and pass keyPrefix in the store options instead',
    );
  }
  if (options.keyPrefix !== undefined && typeof options.keyPrefix !== 'string') problems.push('keyPrefix must be a string');
  if (!Number.isInteger(options.retention?.ttlMs) || options.retention.ttlMs <= 0) {
    problems.push('retention.ttlMs must be a positive integer (milliseconds)');
  }
  if (problems.length > 0) throw new A2AConfigurationError(problems);
}

/**
 * Runs Redis commands for a request. Our own refusals and server reply errors (a defect) pass
 * through; anything else (connection down, timeout) means Redis is unavailable for now, which
 * the bindings answer with 503 UNAVAILABLE instead of an internal error.
 */
export async function redisCall<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    if (error instanceof ConcurrentTaskUpdateError || error instanceof A2AError || (error as Error)?.name === 'ReplyError') throw error;
    throw new UnavailableError('The task store is temporarily unavailable; retry later');
  }
}
