/** Claims within one process: the in-memory backend's coordinator. */
import type { TaskCoordinator } from '../task-coordinator.js';

/** One process: claims are a set, a cancel request is a function call, nobody dies alone. @publicApi */
export class LocalTaskCoordinator implements TaskCoordinator {
  private readonly claims = new Set<string>();
  private readonly cancelListeners: Array<(taskId: string) => void> = [];

  async claim(taskId: string): Promise<boolean> {
    if (this.claims.has(taskId)) return false;
    this.claims.add(taskId);
    return true;
  }

  async release(taskId: string): Promise<void> {
    this.drop(taskId);
  }

  /** No lapse to wait for in one process: the claim ends at once. */
  abandon(taskId: string): void {
    this.drop(taskId);
  }

  async isClaimed(taskId: string): Promise<boolean> {
    return this.claims.has(taskId);
  }

  async requestCancel(taskId: string): Promise<void> {
    this.cancelListeners.forEach((listener) => listener(taskId));
  }

  onCancelRequest(listener: (taskId: string) => void): void {
    this.cancelListeners.push(listener);
  }

  onOrphan(): void {
    // a single process never outlives its own tasks
  }

  /** A claim a commit took (it created the task). */
  adopt(taskId: string): void {
    this.claims.add(taskId);
  }

  /** A claim a commit dropped (it ended the task), or one given up. */
  drop(taskId: string): void {
    this.claims.delete(taskId);
  }

  close(): void {
    this.claims.clear();
  }
}
