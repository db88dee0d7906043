/** Options of the Redis task backend (its store, log and coordinator), and what their ioredis client must look like. */
import type { Redis } from 'ioredis';
import { A2AConfigurationError } from '../../config/a2a-configuration.error.js';
import type { RetentionOptions } from '../retention.js';
import type { StorageBudgetOptions } from '../storage-budget.js';

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
  /**
   * Bytes of stored tasks (snapshots and logs) kept at most, overall (every instance and agent on this
   * key prefix) and per caller (tenant and subject). Default 256 MiB overall, 64 MiB per caller.
   */
  budget?: StorageBudgetOptions;
  /** A running turn whose instance stops renewing its claim for this long is taken over and failed. Default 10000. */
  leaseMs?: number;
  /** Names this instance in claims. Default: a random id. */
  instanceId?: string;
}

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
  for (const name of ['maxBytes', 'maxBytesPerCaller'] as const) {
    const value = options.budget?.[name];
    if (options.budget !== undefined && (!Number.isInteger(value) || value! <= 0)) problems.push(`budget.${name} must be a positive integer (bytes)`);
  }
  if (problems.length > 0) throw new A2AConfigurationError(problems);
}
