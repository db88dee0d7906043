/**
 * The task engine's face to the request handler: one method per task operation, and the spec's
 * contextId/taskId rules (§3.4), checked here, once, for every binding. Each message runs as a
 * {@link Turn}; claims across instances are {@link TaskClaims}'; storage is the {@link TaskBackend}.
 */
import { Logger, type LoggerService } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidParamsError, TaskNotCancelableError, UnavailableError, UnsupportedOperationError, echoed } from '../../protocol/errors.js';
import { contextIdRule } from '../../protocol/codec.js';
import { jsonSizeOf } from '../../protocol/json-value.js';
import { isTerminalState, type Task } from '../../protocol/types.js';
import type { LoggedEvent } from '../event-log.js';
import type { TaskBackend } from '../task-backend.js';
import type { TaskEventListener } from '../task-events.js';
import type { ToolCallEvents } from '../tool-call-events.js';
import { ConcurrentTaskUpdateError, requireTask, sameScope, type StoredTask, type TaskPage, type TaskQuery, type TaskScope } from '../task-store.js';
import { notifyingCommit } from './commit-pipeline.js';
import { stillWorking, TaskClaims } from './task-claims.js';
import { Turn, type TurnDeps, type TurnParams } from './turn.js';
import { newUuid } from './uuid.js';
import { FAILURES } from './turn-events.js';
import { IdTable } from '../id-table.js';
import { RunningTurns } from './running-turns.js';

/** @publicApi */
export interface TaskManagerOptions {
  /** An executor still running after this long is aborted and its task FAILED. */
  executorTimeoutMs: number;
  /** How long CancelTask waits for another instance to stop a task it runs. Default 5000. */
  cancelWaitMs?: number;
  /** The longest `contextId` a message may carry, in characters. Default 128. */
  maxContextIdLength?: number;
}

/** Default of {@link TaskManagerOptions.maxContextIdLength}. */
export const DEFAULT_MAX_CONTEXT_ID_LENGTH = 128;

/** What the task manager works with; only the backend is required. @publicApi */
export interface TaskManagerDeps {
  readonly backend: TaskBackend;
  /** Hear every commit's events (push notifications, metrics). */
  readonly listeners?: readonly TaskEventListener[];
  readonly newId?: () => string;
  readonly now?: () => number;
  /** Default: Nest's `Logger` with the context `A2A`. */
  readonly logger?: LoggerService;
  /** Told of every tool call of `ctx.runTool` (name, caller, duration, outcome), which the wire never shows. */
  readonly toolEvents?: ToolCallEvents;
}

/** @publicApi */
export class TaskManager {
  /** The turns running on this instance, oldest first: what shutdown stops, and their executor deadline. */
  private readonly runningTurns: RunningTurns<Turn>;
  /**
   * The running turns whose task can be looked up (cancel, a continuation, another instance's
   * cancel request), by task id, at most one per task: a continued task's from its start, a new
   * task's once it opens it. A turn that answers with a Message has no task and is never here.
   */
  private readonly byTask = new IdTable<Turn>();
  private readonly backend: TaskBackend;
  private readonly turnDeps: TurnDeps;
  private readonly claims: TaskClaims;
  private readonly maxContextIdLength: number;
  /** Set at shutdown: no new turn starts. */
  private stopping = false;

  constructor(deps: TaskManagerDeps, options: TaskManagerOptions) {
    const { backend } = deps;
    const ids = { newId: deps.newId ?? newUuid, now: deps.now ?? Date.now };
    const logger = deps.logger ?? new Logger('A2A');
    const commit = notifyingCommit(backend, deps.listeners ?? []);
    this.backend = backend;
    this.claims = new TaskClaims({ ...ids, backend, commit, logger, cancelWaitMs: options.cancelWaitMs ?? 5000 });
    this.runningTurns = new RunningTurns(options.executorTimeoutMs);
    const taskOpened = (turn: Turn) => this.byTask.set(turn.taskId, turn);
    const turnOver = (turn: Turn) => {
      this.runningTurns.delete(turn);
      // a turn whose task id was never read made no task: nothing to forget, no claim
      const taskId = turn.knownTaskId;
      if (taskId === undefined) return;
      this.byTask.delete(taskId);
      this.claims.turnEnded(taskId, turn.outcome);
    };
    this.turnDeps = { ...ids, commit, logger, store: backend.store, toolEvents: deps.toolEvents, taskOpened, turnOver };
    this.maxContextIdLength = options.maxContextIdLength ?? DEFAULT_MAX_CONTEXT_ID_LENGTH;
    backend.coordinator.onCancelRequest((taskId) => void this.byTask.get(taskId)?.cancel().catch(() => undefined));
    backend.coordinator.onOrphan((taskId, scope) => void this.claims.recoverOrphan(taskId, scope).catch(() => undefined));
  }

