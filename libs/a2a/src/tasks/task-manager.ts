/**
 * Runs executors and writes their tasks: the single writer of each task's log and snapshot.
 * The contextId/taskId rules of spec §3.4 are checked here, once, for every binding.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import {
  InvalidParamsError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../protocol/errors.js';
import {
  isInterruptedState,
  isTerminalState,
  type Artifact,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  type TaskState,
} from '../protocol/types.js';
import type { A2ACaller, AgentExecutor } from './agent-executor.js';
import type { EventLog, LoggedEvent } from './event-log.js';
import type { TaskBackend } from './task-backend.js';
import { TaskContext, type TurnSink } from './task-context.js';
import type { TaskCoordinator } from './task-coordinator.js';
import type { TaskEventListener } from './task-events.js';
import { applyEvent } from './task-fold.js';
import { ConcurrentTaskUpdateError, sameScope, type StoredTask, type TaskPage, type TaskQuery, type TaskScope, type TaskStore } from './task-store.js';

/** @publicApi */
export interface TaskManagerOptions {
  /** An executor still running after this long is aborted and its task FAILED. */
  executorTimeoutMs: number;
  /** How long CancelTask waits for another instance to stop a task it runs. Default 5000. */
  cancelWaitMs?: number;
}

/** What the task manager works with; only the backend is required. @publicApi */
export interface TaskManagerDeps {
  readonly backend: TaskBackend;
  readonly listeners?: readonly TaskEventListener[];
  readonly newId?: () => string;
  readonly now?: () => number;
}

/** An agent as the task manager runs it. */
export interface RunnableAgent {
  readonly name: string;
  readonly executor: AgentExecutor;
}

export interface SendParams {
  readonly agent: RunnableAgent;
  readonly scope: TaskScope;
  readonly request: SendMessageRequest;
  readonly caller: A2ACaller;
  readonly extensions: readonly string[];
  /** Runs once the task id is known, before the turn's first event is logged (e.g. an inline push config). */
  readonly beforeOpen?: (taskId: string) => Promise<void>;
}

/** How a turn began: a Message answer, or the task event (its sequence number, the task it made) that opened it. */
export type TurnStart = { readonly message: Message } | { readonly taskId: string; readonly seq: number; readonly task: Task };

export interface Turn {
  /** Resolves with the turn's first outcome. */
  readonly started: Promise<TurnStart>;
  /** Resolves once the task is terminal or interrupted, or the turn is over. */
  readonly settled: Promise<void>;
  /** The task as this turn last wrote it (what a blocked caller answers with once settled). */
  latest(): Task | undefined;
}

/** Safe status texts: what the wire says when something went wrong inside. */
const FAILURE_TEXT = {
  threw: 'The agent encountered an internal error.',
  silent: 'The agent ended without a response.',
  unfinished: 'The agent stopped before finishing the task.',
  timeout: 'The agent did not finish in time.',
  shutdown: 'The agent was stopped because the server is shutting down.',
  orphaned: 'The agent instance running this task stopped before finishing it.',
} as const;

/** How long a continuation waits for the turn that asked for input to return from execute(). */
const INTERRUPTED_RETURN_MS = 1000;
/** How often it tries the claim meanwhile, when another instance holds it. */
const CLAIM_RETRY_MS = 25;

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined); // a turn nobody waits for must not raise an unhandled rejection
  return { promise, resolve, reject };
}

/** @publicApi */
export class TaskManager {
  private readonly logger = new Logger('A2A');
  private readonly executions = new Map<string, Execution>();

  private readonly backend: TaskBackend;
  private readonly store: TaskStore;
  private readonly log: EventLog;
  private readonly coordinator: TaskCoordinator;
  private readonly listeners: readonly TaskEventListener[];
  private readonly newId: () => string;
  private readonly now: () => number;

  constructor(
    deps: TaskManagerDeps,
    private readonly options: TaskManagerOptions,
  ) {
    this.backend = deps.backend;
    this.store = deps.backend.store;
    this.log = deps.backend.log;
    this.coordinator = deps.backend.coordinator;
    this.listeners = deps.listeners ?? [];
    this.newId = deps.newId ?? randomUUID;
    this.now = deps.now ?? Date.now;
    const coordinator = this.coordinator;
    coordinator.onCancelRequest((taskId) => void this.executions.get(taskId)?.cancel().catch(() => undefined));
    coordinator.onOrphan((taskId, scope) => void this.recoverOrphan(taskId, scope).catch(() => undefined));
  }

