/**
 * Claims across instances on Redis: a lease per running task (`lease:<id>`, renewed while the
 * turn runs, lapsing when its instance dies), cancel requests over pub/sub to whoever holds the
 * lease, and a sweep that reports tasks whose lease lapsed unreleased (`claims` remembers their
 * scope) so that one surviving instance fails them.
 */
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { TaskCoordinator } from '../task-coordinator.js';
import type { TaskScope } from '../task-store.js';
import { errorLine } from '../../config/error-line.js';
import { LuaScript } from '../../redis/lua-script.js';
import { redisCall } from '../../redis/redis-call.js';
import { DEFAULT_KEY_PREFIX } from '../../redis/redis-keys.js';
import { RedisTaskKeys } from './redis-task-keys.js';
import { CLAIM_FUNCTIONS } from './redis-task-scripts.js';

/** @publicApi */
export interface RedisTaskCoordinatorOptions {
  keyPrefix?: string;
  /** A claim not renewed for this long is dead (its instance stopped). Default 10000. */
  leaseMs?: number;
  /** Names this instance in leases. Default: a random id. */
  instanceId?: string;
}

/** SET the lease if free, and remember the claim's scope. KEYS: lease, claims. ARGV: instance, ms, taskId, scope. */
const CLAIM = new LuaScript(`${CLAIM_FUNCTIONS}
return take_claim(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4])`);

/** Drop our own lease and claim. KEYS: lease, claims. ARGV: instance, taskId. */
const RELEASE = new LuaScript(`${CLAIM_FUNCTIONS}
drop_claim(KEYS[1], KEYS[2], ARGV[1], ARGV[2])
return 0`);

/** Extend our own lease. KEYS: lease. ARGV: instance, ms. Returns 0 when it is not ours any more. */
const RENEW = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`);

/** Drop our own lease but keep the claim, so the next orphan sweep (anyone's) takes it. KEYS: lease. ARGV: instance. */
const HAND_OVER = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
end
return 0`);

/** Claims one orphan sweep script looks at: the sweep pages through them, so no script blocks Redis for long. */
const SWEEP_PAGE = 500;

/**
 * Takes the claims of one HSCAN page whose lease is gone, so that exactly one sweeper reports each.
 * KEYS: claims. ARGV: the lease key prefix, the HSCAN cursor, the page size.
 * Returns [next cursor, taskId1, scopeJson1, taskId2, scopeJson2, …].
 */
const TAKE_ORPHANS = new LuaScript(`
local page = redis.call('HSCAN', KEYS[1], ARGV[2], 'COUNT', ARGV[3])
local taken = { page[1] }
local fields = page[2]
for i = 1, #fields, 2 do
  local id = fields[i]
  if redis.call('EXISTS', ARGV[1] .. id) == 0 then
    taken[#taken + 1] = id
    taken[#taken + 1] = fields[i + 1]
    redis.call('HDEL', KEYS[1], id)
  end
end
return taken`);

