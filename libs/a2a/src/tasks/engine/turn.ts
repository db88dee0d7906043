/**
 * One turn of one task: runs the executor on one incoming message and writes what it emits, in the
 * order it emits it, until the task ends, waits for the client, or the turn answers with a Message.
 */
import type { LoggerService } from '@nestjs/common';
import { UnsupportedOperationError, echoed } from '../../protocol/errors.js';
import { withFields } from '../../protocol/json-value.js';
import { isInterruptedState, isTerminalState, type Artifact, type Message, type SendMessageRequest, type StreamResponse, type Task, type TaskState } from '../../protocol/types.js';
import type { A2ACaller, AgentExecutor } from '../agent-executor.js';
import { observeToolCall } from '../../telemetry/tool-telemetry.js';
import { observeTurn } from '../../telemetry/turn-telemetry.js';
import { readConversation } from '../conversation.js';
import { failedStepOf, TaskContext } from '../task-context.js';
import { ConcurrentTaskUpdateError, type StoredTask, type TaskScope, type TaskStore } from '../task-store.js';
import type { ToolCallEvents } from '../tool-call-events.js';
import { CommitPipeline, type CommitFn } from './commit-pipeline.js';
import { Eventual, ignore, Latch, RESOLVED } from './deferred.js';
import type { RunningTurn } from './running-turns.js';
import { artifactEvent, endingEvent, FAILURES, isoTime, openingTask, statusEvent, thrownFailure, userMessageOf, type Failure, type IdsAndClock } from './turn-events.js';

/** How long a continuation waits for the turn that asked for input to return from execute(). */
export const INTERRUPTED_RETURN_MS = 1000;

/** An agent as the engine runs it. */
export interface RunnableAgent {
  readonly name: string;
  readonly executor: AgentExecutor;
}

/** What a turn is asked to do. */
export interface TurnParams {
  readonly agent: RunnableAgent;
  readonly scope: TaskScope;
  readonly request: SendMessageRequest;
  readonly caller: A2ACaller;
  readonly extensions: readonly string[];
  /**
   * Runs once the task id is known, before the turn's first event is logged (e.g. an inline push
   * config). `isNew`: the task is new, so nothing of it is stored yet.
   */
  readonly beforeOpen?: (taskId: string, isNew: boolean) => Promise<void>;
}

/** How a turn began: a Message answer, or the task event (its sequence number, the task it made) that opened it. */
export type TurnStart = { readonly message: Message } | { readonly taskId: string; readonly seq: number; readonly task: Task };

/** What a turn needs of the engine: one set for every turn. */
export interface TurnDeps extends IdsAndClock {
  readonly commit: CommitFn;
  readonly logger: LoggerService;
  /** Told when a new task's turn opens its task: from then on the task can be looked up (cancel), so its turn can be too. */
  readonly taskOpened: (turn: Turn) => void;
  /** Told once a turn is over (its `done` has passed): the manager forgets it and lets go of its claim. */
  readonly turnOver: (turn: Turn) => void;
  /** What `ctx.conversation()` reads: the store's ListTasks by contextId. */
  readonly store: Pick<TaskStore, 'list'>;
  /** Where `ctx.runTool` tells what the wire does not. */
  readonly toolEvents?: ToolCallEvents;
}

/**
 * How a turn left its task, for its claim: `ended` (its last write ended the task and is stored),
 * `write-failed` (a write failed: the store does not hold what the turn meant), `left-open` (the
 * task waits for the client, or the continued task's turn wrote none), `no-task` (a new task's
 * turn that wrote nothing: a Message answer, or an opening refused before its write; a new task is
 * claimed by its first write, so there is no claim to release).
 */
export type TurnOutcome = 'ended' | 'write-failed' | 'left-open' | 'no-task';

/**
 * The turn's one state:
 * - `new`: nothing written, no answer yet;
 * - `replied`: answered with a Message: no task, nothing to write;
 * - `open`: the event opening the turn is issued; the task is SUBMITTED or WORKING;
 * - `interrupted`: the last state issued is INPUT_REQUIRED or AUTH_REQUIRED (the executor may go on);
 * - `closed`: a terminal state is issued, a write failed, or the opening was refused: later events are dropped.
 */
