/**
 * Bytes of stored tasks, overall and per caller: what keeps one caller (or all of them) from
 * filling the process with tasks. Sizes are estimates of the tasks' JSON (`jsonSizeOf`).
 */
import { DEFAULT_STORAGE_BUDGET, type StorageBudgetOptions } from '../storage-budget.js';
import type { TaskScope } from '../task-store.js';

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
}