  /**
   * Starts a turn for an incoming message: a new task, or the continuation of an interrupted one.
   * @throws TaskNotFoundError, UnsupportedOperationError, InvalidParamsError (spec §3.4)
   */
  async send(params: SendParams): Promise<Turn> {
    const { message } = params.request;
    let prior: StoredTask | undefined;
    if (message.taskId) {
      prior = await this.store.get(params.scope, message.taskId);
      if (!prior) throw new TaskNotFoundError(`Task ${message.taskId} not found`, { taskId: message.taskId });
      const state = prior.task.status.state;
      if (isTerminalState(state)) {
        throw new UnsupportedOperationError(
          `Task ${prior.task.id} is ${state} and takes no more messages; start a new task in the same context`,
          { taskId: prior.task.id },
        );
      }
      if (message.contextId !== undefined && message.contextId !== prior.task.contextId) {
        throw InvalidParamsError.field('message.contextId', "does not match the contextId of the task named by message.taskId");
      }
      // a turn that just asked for input is still returning from execute(): let it finish
      await this.executions.get(prior.task.id)?.whenInterruptedDone();
    }
    // a new id cannot be claimed by anyone else: its claim goes with its first write (TaskBackend.commit)
    const taskId = prior?.task.id ?? this.newId();
    if (prior && (this.executions.has(taskId) || !(await this.claimContinuation(prior, params.scope)))) {
      throw new UnsupportedOperationError(`Task ${taskId} is still working on the previous message`, { taskId });
    }
    if (prior) {
      // another instance may have moved the task on before the claim was ours
      prior = await this.store.get(params.scope, taskId);
      if (!prior || isTerminalState(prior.task.status.state)) {
        await this.coordinator.release(taskId);
        throw new UnsupportedOperationError(`Task ${taskId} has finished meanwhile; start a new task in the same context`, { taskId });
      }
    }
    const contextId = prior?.task.contextId ?? message.contextId ?? this.newId();
    const execution = new Execution(this, params, taskId, contextId, prior);
    this.executions.set(taskId, execution);
    void execution.run().finally(() => {
      this.executions.delete(taskId);
      // the commit that ended the task dropped its claim; a turn whose write failed (the store was
      // unreachable) leaves its claim to lapse, so that the orphan sweep fails the task once the
      // store is back instead of leaving it WORKING for good
      if (execution.endedInStore) return;
      if (execution.writeFailed) return this.coordinator.abandon(taskId);
      return this.coordinator.release(taskId).catch(() => undefined);
    });
    return execution;
  }

  /**
   * Claims the next turn of an existing task. One that just asked for input is usually held a
   * moment longer by the instance whose executor is returning from execute(): it gets that moment
   * here, as a local one gets it from whenInterruptedDone().
   */
  private async claimContinuation(prior: StoredTask, scope: TaskScope): Promise<boolean> {
    const taskId = prior.task.id;
    if (await this.coordinator.claim(taskId, scope)) return true;
    if (!isInterruptedState(prior.task.status.state)) return false;
    for (const deadline = Date.now() + INTERRUPTED_RETURN_MS; Date.now() < deadline; ) {
      await sleep(CLAIM_RETRY_MS);
      if (await this.coordinator.claim(taskId, scope)) return true;
    }
    return false;
  }

  /** @throws TaskNotFoundError */
  async get(scope: TaskScope, taskId: string): Promise<StoredTask> {
    const stored = await this.store.get(scope, taskId);
    if (!stored) throw new TaskNotFoundError(`Task ${taskId} not found`, { taskId });
    return stored;
  }

  list(scope: TaskScope, query: TaskQuery): Promise<TaskPage> {
    return this.store.list(scope, query);
  }