export type TurnState = 'new' | 'replied' | 'open' | 'interrupted' | 'closed';

const TRANSITIONS: { readonly [From in TurnState]: readonly TurnState[] } = {
  new: ['replied', 'open'],
  open: ['open', 'interrupted', 'closed'],
  interrupted: ['open', 'interrupted', 'closed'],
  replied: [],
  closed: [],
};

export class Turn implements RunningTurn<Turn> {
  readonly scope: TaskScope;
  /** When the turn started: its executor's time runs from then (RunningTurns), and its duration. */
  readonly startedAt = performance.now();
  /** The manager's list of running turns (RunningTurns): its links. */
  older?: Turn;
  newer?: Turn;
  /** execute() runs and its deadline has not passed: a deadline passing stops it. */
  private onTheClock = false;
  private state: TurnState = 'new';
  private readonly controller = new AbortController();
  private readonly start = new Eventual<TurnStart>();
  private readonly settledLatch = new Latch();
  /** execute() has returned and the turn's last writes are done. */
  private readonly finished = new Latch();
  /** Serialises every step of this turn: events are issued in the order they were made. */
  private chain: Promise<unknown> = RESOLVED;
  private readonly pipeline: CommitPipeline;

  /** `id`: the continued task's; undefined for a new task, whose id is drawn when first read (a Message answer never reads it). */
  constructor(
    private readonly deps: TurnDeps,
    private readonly params: TurnParams,
    private id: string | undefined,
    readonly contextId: string,
    private readonly prior: StoredTask | undefined,
  ) {
    this.scope = params.scope;
    this.pipeline = new CommitPipeline(deps.commit, params.scope, prior, () => this.close());
  }

  /** The task's id: the continued task's, or the new task's (drawn now if it has none yet). */
  get taskId(): string {
    return (this.id ??= this.deps.newId());
  }

  /** The task's id if it has one: a turn that never read it made no task. */
  get knownTaskId(): string | undefined {
    return this.id;
  }

  /** Resolves with the turn's first outcome. */
  get started(): Promise<TurnStart> {
    return this.start.promise;
  }

  /** The turn's first outcome if it has come and is not a failure: what `started` resolves with, without a promise. */
  startedNow(): TurnStart | undefined {
    return this.start.now();
  }

  /** Resolves once execute() has returned and the turn's last writes are done. */
  get done(): Promise<void> {
    return this.finished.promise;
  }

  /** Resolves once the task is terminal or interrupted, or the turn is over. */
  get settled(): Promise<void> {
    return this.settledLatch.promise;
  }

  /** The task as this turn last wrote it (what a blocked caller answers with once settled); after a failed write, undefined: read the store. */
  latest(): Task | undefined {
    return this.pipeline.failure ? undefined : this.pipeline.snapshot?.task;
  }

  get outcome(): TurnOutcome {
    if (this.pipeline.failure) return 'write-failed';
    const snapshot = this.pipeline.snapshot; // the continued task's, until this turn writes
    if (snapshot === undefined) return 'no-task';
    const state = snapshot.task.status.state;
    return isTerminalState(state) ? 'ended' : 'left-open';
  }

