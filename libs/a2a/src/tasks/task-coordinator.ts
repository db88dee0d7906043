/**
 * Who may write a task, across instances: one claim (a lease) per running turn, cancel requests
 * routed to the claim holder, and tasks whose holder died (its claim lapsed) reported as orphans.
 * Claims of new and finished tasks go with the backend's commits (see `TaskBackend.commit`).
 */
import type { TaskScope } from './task-store.js';

/** @publicApi */
export interface TaskCoordinator {
  /** Claims the right to run and write `taskId`; false when a live claim (this instance's included) exists. */
  claim(taskId: string, scope: TaskScope): Promise<boolean>;
  /** Gives a claim of this instance up, now. */
  release(taskId: string): Promise<void>;
  /**
   * Stops keeping this instance's claim alive without giving it up: it ends with a commit that
   * ends the task, or lapses after its lease, and then the task is reported as an orphan (a turn
   * whose write failed leaves its task to the orphan sweep this way). In one process, where
   * nobody outlives a claim, it simply ends.
   */
  abandon(taskId: string): void;
  /** Does a live instance hold a claim on `taskId`? */
  isClaimed(taskId: string): Promise<boolean>;
  /** Asks the holder of `taskId`'s claim, wherever it runs, to cancel it. */
  requestCancel(taskId: string): Promise<void>;
  /** Cancel requests for claims of this instance. */
  onCancelRequest(listener: (taskId: string) => void): void;
  /** Tasks whose holder died while it ran (the claim lapsed unreleased), with their scope. */
  onOrphan(listener: (taskId: string, scope: TaskScope) => void): void;
}