  /** The task's events after `afterSeq`, live, until `signal` aborts. */
  follow(taskId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<LoggedEvent> {
    return this.log.follow(taskId, afterSeq, signal);
  }

  /**
   * Cancels a task: aborts its executor (the AbortSignal of its context) and writes CANCELED.
   * A repeated cancel of a CANCELED task answers that task (cancel is idempotent).
   * @throws TaskNotFoundError, TaskNotCancelableError
   */
  async cancel(scope: TaskScope, taskId: string): Promise<Task> {
    for (let attempt = 0; ; attempt++) {
      const execution = this.executions.get(taskId);
      let task: Task;
      try {
        task = (execution && sameScope(execution.scope, scope) ? (await execution.cancel())?.task : undefined) ?? (await this.cancelElsewhere(scope, taskId));
      } catch (error) {
        if (error instanceof ConcurrentTaskUpdateError && attempt < 3) continue; // a turn started meanwhile: retry through it
        throw error;
      }
      const state = task.status.state;
      if (state === 'TASK_STATE_CANCELED') return task;
      if (isTerminalState(state)) throw new TaskNotCancelableError(`Task ${taskId} is ${state} and cannot be canceled`, { taskId });
      return task; // the instance running it did not stop it in time: the state says so (spec §3.1.5)
    }
  }

  /** Aborts every running executor and fails its task: the server is going away. */
  async shutdown(): Promise<void> {
    await Promise.all([...this.executions.values()].map((e) => e.stop(FAILURE_TEXT.shutdown)));
  }

  /**
   * A task that does not run here: asks the instance that runs it to cancel and waits for the
   * outcome in the log, or (nobody runs it) claims it and writes CANCELED itself.
   */
  private async cancelElsewhere(scope: TaskScope, taskId: string): Promise<Task> {
    const stored = await this.get(scope, taskId);
    if (isTerminalState(stored.task.status.state)) return stored.task;
    if (await this.coordinator.isClaimed(taskId)) {
      await this.coordinator.requestCancel(taskId);
      return this.awaitTerminal(stored, this.options.cancelWaitMs ?? 5000);
    }
    return (await this.endUnclaimed(scope, taskId, 'TASK_STATE_CANCELED'))?.task ?? this.cancelElsewhere(scope, taskId);
  }

  /** Folds the log after `stored` until a terminal state or the deadline: what the task is now. */
  private async awaitTerminal(stored: StoredTask, timeoutMs: number): Promise<Task> {
    let task = stored.task;
    for await (const { event } of this.log.follow(task.id, stored.seq, AbortSignal.timeout(timeoutMs))) {
      task = applyEvent(task, event) ?? task;
      if (isTerminalState(task.status.state)) break;
    }
    return task;
  }

  /**
   * Ends a task nobody runs, under a claim of our own (so no turn starts meanwhile). Undefined
   * when the claim could not be had: someone runs it after all.
   */
  private async endUnclaimed(scope: TaskScope, taskId: string, state: TaskState, text?: string): Promise<StoredTask | undefined> {
    if (!(await this.coordinator.claim(taskId, scope))) return undefined;
    try {
      const stored = await this.get(scope, taskId);
      if (isTerminalState(stored.task.status.state)) return stored;
      const contextId = stored.task.contextId ?? '';
      const event = this.statusEvent(taskId, contextId, state, text === undefined ? undefined : this.agentMessage(taskId, contextId, text));
      return await this.write(scope, stored, [event], applyEvent(stored.task, event)!);
    } finally {
      await this.coordinator.release(taskId);
    }
  }

  /** The instance running a task died: a task left SUBMITTED or WORKING ends FAILED, not WORKING forever. */
  private async recoverOrphan(taskId: string, scope: TaskScope): Promise<void> {
    const stored = await this.store.get(scope, taskId);
    const state = stored?.task.status.state;
    if (state !== 'TASK_STATE_SUBMITTED' && state !== 'TASK_STATE_WORKING') return;
    this.logger.warn(`Task ${taskId} was left ${state} by an instance that stopped; failing it`);
    await this.endUnclaimed(scope, taskId, 'TASK_STATE_FAILED', FAILURE_TEXT.orphaned);
  }

  /** Appends `events` and saves `next`, the snapshot they fold `current` into (the caller has folded them). @internal */
  async write(scope: TaskScope, current: StoredTask | undefined, events: readonly StreamResponse[], next: Task): Promise<StoredTask> {
    const stored = await this.backend.commit({ scope, current, events, next });
    if (this.listeners.length > 0) {
      const first = stored.seq - events.length + 1;
      const logged = events.map((event, i) => ({ seq: first + i, event }));
      for (const listener of this.listeners) await listener.onAppended(scope, stored.task.id, logged);
    }
    return stored;
  }

  /** `taskId` now in `state`, stamped with the time. @internal */
  statusEvent(taskId: string, contextId: string, state: TaskState, message?: Message): StreamResponse {
    return { statusUpdate: { taskId, contextId, status: { state, message, timestamp: this.timestamp() } } };
  }

  /** A message of the agent's own in a task (the text of a status the module sets). @internal */
  agentMessage(taskId: string, contextId: string, text: string): Message {
    return { messageId: this.newId(), role: 'ROLE_AGENT', parts: [{ text }], contextId, taskId };
  }

  /** @internal */
  timestamp(): string {
    return new Date(this.now()).toISOString();
  }

  /** @internal */
  id(): string {
    return this.newId();
  }

  /** @internal */
  get timeoutMs(): number {
    return this.options.executorTimeoutMs;
  }

  /** @internal */
  get logs(): Logger {
    return this.logger;
  }
}

/** One turn of one task: runs the executor and serialises its events into the log. */
class Execution implements Turn, TurnSink {
  readonly scope: TaskScope;
  private readonly controller = new AbortController();
  private readonly startedDeferred = deferred<TurnStart>();
  private readonly settledDeferred = deferred<void>();
  private chain: Promise<unknown> = Promise.resolve();
  private stored: StoredTask | undefined;
  /** The task event that opens this turn is written. */
  private opened = false;
  private replied = false;
  /** A terminal state is written: later events are dropped. */
  private closed = false;
  /** The last state written is INPUT_REQUIRED or AUTH_REQUIRED. */
  private interrupted = false;
  private readonly finished = deferred<void>();
  /** The last commit issued. Commits are pipelined: each is issued without waiting for the one before. */
  private lastCommit: Promise<unknown> = Promise.resolve();
  /** Events made in the current turn of the event loop, committed together when it ends. */
  private batch?: { readonly base: StoredTask | undefined; readonly events: StreamResponse[]; readonly done: Deferred<StoredTask> };
  /** The first commit that failed: this turn writes nothing more. */
  private commitFailure: unknown;