  async run(): Promise<void> {
    const { agent, request, caller, extensions } = this.params;
    const ctx = new TaskContext({
      contextId: this.contextId,
      message: withFields(request.message, { contextId: this.contextId }),
      task: this.prior?.task,
      caller,
      // made when first read (as cancel and the deadline make it): most executors never look
      signal: () => this.controller.signal,
      extensions,
      configuration: request.configuration,
      metadata: request.metadata,
      newId: this.deps.newId,
      now: this.deps.now,
      turn: this,
      conversation: (options) => readConversation(this.deps.store, { scope: this.scope, contextId: this.contextId, taskId: this.taskId, prior: this.prior?.task }, options),
      toolEvents: this.deps.toolEvents,
      observeTool: observeToolCall,
      agent: agent.name,
    });
    this.onTheClock = true;
    const observed = observeTurn(agent.name, this);
    try {
      await (observed ? observed.run(() => agent.executor.execute(ctx)) : agent.executor.execute(ctx));
    } catch (error) {
      observed?.threw(error);
      if (this.state !== 'closed') {
        const failure = thrownFailure(error, failedStepOf(error));
        // the wire gets the code and a safe text; the error's message and stack may hold secrets
        // (a peer's URL, a password in a driver's message): only its class name is logged
        const where = failure.step === undefined ? '' : ` in step ${failure.step}`;
        this.deps.logger.warn(`Agent "${agent.name}" threw ${(error as Error)?.name ?? typeof error}${where} on task ${this.taskId}: ${failure.code}`);
        await this.enqueue(() => this.end(failure)).catch((e) => this.logWriteFailure(e));
      }
    } finally {
      this.onTheClock = false;
      // a Message answer wrote nothing and has nothing to finish
      if (this.state !== 'replied') await this.enqueue(() => this.finish()).catch((e) => this.logWriteFailure(e));
      this.settledLatch.resolve();
      this.finished.resolve();
      observed?.end(this.state === 'replied' ? 'replied' : this.latest()?.status.state);
      this.deps.turnOver(this);
    }
  }

