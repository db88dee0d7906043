/**
 * Bytes of stored tasks, overall and per caller: what keeps one caller (or all of them) from
 * filling the process with tasks. Sizes are estimates of the tasks' JSON (`jsonSizeOf`).
 */
import { ResourceExhaustedError } from '../../protocol/errors.js';
import type { TaskScope } from '../task-store.js';

/** @publicApi */
export interface StorageBudgetOptions {
  /** Bytes of stored tasks (their JSON, estimated) kept at most, overall. */
  maxBytes: number;
  /** Bytes of stored tasks kept at most per caller (tenant and subject). */
  maxBytesPerCaller: number;
}

export const DEFAULT_STORAGE_BUDGET: StorageBudgetOptions = { maxBytes: 256 * 1024 * 1024, maxBytesPerCaller: 64 * 1024 * 1024 };

/** How long a refused caller is told to wait: running tasks finish, interrupted ones expire. */
export const BUDGET_RETRY_AFTER_SECONDS = 30;

/** Who pays for a task: the caller, across the agents it talks to. */
export function ownerOf(scope: TaskScope): string {
  return `${scope.tenant}\u0000${scope.subject}`;
}

export class StorageBudget {
  private total = 0;
  private readonly tasks = new Map<string, { owner: string; bytes: number }>();
  private readonly owners = new Map<string, number>();

  constructor(readonly options: StorageBudgetOptions = DEFAULT_STORAGE_BUDGET) {}

  /** `taskId` of `owner` now takes `bytes`. */
  set(owner: string, taskId: string, bytes: number): void {
    this.remove(taskId);
    this.tasks.set(taskId, { owner, bytes });
    this.total += bytes;
    this.owners.set(owner, (this.owners.get(owner) ?? 0) + bytes);
  }

  remove(taskId: string): void {
    const entry = this.tasks.get(taskId);
    if (!entry) return;
    this.tasks.delete(taskId);
    this.total -= entry.bytes;
    const left = (this.owners.get(entry.owner) ?? 0) - entry.bytes;
    if (left > 0) this.owners.set(entry.owner, left);
    else this.owners.delete(entry.owner);
  }

  /** Bytes held overall, or by `owner`. */
  used(owner?: string): number {
    return owner === undefined ? this.total : (this.owners.get(owner) ?? 0);
  }

  /** Would `bytes` more for `owner` stay within both budgets? */
  fits(owner: string, bytes: number): boolean {
    return this.total + bytes <= this.options.maxBytes && this.used(owner) + bytes <= this.options.maxBytesPerCaller;
  }

  /** The refusal a caller gets when its task cannot be stored: 429 with `Retry-After`. */
  static exhausted(): ResourceExhaustedError {
    return new ResourceExhaustedError('Too much task data is stored for this caller or this server; try again later', {
      retryAfterSeconds: String(BUDGET_RETRY_AFTER_SECONDS),
    });
  }
}