  constructor(
    private readonly manager: TaskManager,
    private readonly params: SendParams,
    private readonly taskId: string,
    private readonly contextId: string,
    private readonly prior: StoredTask | undefined,
  ) {
    this.scope = params.scope;
    this.stored = prior;
  }

  /** The turn ended the task, and that write is stored. */
  get endedInStore(): boolean {
    const state = this.stored?.task.status.state;
    return this.commitFailure === undefined && state !== undefined && isTerminalState(state);
  }

  /** A commit of this turn failed: what the store holds is not what the turn meant to write. */
  get writeFailed(): boolean {
    return this.commitFailure !== undefined;
  }

  /** After a failed commit the predicted snapshot is not what was stored: the caller reads the store. */
  latest(): Task | undefined {
    return this.commitFailure === undefined ? this.stored?.task : undefined;
  }

  get started(): Promise<TurnStart> {
    return this.startedDeferred.promise;
  }

  get settled(): Promise<void> {
    return this.settledDeferred.promise;
  }

  async run(): Promise<void> {
    const { agent, request, caller, extensions } = this.params;
    const ctx = new TaskContext({
      taskId: this.taskId,
      contextId: this.contextId,
      message: { ...request.message, contextId: this.contextId },
      task: this.prior?.task,
      caller,
      signal: this.controller.signal,
      extensions,
      configuration: request.configuration,
      metadata: request.metadata,
      newId: () => this.manager.id(),
      sink: this,
    });
    const timer = setTimeout(() => void this.stop(FAILURE_TEXT.timeout), this.manager.timeoutMs);
    timer.unref();
    try {
      await agent.executor.execute(ctx);
    } catch (error) {
      if (!this.closed) {
        // the error's message and stack may hold secrets: only its class name is logged
        this.manager.logs.warn(`Agent "${agent.name}" threw ${(error as Error)?.name ?? typeof error} on task ${this.taskId}`);
        await this.enqueue(() => this.end('TASK_STATE_FAILED', FAILURE_TEXT.threw)).catch((e) => this.logWriteFailure(e));
      }
    } finally {
      clearTimeout(timer);
      await this.enqueue(() => this.finish()).catch((e) => this.logWriteFailure(e));
      this.settledDeferred.resolve();
      this.finished.resolve();
    }
  }