/** @publicApi */
export class RedisTaskCoordinator implements TaskCoordinator {
  private readonly logger = new Logger('A2A');
  private readonly keys: RedisTaskKeys;
  /** A claim not renewed for this long is dead. */
  readonly leaseMs: number;
  /** Names this instance in leases. */
  readonly instanceId: string;
  private readonly held = new Set<string>();
  private readonly cancelListeners: Array<(taskId: string) => void> = [];
  private readonly orphanListeners: Array<(taskId: string, scope: TaskScope) => void> = [];
  private readonly subscriber: Redis;
  private readonly renewTimer: NodeJS.Timeout;
  private readonly sweepTimer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly redis: Redis,
    options: RedisTaskCoordinatorOptions = {},
  ) {
    this.keys = new RedisTaskKeys(options.keyPrefix ?? DEFAULT_KEY_PREFIX);
    this.leaseMs = options.leaseMs ?? 10_000;
    this.instanceId = options.instanceId ?? randomUUID();
    // pub/sub takes a connection of its own; one per instance, whatever the number of tasks
    // Subscribed on every 'ready', by us: ioredis's own re-subscribe after a reconnect has no error
    // handler, so a connection lost again before Redis answered it rejected unhandled (which ends the
    // process), and left the channel unsubscribed for good.
    this.subscriber = redis.duplicate({ lazyConnect: false, enableOfflineQueue: true, autoResubscribe: false, connectionName: 'a2a-cancel-subscriber' });
    this.subscriber.on('error', () => undefined); // reconnects by itself; commands report failures
    this.subscriber.on('ready', () => void this.subscribeToCancels());
    this.subscriber.on('message', (_channel: string, taskId: string) => {
      if (this.held.has(taskId)) this.cancelListeners.forEach((listener) => listener(taskId));
    });
    this.renewTimer = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.leaseMs / 3)));
    // a dead instance's tasks are failed between one and one and a half lease times after it stopped
    this.sweepTimer = setInterval(() => void this.sweep(), Math.max(50, Math.floor(this.leaseMs / 2)));
    this.renewTimer.unref();
    this.sweepTimer.unref();
  }

  async claim(taskId: string, scope: TaskScope): Promise<boolean> {
    const won = await redisCall(() => CLAIM.run(this.redis, [this.keys.lease(taskId), this.keys.claims()], [this.instanceId, this.leaseMs, taskId, JSON.stringify(scope)]));
    if (won === 1) this.held.add(taskId);
    return won === 1;
  }

  async release(taskId: string): Promise<void> {
    this.held.delete(taskId);
    await redisCall(() => RELEASE.run(this.redis, [this.keys.lease(taskId), this.keys.claims()], [this.instanceId, taskId]));
  }

  /** Stops renewing: the lease lapses, unless the commit ending the task drops it first. */
  abandon(taskId: string): void {
    this.held.delete(taskId);
  }

  /** A claim the backend's commit script took for this instance (it created the task): renew it. */
  adopt(taskId: string): void {
    this.held.add(taskId);
  }

  async isClaimed(taskId: string): Promise<boolean> {
    return (await redisCall(() => this.redis.exists(this.keys.lease(taskId)))) === 1;
  }

  async requestCancel(taskId: string): Promise<void> {
    if (this.held.has(taskId)) this.cancelListeners.forEach((listener) => listener(taskId));
    else await redisCall(() => this.redis.publish(this.keys.cancelChannel(), taskId));
  }

  onCancelRequest(listener: (taskId: string) => void): void {
    this.cancelListeners.push(listener);
  }

  onOrphan(listener: (taskId: string, scope: TaskScope) => void): void {
    this.orphanListeners.push(listener);
  }

  /** The cancel channel's subscriber is connected: cancel requests from other instances reach this one. */
  subscriberConnected(): boolean {
    return !this.closed && this.subscriber.status === 'ready';
  }

  /**
   * Stops renewing and sweeping. Claims still held (their tasks normally ended first) are handed
   * over: their leases are dropped now, so the next sweep of any instance reports them, instead of
   * one after they lapse. With Redis gone they lapse on their own.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.renewTimer);
    clearInterval(this.sweepTimer);
    this.subscriber.disconnect();
    const held = [...this.held];
    this.held.clear();
    await Promise.all(held.map((taskId) => HAND_OVER.run(this.redis, [this.keys.lease(taskId)], [this.instanceId]).catch(() => undefined)));
  }

  private async subscribeToCancels(): Promise<void> {
    try {
      await this.subscriber.subscribe(this.keys.cancelChannel());
    } catch (error) {
      if (!this.closed) this.logger.warn(`Cancel channel unavailable until Redis answers again: ${errorLine(error)}`);
    }
  }

  /** Every held lease renewed, the commands sent together (one connection pipelines them). */
  private async renew(): Promise<void> {
    await Promise.all(
      [...this.held].map(async (taskId) => {
        try {
          const kept = await RENEW.run(this.redis, [this.keys.lease(taskId)], [this.instanceId, this.leaseMs]);
          if (kept === 0) {
            this.held.delete(taskId);
            this.logger.warn(`Lost the claim on task ${taskId}; another instance may take it over`);
          }
        } catch {
          // Redis unreachable: the claim lapses if this lasts longer than the lease, as it should
        }
      }),
    );
  }

  /**
   * Every claim whose lease lapsed is reported once, on the one instance whose sweep took it. A lapsed
   * claim of this very instance is one it failed to renew in time: lost like any other.
   */
  private async sweep(): Promise<void> {
    let cursor = '0';
    do {
      let reply: string[];
      try {
        reply = (await TAKE_ORPHANS.run(this.redis, [this.keys.claims()], [this.keys.lease(''), cursor, SWEEP_PAGE])) as string[];
      } catch {
        return; // Redis unreachable: the next sweep tries again
      }
      cursor = reply[0];
      for (let i = 1; i + 1 < reply.length; i += 2) {
        const [taskId, scope] = [reply[i], reply[i + 1]];
        if (this.held.delete(taskId)) this.logger.warn(`Lost the claim on task ${taskId}: it was not renewed in time`);
        this.orphanListeners.forEach((listener) => listener(taskId, JSON.parse(scope) as TaskScope));
      }
    } while (cursor !== '0' && !this.closed);
  }
}