  /**
   * Starts a turn for an incoming message: a new task, or the continuation of an interrupted one.
   * @throws TaskNotFoundError, UnsupportedOperationError, InvalidParamsError (spec §3.4)
   */
  async send(params: TurnParams): Promise<Turn> {
    this.refuseWhenStopping();
    const { message } = params.request;
    const givenContextId = this.givenContextId(message.contextId);
    let prior: StoredTask | undefined;
    if (message.taskId) {
      prior = await requireTask(this.backend.store, params.scope, message.taskId);
      const state = prior.task.status.state;
      if (isTerminalState(state)) {
        throw new UnsupportedOperationError(
          `Task ${prior.task.id} is ${state} and takes no more messages; start a new task in the same context`,
          { taskId: prior.task.id },
        );
      }
      if (givenContextId !== undefined && givenContextId !== prior.task.contextId) {
        throw InvalidParamsError.field('message.contextId', "does not match the contextId of the task named by message.taskId");
      }
      // a turn that just asked for input is still returning from execute(): let it finish
      await this.byTask.get(prior.task.id)?.whenInterruptedDone();
    }
    // room for the message before anything is written or claimed: a caller over its budget is refused here, not mid-turn
    await this.backend.admit(params.scope, jsonSizeOf(message));
    if (prior) {
      if (this.byTask.has(prior.task.id)) throw stillWorking(prior.task.id);
      prior = await this.claims.claimContinuation(prior, params.scope);
    }
    this.refuseWhenStopping(); // the checks above waited: shutdown may have begun meanwhile
    // the conversation: a message that names none starts one, and the task and every event carry it
    const contextId = prior?.task.contextId ?? givenContextId ?? this.turnDeps.newId();
    // a new task's id is drawn when first read (a Message answer never does); no one else can claim
    // a new id: its claim goes with its first write (TaskBackend.commit)
    const turn = new Turn(this.turnDeps, params, prior?.task.id, contextId, prior);
    this.runningTurns.add(turn);
    if (prior) this.byTask.set(prior.task.id, turn);
    void turn.run(); // it never rejects; once over it tells turnOver
    return turn;
  }

  /** @throws TaskNotFoundError */
  get(scope: TaskScope, taskId: string): Promise<StoredTask> {
    return requireTask(this.backend.store, scope, taskId);
  }

  list(scope: TaskScope, query: TaskQuery): Promise<TaskPage> {
    return this.backend.store.list(scope, query);
  }

  /**
   * The task's events after `afterSeq`, live, until the iterator's `return()`; for a log whose
   * follow does not end on `return()` at once (`EventLog.followEndsOnReturn`), also until the
   * signal `signalOf` gives aborts (only such a log costs the consumer a signal).
   */
  follow(taskId: string, afterSeq: number, signalOf: () => AbortSignal): AsyncIterable<LoggedEvent> {
    const log = this.backend.log;
    return log.followEndsOnReturn ? log.follow(taskId, afterSeq) : log.follow(taskId, afterSeq, signalOf());
  }

  /**
   * Cancels a task: aborts its executor (the AbortSignal of its context) and writes CANCELED.
   * A repeated cancel of a CANCELED task answers that task (cancel is idempotent).
   * @throws TaskNotFoundError, TaskNotCancelableError
   */
  async cancel(scope: TaskScope, taskId: string): Promise<Task> {
    for (let attempt = 0; ; attempt++) {
      const turn = this.byTask.get(taskId);
      let task: Task;
      try {
        task = (turn && sameScope(turn.scope, scope) ? (await turn.cancel())?.task : undefined) ?? (await this.claims.cancelElsewhere(scope, taskId));
      } catch (error) {
        if (error instanceof ConcurrentTaskUpdateError && attempt < 3) continue; // a turn started meanwhile: retry through it
        throw error;
      }
      const state = task.status.state;
      if (state === 'TASK_STATE_CANCELED') return task;
      if (isTerminalState(state)) throw new TaskNotCancelableError(`Task ${echoed(taskId)} is ${state} and cannot be canceled`, { taskId: echoed(taskId) });
      return task; // the instance running it did not stop it in time: the state says so (spec §3.1.5)
    }
  }

  /** The server is going away: no new turn starts from now on (a message is refused with UNAVAILABLE). */
  stopAccepting(): void {
    this.stopping = true;
  }

  /**
   * The server is going away: no new turn starts, the running ones get `graceMs` to finish, then
   * every executor still running is aborted and its task FAILED.
   */
  async shutdown(graceMs = 0): Promise<void> {
    this.stopAccepting();
    const running = this.runningTurns.values();
    if (graceMs > 0 && running.length > 0) {
      const deadline = new AbortController();
      await Promise.race([Promise.all(running.map((turn) => turn.done)), sleep(graceMs, undefined, { signal: deadline.signal }).catch(() => undefined)]);
      deadline.abort();
    }
    await Promise.all(this.runningTurns.values().map((turn) => turn.stop(FAILURES.shutdown)));
    this.runningTurns.close();
  }

  /**
   * The message's contextId, or undefined when it names none ('' names none).
   * @throws InvalidParamsError naming the field and the bound (never the value)
   */
  private givenContextId(contextId: unknown): string | undefined {
    if (contextId === undefined || contextId === '') return undefined;
    if (typeof contextId !== 'string' || contextId.length > this.maxContextIdLength) {
      throw InvalidParamsError.field('message.contextId', contextIdRule(this.maxContextIdLength));
    }
    return contextId;
  }

  /** How many turns run on this instance now. */
  get running(): number {
    return this.runningTurns.size;
  }

  private refuseWhenStopping(): void {
    if (this.stopping) throw new UnavailableError('The server is shutting down and takes no new messages; send it again (to another instance)');
  }
}
