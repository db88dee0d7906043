/**
 * Where the Redis task backend (store, event log, coordinator) keeps things. Every key starts with
 * the configured prefix (default `a2a:`, see redis/redis-keys.ts):
 *
 * | key | type | holds |
 * |---|---|---|
 * | `task:<taskId>` | hash | the snapshot: `task` (JSON), `scope` (JSON), `sk`, `seq`, `version`, `tk`, `idx` |
 * | `log:<taskId>` | stream | the event log: entry id `<seq>-0`, one field `e` = the event as JSON |
 * | `idx:<sk>` | zset | every task of a scope |
 * | `idx:<sk>:c:<ctx>` | zset | … with one contextId |
 * | `idx:<sk>:s:<state>` | zset | … in one state |
 * | `idx:<sk>:c:<ctx>:s:<state>` | zset | … with both |
 * | `expiring` | zset | terminal tasks, scored by the ms their snapshot expires at (the periodic sweep reads it) |
 * | `expiring:<sk>` | zset | the same, per scope (ListTasks sweeps its own scope before counting) |
 * | `expiring-info` | hash | taskId → JSON `{sk, tk, idx}`: what to remove once the snapshot is gone |
 * | `lease:<taskId>` | string | the instance running a turn of the task, with a TTL it renews |
 * | `claims` | hash | taskId → scope JSON of every claim taken (the orphan sweep walks it) |
 * | `cancel` | pub/sub channel | cancel requests, a taskId per message |
 * | `budget`, `budget-tasks`, `budget-finished`, `budget-finished:<owner>` | hash, hash, zset, zset | byte budgets per caller and overall (see redis-budget-scripts.ts) |
 * | `push:due` | hash | the push outbox, written by the commit script when `push:cfg:<sk>:<taskId>` exists (see push/push-outbox.ts) |
 *
 * `<sk>` is the scope key (`scopeKey`: agent, tenant and subject each base64url-encoded, joined by
 * `.`), so any character in a scope value is safe and two scopes never share a key. `<ctx>` is base64url too.
 * Index members are `<tk>:<taskId>` with score 0: `<tk>` is a fixed-width text form of the status
 * time, so the lexicographic order of members is (status time, task id) and one `ZREVRANGEBYLEX`
 * answers "newest first, ties by id descending, strictly after the cursor" without reading ties.
 *
 * The Lua scripts (`redis-task-scripts.ts`) build `task:`, `expiring`, `expiring:` and `expiring-info`
 * keys from the prefix themselves; keep both sides in step.
 */
import { DEFAULT_KEY_PREFIX, keyPart, scopeKey } from '../../redis/redis-keys.js';
import type { TaskScope } from '../task-store.js';
import type { SortKey } from '../list-cursor.js';

/** The largest distance from the epoch a JavaScript Date can represent, in ms. */
const MAX_TIME = 8_640_000_000_000_000;
const TIME_DIGITS = 16;
/** Length of a time key: a sign digit and 16 digits. */
export const TIME_KEY_LENGTH = TIME_DIGITS + 1;

/**
 * The fixed-width, order-preserving text form of an integral time in ms: `1` + the time for times
 * at or after the epoch, `0` + (MAX_TIME + time) before it. Each half stays below 2^53.
 */
export function timeKey(time: number): string {
  const clamped = Math.max(-MAX_TIME, Math.min(MAX_TIME, Math.trunc(time)));
  return clamped >= 0
    ? `1${String(clamped).padStart(TIME_DIGITS, '0')}`
    : `0${String(MAX_TIME + clamped).padStart(TIME_DIGITS, '0')}`;
}

function timeOfKey(key: string): number {
  const value = Number(key.slice(1));
  return key[0] === '1' ? value : value - MAX_TIME;
}

export function indexMember(key: SortKey): string {
  return `${timeKey(key.time)}:${key.id}`;
}

export function sortKeyOfMember(member: string): SortKey {
  return { time: timeOfKey(member.slice(0, TIME_KEY_LENGTH)), id: member.slice(TIME_KEY_LENGTH + 1) };
}

export class RedisTaskKeys {
  constructor(readonly prefix: string = DEFAULT_KEY_PREFIX) {}

  task(taskId: string): string {
    return `${this.prefix}task:${taskId}`;
  }

  log(taskId: string): string {
    return `${this.prefix}log:${taskId}`;
  }

  /** The claim (lease) of a running turn: the holding instance's id, with a TTL. */
  lease(taskId: string): string {
    return `${this.prefix}lease:${taskId}`;
  }

  /** taskId → scope JSON of every claim taken: what the orphan sweep walks. */
  claims(): string {
    return `${this.prefix}claims`;
  }

  /** The pub/sub channel of cancel requests: a taskId per message, for whichever instance holds it. */
  cancelChannel(): string {
    return `${this.prefix}cancel`;
  }

  scope(scope: TaskScope): string {
    return scopeKey(scope);
  }

  /** Who pays for a task's bytes: the caller across agents, i.e. the scope key without its agent part. */
  owner(scope: TaskScope): string {
    return `${keyPart(scope.tenant)}.${keyPart(scope.subject)}`;
  }

  /** Bytes stored per owner (field `*`: all together). */
  budget(): string {
    return `${this.prefix}budget`;
  }

  /** The index that answers a query with these filters. */
  index(scopeKey: string, filter: { contextId?: string; status?: string }): string {
    let key = `${this.prefix}idx:${scopeKey}`;
    if (filter.contextId !== undefined) key += `:c:${keyPart(filter.contextId)}`;
    if (filter.status !== undefined) key += `:s:${filter.status}`;
    return key;
  }

  /** Every index a task belongs to: one per combination of the filters it can be found by. */
  indexesOf(scopeKey: string, contextId: string | undefined, status: string): string[] {
    const keys = [this.index(scopeKey, {}), this.index(scopeKey, { status })];
    // a task without a contextId is never found by a contextId filter (as in memory)
    if (contextId !== undefined) keys.push(this.index(scopeKey, { contextId }), this.index(scopeKey, { contextId, status }));
    return keys;
  }
}