  /**
   * When the task waits for the client, the executor is usually a step away from returning:
   * waits (briefly) for that. An executor that keeps running while interrupted keeps its turn.
   */
  async whenInterruptedDone(): Promise<void> {
    if (this.state !== 'interrupted') return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.finished.promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, INTERRUPTED_RETURN_MS)))]);
    clearTimeout(timer);
  }

  /** Cancel requested: abort the executor, then write CANCELED unless the task already ended. */
  cancel(): Promise<StoredTask | undefined> {
    if (!this.pipeline.snapshot) return Promise.resolve(undefined); // the task is not stored yet: nothing to cancel
    this.controller.abort(new Error('canceled'));
    return this.enqueue(async () => {
      if (this.state !== 'closed') await this.end('canceled');
      await this.pipeline.settle();
      return this.pipeline.failure ? undefined : this.pipeline.snapshot;
    });
  }

  /** The executor's time has run out (RunningTurns): stopped, once, unless execute() has returned. */
  overdue(): void {
    if (!this.onTheClock) return;
    this.onTheClock = false;
    void this.stop(FAILURES.timeout);
  }

  /** Abort and fail (deadline passed, server stopping). */
  async stop(failure: Failure): Promise<void> {
    this.controller.abort(new Error(failure.text));
    await this.enqueue(() => this.end(failure)).catch((e) => this.logWriteFailure(e));
  }

  // ---- what the TaskContext helpers call ----

  reply(message: Message): Promise<void> {
    // nothing was ever queued (the usual Message answer): answered now, not a microtask later
    if (this.chain === RESOLVED) {
      try {
        this.answer(message);
        return RESOLVED;
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.enqueue(async () => this.answer(message));
  }

  status(state: TaskState, message?: Message): Promise<void> {
    return this.enqueue(async () => {
      if (state === 'TASK_STATE_SUBMITTED' && this.state === 'new') return this.open(message);
      await this.emit(() => statusEvent(this.taskId, this.contextId, state, message, isoTime(this.deps.now())));
    });
  }

  artifact(artifact: Artifact, append: boolean, lastChunk: boolean): Promise<void> {
    return this.enqueue(() => this.emit(() => artifactEvent(this.taskId, this.contextId, artifact, append, lastChunk)));
  }

  /** Every event issued so far is stored (or the first failure is thrown). */
  flushed(): Promise<void> {
    return this.pipeline.flushed();
  }

  // ---- internals ----

  private answer(message: Message): void {
    if (this.state !== 'new' || this.prior) {
      throw new Error('reply() answers a new message without a task; this turn has a task: use working(), complete() or another state helper');
    }
    this.moveTo('replied');
    this.start.resolve({ message });
    this.settledLatch.resolve();
  }

  private moveTo(next: TurnState): void {
    if (!TRANSITIONS[this.state].includes(next)) throw new Error(`A turn cannot go from ${this.state} to ${next}`);
    this.state = next;
  }

  /** Nothing more is written (a terminal state is issued, a write failed, the opening was refused). */
  private close(): void {
    if (this.state !== 'closed') this.moveTo('closed');
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn);
    this.chain = run.catch(ignore);
    return run;
  }

  /**
   * Issues an event's commit. A helper returns once its commit is issued, in order (the writes
   * reach the store in that order and each one checks the one before: a failed commit fails
   * every later one). A state that settles the turn (terminal, interrupted) is awaited until
   * stored, so nobody is ever answered with what is not stored.
   */
  private async emit(build: () => StreamResponse): Promise<void> {
    if (this.state === 'replied') throw new Error('This turn already answered with a Message; it has no task to update');
    const failure = this.pipeline.failure;
    if (failure) throw failure.error;
    if (this.state === 'closed') {
      this.deps.logger.debug?.(`Event for finished task ${this.taskId} dropped`);
      return;
    }
    if (this.state === 'new') await this.open();
    const event = build();
    // a failed commit is recorded by the pipeline and fails the next helper: only a settling state waits for it
    const written = this.pipeline.add(event);
    const state = 'statusUpdate' in event ? event.statusUpdate.status.state : undefined;
    if (state === undefined) return;
    const ends = isTerminalState(state);
    const interrupts = isInterruptedState(state);
    this.moveTo(ends ? 'closed' : interrupts ? 'interrupted' : 'open');
    if (ends || interrupts) {
      await written;
      this.settledLatch.resolve();
    }
  }

  /** Issues the `task` event that opens the turn: a new task, or the continued one with the new message, in SUBMITTED. */
  private async open(statusMessage?: Message): Promise<void> {
    if (this.state !== 'new') return;
    this.moveTo('open');
    if (this.prior === undefined) this.deps.taskOpened(this);
    const timestamp = isoTime(this.deps.now());
    const refuse = (error: unknown) => {
      const reason =
        error instanceof ConcurrentTaskUpdateError
          ? new UnsupportedOperationError(`Task ${echoed(this.taskId)} changed while this message arrived; read it and try again`, { taskId: echoed(this.taskId) })
          : error;
      this.start.reject(reason);
      this.close();
      return reason;
    };
    try {
      await this.params.beforeOpen?.(this.taskId, this.prior === undefined);
    } catch (error) {
      throw refuse(error);
    }
    const userMessage = userMessageOf(this.params.request.message, this.taskId, this.contextId);
    const task = openingTask(this.prior?.task, this.taskId, this.contextId, userMessage, statusMessage, timestamp);
    // the turn has started once its first event is stored (streams follow the log from there)
    this.pipeline.push({ task }).then((seq) => this.start.resolve({ taskId: this.taskId, seq, task }), refuse);
  }

  /** Ends the task CANCELED, or FAILED saying why (if it has not ended): opens it first when nothing was written yet. */
  private async end(outcome: Failure | 'canceled'): Promise<void> {
    if (this.state === 'closed' || this.state === 'replied') return;
    await this.emit(() => endingEvent(this.taskId, this.contextId, outcome === 'canceled' ? undefined : outcome, this.deps));
  }

  /** After execute() returned (and every commit landed): no answer at all, or a task left SUBMITTED/WORKING, is a failure. */
  private async finish(): Promise<void> {
    await this.pipeline.settle();
    if (this.state === 'replied' || this.state === 'closed') return;
    if (this.state === 'new') return this.end(FAILURES.silent);
    const state = this.pipeline.snapshot?.task.status.state;
    if (state === 'TASK_STATE_SUBMITTED' || state === 'TASK_STATE_WORKING') {
      this.deps.logger.warn(`Agent "${this.params.agent.name}" returned leaving task ${this.taskId} ${state}`);
      await this.end(FAILURES.unfinished);
    }
  }

  private logWriteFailure(error: unknown): void {
    this.deps.logger.error(`Could not write task ${this.taskId}: ${(error as Error)?.name ?? 'error'}`);
  }
}
