/**
 * Who may write a task, across instances: one claim (a lease) per running turn, cancel requests
 * routed to the claim holder, and tasks whose holder died (its claim lapsed) reported as orphans.
 */
import type { TaskScope } from './task-store.js';

/** @publicApi */
export interface TaskCoordinator {
  /** Claims the right to run and write `taskId`; false when a live claim (this instance's included) exists. */
  claim(taskId: string, scope: TaskScope): Promise<boolean>;
  /** Gives a claim of this instance up. */
  release(taskId: string): Promise<void>;
  /** A claim this instance took through a committer's write (see TaskCommitter.claims): keep it alive. */
  adopt(taskId: string, scope: TaskScope): void;
  /** A claim this instance's committer already dropped (with the task's terminal write). */
  forget(taskId: string): void;
  /** Does a live instance hold a claim on `taskId`? */
  isClaimed(taskId: string): Promise<boolean>;
  /** Asks the holder of `taskId`'s claim, wherever it runs, to cancel it. */
  requestCancel(taskId: string): Promise<void>;
  /** Cancel requests for claims of this instance. */
  onCancelRequest(listener: (taskId: string) => void): void;
  /** Tasks whose holder died while it ran (the claim lapsed unreleased), with their scope. */
  onOrphan(listener: (taskId: string, scope: TaskScope) => void): void;
  close(): Promise<void>;
}

/** Injection token of the {@link TaskCoordinator}. @publicApi */
export const TaskCoordinator = Symbol('A2A:TaskCoordinator');
