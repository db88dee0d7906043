/**
 * The engine's side of claims: who may write a task across instances. A continuation claims its
 * task (waiting a moment for a turn that just asked for input to let go), a cancel of a task that
 * does not run here goes to the instance that runs it (or, nobody running it, is written here under
 * a claim of our own), a task whose instance died is failed, and a finished turn lets go of its claim
 * as its outcome says.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoggerService } from '@nestjs/common';
import { UnsupportedOperationError, echoed } from '../../protocol/errors.js';
import { isInterruptedState, isTerminalState, type Task } from '../../protocol/types.js';
import type { TaskBackend } from '../task-backend.js';
import { applyEvent } from '../task-fold.js';
import { requireTask, type StoredTask, type TaskScope } from '../task-store.js';
import type { CommitFn } from './commit-pipeline.js';
import { ignore } from './deferred.js';
import { INTERRUPTED_RETURN_MS, type TurnOutcome } from './turn.js';
import { endingEvent, FAILURES, type Failure, type IdsAndClock } from './turn-events.js';
import { recordTaskFinished } from '../../telemetry/turn-telemetry.js';

/** How often a continuation tries the claim while another instance still holds it. */
const CLAIM_RETRY_MS = 25;

export interface TaskClaimsDeps extends IdsAndClock {
  readonly backend: Pick<TaskBackend, 'store' | 'log' | 'coordinator'>;
  readonly commit: CommitFn;
  readonly logger: LoggerService;
  /** How long a cancel waits for another instance to stop the task it runs. */
  readonly cancelWaitMs: number;
}

/** A turn of `taskId` runs already (here or on another instance). */
export function stillWorking(taskId: string): UnsupportedOperationError {
  return new UnsupportedOperationError(`Task ${echoed(taskId)} is still working on the previous message`, { taskId: echoed(taskId) });
}

export class TaskClaims {
  constructor(private readonly deps: TaskClaimsDeps) {}

  /**
   * Claims the next turn of an existing task and answers the task as it is now (another instance
   * may have moved it on before the claim was ours). One that just asked for input is usually held a
   * moment longer by the instance whose executor is returning from execute(): it gets that moment
   * here, as a local one gets it from `Turn.whenInterruptedDone()`.
   * @throws UnsupportedOperationError when another turn holds it, or the task finished meanwhile
   */
  async claimContinuation(prior: StoredTask, scope: TaskScope): Promise<StoredTask> {
    const taskId = prior.task.id;
    const { coordinator, store } = this.deps.backend;
    if (!(await this.claimWithin(prior, scope))) throw stillWorking(taskId);
    const current = await store.get(scope, taskId);
    if (!current || isTerminalState(current.task.status.state)) {
      await coordinator.release(taskId);
      throw new UnsupportedOperationError(`Task ${echoed(taskId)} has finished meanwhile; start a new task in the same context`, { taskId: echoed(taskId) });
    }
    return current;
  }

  /**
   * The claim a finished turn held: the commit that ended the task dropped it; a failed write leaves
   * it to lapse; a turn that wrote no task (a Message answer) held none, and costs the coordinator nothing.
   */
  turnEnded(taskId: string, outcome: TurnOutcome): void {
    const { coordinator } = this.deps.backend;
    // a turn whose write failed (the store was unreachable) leaves its claim to lapse, so that the
    // orphan sweep fails the task once the store is back instead of leaving it WORKING for good
    if (outcome === 'write-failed') coordinator.abandon(taskId);
    else if (outcome === 'left-open') coordinator.release(taskId).catch(ignore); // unreleased, it lapses
  }

  /**
   * Cancels a task that does not run here: asks the instance that runs it to cancel and waits for
   * the outcome in the log, or (nobody runs it) claims it and writes CANCELED itself.
   */
  async cancelElsewhere(scope: TaskScope, taskId: string): Promise<Task> {
    const { coordinator, store } = this.deps.backend;
    const stored = await requireTask(store, scope, taskId);
    if (isTerminalState(stored.task.status.state)) return stored.task;
    if (await coordinator.isClaimed(taskId)) {
      await coordinator.requestCancel(taskId);
      return this.awaitTerminal(stored, this.deps.cancelWaitMs);
    }
    return (await this.endUnclaimed(scope, taskId))?.task ?? this.cancelElsewhere(scope, taskId);
  }

  /** The instance running a task died: a task left SUBMITTED or WORKING ends FAILED, not WORKING forever. */
  async recoverOrphan(taskId: string, scope: TaskScope): Promise<void> {
    const stored = await this.deps.backend.store.get(scope, taskId);
    const state = stored?.task.status.state;
    if (state !== 'TASK_STATE_SUBMITTED' && state !== 'TASK_STATE_WORKING') return;
    this.deps.logger.warn(`Task ${taskId} was left ${state} by an instance that stopped; failing it`);
    await this.endUnclaimed(scope, taskId, FAILURES.orphaned);
  }

  private async claimWithin(prior: StoredTask, scope: TaskScope): Promise<boolean> {
    const { coordinator } = this.deps.backend;
    const taskId = prior.task.id;
    if (await coordinator.claim(taskId, scope)) return true;
    if (!isInterruptedState(prior.task.status.state)) return false;
    for (const deadline = Date.now() + INTERRUPTED_RETURN_MS; Date.now() < deadline; ) {
      await sleep(CLAIM_RETRY_MS);
      if (await coordinator.claim(taskId, scope)) return true;
    }
    return false;
  }

  /** Folds the log after `stored` until a terminal state or the deadline: what the task is now. */
  private async awaitTerminal(stored: StoredTask, timeoutMs: number): Promise<Task> {
    let task = stored.task;
    for await (const { event } of this.deps.backend.log.follow(task.id, stored.seq, AbortSignal.timeout(timeoutMs))) {
      task = applyEvent(task, event) ?? task;
      if (isTerminalState(task.status.state)) break;
    }
    return task;
  }

  /**
   * Ends a task nobody runs, under a claim of our own (so no turn starts meanwhile): FAILED with
   * `failure`, or CANCELED without one. Undefined when the claim could not be had: someone runs it after all.
   */
  private async endUnclaimed(scope: TaskScope, taskId: string, failure?: Failure): Promise<StoredTask | undefined> {
    const { coordinator, store } = this.deps.backend;
    if (!(await coordinator.claim(taskId, scope))) return undefined;
    try {
      const stored = await requireTask(store, scope, taskId);
      if (isTerminalState(stored.task.status.state)) return stored;
      const event = endingEvent(taskId, stored.task.contextId ?? '', failure, this.deps);
      const ended = await this.deps.commit({ scope, current: stored, events: [event], next: applyEvent(stored.task, event)! });
      recordTaskFinished(scope.agent, failure ? 'TASK_STATE_FAILED' : 'TASK_STATE_CANCELED'); // no turn ran it to the end: counted here
      return ended;
    } finally {
      await coordinator.release(taskId);
    }
  }
}