  /**
   * When the task waits for the client, the executor is usually a step away from returning:
   * waits (briefly) for that. An executor that keeps running while interrupted keeps its turn.
   */
  async whenInterruptedDone(): Promise<void> {
    if (!this.interrupted) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.finished.promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, INTERRUPTED_RETURN_MS)))]);
    clearTimeout(timer);
  }

  /** Cancel requested: abort the executor, then write CANCELED unless the task already ended. */
  cancel(): Promise<StoredTask | undefined> {
    if (!this.stored) return Promise.resolve(undefined); // the task is not stored yet: nothing to cancel
    this.controller.abort(new Error('canceled'));
    return this.enqueue(async () => {
      if (!this.closed) await this.end('TASK_STATE_CANCELED');
      this.flush();
      await this.lastCommit;
      return this.commitFailure === undefined ? this.stored! : undefined;
    });
  }

  /** Abort and fail (deadline passed, server stopping). */
  async stop(text: string): Promise<void> {
    this.controller.abort(new Error(text));
    await this.enqueue(() => this.end('TASK_STATE_FAILED', text)).catch((e) => this.logWriteFailure(e));
  }

  // ---- TurnSink: what the TaskContext helpers call ----

  reply(message: Message): Promise<void> {
    return this.enqueue(async () => {
      if (this.opened || this.replied || this.prior) {
        throw new Error('reply() answers a new message without a task; this turn has a task: use working(), complete() or another state helper');
      }
      this.replied = true;
      this.startedDeferred.resolve({ message });
      this.settledDeferred.resolve();
    });
  }

  status(state: TaskState, message?: Message): Promise<void> {
    return this.enqueue(async () => {
      if (state === 'TASK_STATE_SUBMITTED' && !this.opened) return this.open(message);
      await this.emit((taskId, contextId) => this.manager.statusEvent(taskId, contextId, state, message));
    });
  }

  artifact(artifact: Artifact, append: boolean, lastChunk: boolean): Promise<void> {
    return this.enqueue(() =>
      this.emit((taskId, contextId) => ({
        artifactUpdate: { taskId, contextId, artifact, append: append || undefined, lastChunk: lastChunk || undefined },
      })),
    );
  }

  // ---- internals ----

  /** Serialises every write of this task: events are logged in the order they were made. */
  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /**
   * Issues an event's commit. A helper returns once its commit is issued, in order (the writes
   * reach the store in that order and each one checks the one before: a failed commit fails
   * every later one). A state that settles the turn (terminal, interrupted) is awaited until
   * stored, so nobody is ever answered with what is not stored.
   */
  private async emit(build: (taskId: string, contextId: string) => StreamResponse): Promise<void> {
    if (this.replied) throw new Error('This turn already answered with a Message; it has no task to update');
    if (this.commitFailure !== undefined) throw this.commitFailure;
    if (this.closed) {
      this.manager.logs.debug(`Event for finished task ${this.taskId} dropped`);
      return;
    }
    await this.open();
    const event = build(this.taskId, this.contextId);
    const written = this.commit(event);
    const state = 'statusUpdate' in event ? event.statusUpdate.status.state : undefined;
    if (state && isTerminalState(state)) this.closed = true;
    if (state) this.interrupted = isInterruptedState(state);
    if (state && (isTerminalState(state) || isInterruptedState(state))) {
      await written;
      this.settledDeferred.resolve();
    } else {
      written.catch(() => undefined); // a failed commit is recorded by flush() and fails the next helper
    }
  }

  /** Every event issued so far is stored (or the first failure is thrown). */
  async flushed(): Promise<void> {
    this.flush();
    await this.lastCommit;
    if (this.commitFailure !== undefined) throw this.commitFailure;
  }

  /**
   * Queues `event` after the ones before it and moves `stored` on to what it makes. The events
   * of one turn of the event loop go to the store in one commit (one round trip for a whole
   * quick lifecycle); the promise resolves with the event's sequence number once it is stored.
   */
  private commit(event: StreamResponse): Promise<number> {
    if (!this.batch) {
      this.batch = { base: this.stored, events: [], done: deferred<StoredTask>() };
      setImmediate(() => this.flush());
    }
    const batch = this.batch;
    batch.events.push(event);
    const seq = (this.stored?.seq ?? 0) + 1;
    this.stored = { task: applyEvent(this.stored?.task, event)!, scope: this.scope, seq, version: (batch.base?.version ?? 0) + 1 };
    return batch.done.promise.then(() => seq);
  }

  /** Issues the queued events as one commit, after the commits before it. */
  private flush(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    // commit() folded every queued event into `stored` as it came: that is the batch's snapshot
    const written = this.manager.write(this.scope, batch.base, batch.events, this.stored!.task);
    written.then(batch.done.resolve, batch.done.reject);
    this.lastCommit = written.catch((error: unknown) => {
      this.commitFailure ??= error;
      this.closed = true;
    });
  }

  /** Issues the `task` event that opens the turn: a new task, or the continued one with the new message, in SUBMITTED. */
  private async open(statusMessage?: Message): Promise<void> {
    if (this.opened) return;
    this.opened = true;
    const status = { state: 'TASK_STATE_SUBMITTED' as const, message: statusMessage, timestamp: this.manager.timestamp() };
    const base: Task = this.prior?.task ?? { id: this.taskId, contextId: this.contextId, status };
    const history = [...(base.history ?? []), this.userMessage(), ...(statusMessage ? [statusMessage] : [])];
    const refuse = (error: unknown) => {
      const reason =
        error instanceof ConcurrentTaskUpdateError
          ? new UnsupportedOperationError(`Task ${this.taskId} changed while this message arrived; read it and try again`, { taskId: this.taskId })
          : error;
      this.startedDeferred.reject(reason);
      this.closed = true;
      return reason;
    };
    try {
      await this.params.beforeOpen?.(this.taskId);
    } catch (error) {
      throw refuse(error);
    }
    const task: Task = { ...base, status, history };
    const written = this.commit({ task });
    // the turn has started once its first event is stored (streams follow the log from there)
    written.then((seq) => this.startedDeferred.resolve({ taskId: this.taskId, seq, task }), refuse);
  }

  /** Ends the task in `state` (if it has not ended): opens it first when nothing was written yet. */
  private async end(state: TaskState, text?: string): Promise<void> {
    if (this.closed || this.replied) return;
    const message = text === undefined ? undefined : this.manager.agentMessage(this.taskId, this.contextId, text);
    await this.emit((taskId, contextId) => this.manager.statusEvent(taskId, contextId, state, message));
  }

  /** After execute() returned (and every commit landed): no answer at all, or a task left SUBMITTED/WORKING, is a failure. */
  private async finish(): Promise<void> {
    this.flush();
    await this.lastCommit;
    if (this.replied || this.closed) return;
    if (!this.opened) return this.end('TASK_STATE_FAILED', FAILURE_TEXT.silent);
    const state = this.stored?.task.status.state;
    if (state === 'TASK_STATE_SUBMITTED' || state === 'TASK_STATE_WORKING') {
      this.manager.logs.warn(`Agent "${this.params.agent.name}" returned leaving task ${this.taskId} ${state}`);
      await this.end('TASK_STATE_FAILED', FAILURE_TEXT.unfinished);
    }
  }

  private userMessage(): Message {
    return { ...this.params.request.message, taskId: this.taskId, contextId: this.contextId };
  }

  private logWriteFailure(error: unknown): void {
    this.manager.logs.error(`Could not write task ${this.taskId}: ${(error as Error)?.name ?? 'error'}`);
  }
}
