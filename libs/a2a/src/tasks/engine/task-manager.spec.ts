import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { InvalidParamsError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '../../protocol/errors.js';
import type { Message, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState } from '../../protocol/types.js';
import type { A2ACaller, AgentTool, ToolInvocation } from '../agent-executor.js';
import type { LoggedEvent } from '../event-log.js';
import { InMemoryTaskBackend } from '../in-memory/in-memory-task-backend.js';
import type { InMemoryTaskStore } from '../in-memory/in-memory-task-store.js';
import type { TaskBackend, TaskWrite } from '../task-backend.js';
import type { TaskContext } from '../task-context.js';
import { TaskManager } from './task-manager.js';
import type { RunnableAgent, Turn, TurnStart } from './turn.js';
import type { StoredTask, TaskScope } from '../task-store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SAFE = {
  threw: 'The agent encountered an internal error.',
  silent: 'The agent ended without a response.',
  unfinished: 'The agent stopped before finishing the task.',
  timeout: 'The agent did not finish in time.',
  shutdown: 'The agent was stopped because the server is shutting down.',
};

const scope: TaskScope = { agent: 'test-agent', tenant: '', subject: 'alice' };
const caller: A2ACaller = { subject: 'alice', user: { id: 'alice', roles: ['reader'] } };

/** The real in-memory backend, with the events of every successful commit recorded so a test can read a task's whole log. */
class RecordingBackend implements TaskBackend {
  readonly appended: Array<{ taskId: string; seq: number; event: StreamResponse }> = [];
  readonly inner = new InMemoryTaskBackend();
  readonly store = this.inner.store;
  readonly log = this.inner.log;
  readonly coordinator = this.inner.coordinator;

  async commit(write: TaskWrite): Promise<StoredTask> {
    const stored = await this.inner.commit(write);
    const first = stored.seq - write.events.length + 1;
    write.events.forEach((event, i) => this.appended.push({ taskId: stored.task.id, seq: first + i, event }));
    return stored;
  }

  admit(scope: TaskScope, bytes: number): Promise<void> {
    return this.inner.admit(scope, bytes);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  eventsOf(taskId: string): StreamResponse[] {
    const entries = this.appended.filter((e) => e.taskId === taskId);
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1)); // gapless, in order
    return entries.map((e) => e.event);
  }
}

interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((res) => (resolve = res));
  return { promise, resolve };
}

function aborted(signal: AbortSignal): Promise<void> {
  return signal.aborted ? Promise.resolve() : new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Waits for `gate`, or for the turn to be aborted (so no executor outlives its test). */
function waitFor(gate: Deferred, ctx: TaskContext): Promise<void> {
  return Promise.race([gate.promise, aborted(ctx.signal)]);
}

/** Lets pending promise callbacks run (the manager releases a finished turn right after the executor returns). */
function drain(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Has `promise` settled by now? */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await drain();
  return done;
}

function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: `u-${randomUUID()}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

function agentOf(execute: (ctx: TaskContext) => Promise<void> | void): RunnableAgent {
  return { name: 'test-agent', executor: { execute } };
}

function stateOf(event: StreamResponse): TaskState | undefined {
  if ('task' in event) return event.task.status.state;
  if ('statusUpdate' in event) return event.statusUpdate.status.state;
  return undefined;
}

/** A compact picture of a log: `task:STATE`, `status:STATE[:text]`, `artifact:id[:text]`. */
function describeEvent(event: StreamResponse): string {
  if ('task' in event) return `task:${event.task.status.state}`;
  if ('statusUpdate' in event) {
    const text = event.statusUpdate.status.message?.parts.map((p) => p.text).join('');
    return `status:${event.statusUpdate.status.state}${text === undefined ? '' : `:${text}`}`;
  }
  if ('artifactUpdate' in event) return `artifact:${event.artifactUpdate.artifact.parts.map((p) => p.text ?? '?').join('|')}`;
  return 'message';
}

function statusText(task: Task): string | undefined {
  return task.status.message?.parts.map((p) => p.text).join('');
}

describe('TaskManager', () => {
  let store: InMemoryTaskStore;
  let backend: RecordingBackend;
  let manager: TaskManager;
  let logged: string[];

  function createManager(executorTimeoutMs = 5000): TaskManager {
    const record = (level: string) => (...args: unknown[]) =>
      void logged.push(`${level}: ${args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}`);
    // a logger that records each line it is given, as `level: text`
    const logger = { log: record('log'), warn: record('warn'), error: record('error'), debug: record('debug'), verbose: record('verbose'), fatal: record('fatal') };
    return new TaskManager({ backend, logger }, { executorTimeoutMs });
  }

  beforeEach(() => {
    backend = new RecordingBackend();
    store = backend.store;
    logged = [];
    manager = createManager();
  });

  afterEach(async () => {
    await manager.shutdown(); // aborts whatever a failed test left running
    await drain();
    await backend.close();
    jest.restoreAllMocks();
  });

  function send(agent: RunnableAgent, message: Message, options: { scope?: TaskScope; on?: TaskManager } = {}): Promise<Turn> {
    return (options.on ?? manager).send({ agent, scope: options.scope ?? scope, request: { message }, caller, extensions: [] });
  }

  async function startTask(turn: Turn): Promise<Extract<TurnStart, { taskId: string }>> {
    const start = await turn.started;
    if (!('taskId' in start)) throw new Error('expected the turn to open a task');
    return start;
  }

  async function snapshot(taskId: string, inScope = scope): Promise<Task> {
    const stored = await store.get(inScope, taskId);
    expect(stored).toBeDefined();
    return stored!.task;
  }

  /** Runs a turn whose executor ends the task in INPUT_REQUIRED and returns; resolves once the turn is released. */
  async function inputRequiredTask(agent?: RunnableAgent, message = userMessage('book a flight')): Promise<string> {
    const turn = await send(agent ?? agentOf((ctx) => ctx.inputRequired('Where to?')), message);
    const { taskId } = await startTask(turn);
    await turn.settled;
    await drain();
    expect((await snapshot(taskId)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    return taskId;
  }

  async function completedTask(): Promise<string> {
    const turn = await send(
      agentOf((ctx) => ctx.complete('done')),
      userMessage('hi'),
    );
    const { taskId } = await startTask(turn);
    await turn.settled;
    await drain();
    return taskId;
  }

  describe('a new message', () => {
    it('answered with reply() gives a Message and stores no task', async () => {
      let seen: TaskContext | undefined;
      const returned = deferred();
      const turn = await send(
        agentOf(async (ctx) => {
          seen = ctx;
          await ctx.reply('hello back');
          returned.resolve();
        }),
        userMessage('hello'),
      );
      const start = await turn.started;
      expect('message' in start).toBe(true);
      const message = (start as { message: Message }).message;
      expect(message.role).toBe('ROLE_AGENT');
      expect(message.parts).toEqual([{ text: 'hello back' }]);
      expect(message.taskId).toBeUndefined();
      expect(message.contextId).toMatch(UUID);
      expect(message.contextId).toBe(seen!.contextId);
      expect(message.messageId).toMatch(UUID);
      expect(await isSettled(turn.settled)).toBe(true);

      await returned.promise;
      await drain();
      expect(await store.get(scope, seen!.taskId)).toBeUndefined();
      expect(backend.appended).toEqual([]);
      expect((await store.list(scope, { pageSize: 10 })).totalSize).toBe(0);
    });

    it('answered with reply() leaves the coordinator alone (a new task is claimed by its first write: none was made), where a task left waiting is released', async () => {
      const release = jest.spyOn(backend.coordinator, 'release'); // the real coordinator, watched
      const replied = await send(agentOf((ctx) => ctx.reply('hello back')), userMessage('hello'));
      await replied.done;
      await drain();
      expect(release).not.toHaveBeenCalled();

      const asked = await send(agentOf((ctx) => ctx.inputRequired('which one?')), userMessage('hello'));
      const { taskId } = await startTask(asked);
      await asked.done;
      await drain();
      expect(release.mock.calls).toEqual([[taskId]]);
    });

    it('draws no task id for a reply (its context and its messageId are all it makes); an id read before the task opens is the task’s', async () => {
      await manager.shutdown();
      let drawn = 0;
      manager = new TaskManager({ backend, newId: () => `id-${++drawn}` }, { executorTimeoutMs: 5000 });
      const replied = await send(agentOf((ctx) => ctx.reply('hello back')), userMessage('hello'));
      const { message } = (await replied.started) as { message: Message };
      await replied.done;
      expect([message.contextId, message.messageId, drawn]).toEqual(['id-1', 'id-2', 2]);

      let readEarly: string | undefined;
      const opened = await send(
        agentOf((ctx) => {
          readEarly = ctx.taskId;
          expect(ctx.taskId).toBe(readEarly); // drawn once
          return ctx.complete('done');
        }),
        userMessage('hi'),
      );
      const { taskId } = await startTask(opened);
      expect(readEarly).toBe('id-4'); // after the context's
      expect(taskId).toBe(readEarly);
      await opened.settled;
      expect((await snapshot(taskId)).id).toBe(readEarly);
    });

    it('forgets a turn by the time its done passes, and a follow-up then continues the task', async () => {
      const replied = await send(agentOf((ctx) => ctx.reply('hello back')), userMessage('hello'));
      await replied.done;
      expect(manager.running).toBe(0);

      const asked = await send(agentOf((ctx) => ctx.inputRequired('which one?')), userMessage('hello'));
      const { taskId } = await startTask(asked);
      await asked.done;
      expect(manager.running).toBe(0);
      const next = await send(agentOf((ctx) => ctx.complete('booked')), userMessage('the first', { taskId }));
      await next.settled;
      expect((await snapshot(taskId)).status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('creates a task with a server-generated id and contextId', async () => {
      const message = userMessage('do it');
      let seen: TaskContext | undefined;
      const turn = await send(
        agentOf(async (ctx) => {
          seen = ctx;
          await ctx.complete('done');
        }),
        message,
      );
      const start = await startTask(turn);
      await turn.settled;

      expect(start.seq).toBe(1);
      expect(start.taskId).toMatch(UUID);
      expect(start.taskId).toBe(seen!.taskId);
      expect(seen!.contextId).toMatch(UUID);
      expect(seen!.contextId).not.toBe(start.taskId);
      expect(seen!.message.contextId).toBe(seen!.contextId);
      expect(seen!.task).toBeUndefined();
      expect(seen!.caller).toBe(caller);
      expect(seen!.text).toBe('do it');

      const task = await snapshot(start.taskId);
      expect(task.id).toBe(start.taskId);
      expect(task.contextId).toBe(seen!.contextId);
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.status.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      // the stored user message carries the ids the server assigned
      expect(task.history).toEqual([
        { ...message, taskId: start.taskId, contextId: seen!.contextId },
        expect.objectContaining({ role: 'ROLE_AGENT', parts: [{ text: 'done' }], taskId: start.taskId, contextId: seen!.contextId }),
      ]);
      const first = backend.eventsOf(start.taskId)[0];
      expect('task' in first && first.task.status.state).toBe('TASK_STATE_SUBMITTED');
    });

    it('keeps a contextId the client gave', async () => {
      const turn = await send(
        agentOf((ctx) => ctx.complete()),
        userMessage('hi', { contextId: 'client-context-7' }),
      );
      const { taskId } = await startTask(turn);
      await turn.settled;
      expect((await snapshot(taskId)).contextId).toBe('client-context-7');
      for (const event of backend.eventsOf(taskId)) {
        const contextId = 'task' in event ? event.task.contextId : 'statusUpdate' in event ? event.statusUpdate.contextId : undefined;
        expect(contextId).toBe('client-context-7');
      }
    });

    it('gives every new task its own id', async () => {
      const agent = agentOf((ctx) => ctx.complete());
      const ids = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const turn = await send(agent, userMessage(`m${i}`, { contextId: 'shared' }));
        ids.add((await startTask(turn)).taskId);
        await turn.settled;
      }
      expect(ids.size).toBe(5);
      expect((await store.list(scope, { pageSize: 10, contextId: 'shared' })).totalSize).toBe(5);
    });

    it('hands the executor the request configuration, metadata and extensions', async () => {
      let seen: TaskContext | undefined;
      const turn = await manager.send({
        agent: agentOf(async (ctx) => {
          seen = ctx;
          await ctx.complete();
        }),
        scope,
        request: { message: userMessage('x'), configuration: { acceptedOutputModes: ['text/plain'] }, metadata: { trace: 'abc' } },
        caller,
        extensions: ['https://ext.example/v1'],
      });
      await turn.settled;
      expect(seen!.configuration).toEqual({ acceptedOutputModes: ['text/plain'] });
      expect(seen!.metadata).toEqual({ trace: 'abc' });
      expect(seen!.extensions).toEqual(['https://ext.example/v1']);
    });
  });

  describe('blocking: settled', () => {
    it.each<[string, (ctx: TaskContext) => Promise<void>, TaskState]>([
      ['a terminal state', (ctx) => ctx.complete('done'), 'TASK_STATE_COMPLETED'],
      ['INPUT_REQUIRED', (ctx) => ctx.inputRequired('more please'), 'TASK_STATE_INPUT_REQUIRED'],
      ['AUTH_REQUIRED', (ctx) => ctx.authRequired('sign in at …'), 'TASK_STATE_AUTH_REQUIRED'],
      ['REJECTED', (ctx) => ctx.reject('no'), 'TASK_STATE_REJECTED'],
    ])('resolves at %s, even while the executor still runs', async (_label, finish, state) => {
      const proceed = deferred();
      const holdOn = deferred();
      let returned = false;
      const turn = await send(
        agentOf(async (ctx) => {
          await ctx.working('thinking');
          await waitFor(proceed, ctx);
          await finish(ctx);
          await waitFor(holdOn, ctx);
          returned = true;
        }),
        userMessage('go'),
      );
      const { taskId } = await startTask(turn);
      expect(await isSettled(turn.settled)).toBe(false); // WORKING is not the end of a blocking call

      proceed.resolve();
      await turn.settled;
      expect(returned).toBe(false);
      expect((await snapshot(taskId)).status.state).toBe(state);
      holdOn.resolve();
    });
  });

  describe('continuing a task', () => {
    it('takes a follow-up sent the moment the turn settles at INPUT_REQUIRED (the executor is still returning)', async () => {
      const turn = await send(agentOf((ctx) => ctx.inputRequired('Where to?')), userMessage('book'));
      const { taskId } = await startTask(turn);
      await turn.settled; // no event-loop turn in between
      const next = await send(agentOf((ctx) => ctx.complete('booked')), userMessage('Paris', { taskId }));
      await next.settled;
      expect((await snapshot(taskId)).status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('takes a follow-up sent to another instance while the turn that asked for input is still returning there', async () => {
      // one backend (one set of claims): two instances
      const [a, b] = [1, 2].map(() => new TaskManager({ backend }, { executorTimeoutMs: 5000 }));
      try {
        const turn = await send(
          agentOf(async (ctx) => {
            await ctx.inputRequired('Where to?');
            await sleep(200); // still in execute(), so a still holds the claim
          }),
          userMessage('book'),
          { on: a },
        );
        const { taskId } = await startTask(turn);
        await turn.settled;
        const next = await send(agentOf((ctx) => ctx.complete('booked')), userMessage('Paris', { taskId }), { on: b });
        await next.settled;
        expect((await snapshot(taskId)).status.state).toBe('TASK_STATE_COMPLETED');
      } finally {
        await Promise.all([a.shutdown(), b.shutdown()]);
      }
    });

    it('still refuses a follow-up while an interrupted executor keeps running past the grace period', async () => {
      const gate = deferred();
      const turn = await send(
        agentOf(async (ctx) => {
          await ctx.authRequired('Sign in, please');
          await gate.promise;
        }),
        userMessage('book'),
      );
      const { taskId } = await startTask(turn);
      await turn.settled;
      await expect(send(agentOf((ctx) => ctx.complete()), userMessage('token', { taskId }))).rejects.toBeInstanceOf(UnsupportedOperationError);
      gate.resolve();
    });

    it('continues an INPUT_REQUIRED task: the new turn opens with a task event in SUBMITTED holding the new message', async () => {
      const first = userMessage('book a flight');
      const second = userMessage('Paris');
      const turns: Array<{ task: Task | undefined; contextId: string; taskId: string }> = [];
      const agent = agentOf(async (ctx) => {
        turns.push({ task: ctx.task, contextId: ctx.contextId, taskId: ctx.taskId });
        if (!ctx.task) return ctx.inputRequired('Where to?');
        await ctx.complete(`Booked: ${ctx.text}`);
      });
      const taskId = await inputRequiredTask(agent, first);
      const before = await store.get(scope, taskId);
      const contextId = before!.task.contextId!;

      const turn = await send(agent, { ...second, taskId, contextId });
      const start = await startTask(turn);
      await turn.settled;

      expect(start.taskId).toBe(taskId);
      expect(start.seq).toBe(before!.seq + 1);
      expect(turns[1].taskId).toBe(taskId);
      expect(turns[1].contextId).toBe(contextId);
      expect(turns[1].task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

      const events = backend.eventsOf(taskId);
      const opening = events[start.seq - 1];
      expect('task' in opening).toBe(true);
      const openingTask = (opening as { task: Task }).task;
      expect(openingTask.id).toBe(taskId);
      expect(openingTask.status.state).toBe('TASK_STATE_SUBMITTED');
      expect(openingTask.history?.map((m) => m.messageId)).toEqual([first.messageId, before!.task.history![1].messageId, second.messageId]);
      expect(openingTask.history?.[2]).toEqual({ ...second, taskId, contextId });

      const final = await snapshot(taskId);
      expect(final.status.state).toBe('TASK_STATE_COMPLETED');
      expect(statusText(final)).toBe('Booked: Paris');
      expect(final.history?.map((m) => m.parts[0].text)).toEqual(['book a flight', 'Where to?', 'Paris', 'Booked: Paris']);
      expect(events.map(describeEvent)).toEqual([
        'task:TASK_STATE_SUBMITTED',
        'status:TASK_STATE_INPUT_REQUIRED:Where to?',
        'task:TASK_STATE_SUBMITTED',
        'status:TASK_STATE_COMPLETED:Booked: Paris',
      ]);
    });

    it('infers the contextId from the task when the message has none', async () => {
      let continued: TaskContext | undefined;
      const agent = agentOf(async (ctx) => {
        if (!ctx.task) return ctx.inputRequired('?');
        continued = ctx;
        await ctx.complete();
      });
      const taskId = await inputRequiredTask(agent);
      const contextId = (await snapshot(taskId)).contextId;
      const turn = await send(agent, userMessage('more', { taskId }));
      await turn.settled;
      expect(continued!.contextId).toBe(contextId);
      expect(continued!.message.contextId).toBe(contextId);
    });

    it('refuses an unknown taskId with TaskNotFoundError', async () => {
      const attempt = send(
        agentOf((ctx) => ctx.complete()),
        userMessage('hi', { taskId: 'no-such-task' }),
      );
      await expect(attempt).rejects.toBeInstanceOf(TaskNotFoundError);
      expect(backend.appended).toEqual([]);
    });

    it('refuses the taskId of another scope with TaskNotFoundError', async () => {
      const taskId = await inputRequiredTask();
      for (const other of [
        { ...scope, subject: 'mallory' },
        { ...scope, tenant: 't2' },
        { ...scope, agent: 'other-agent' },
      ]) {
        await expect(send(agentOf((ctx) => ctx.complete()), userMessage('hi', { taskId }), { scope: other })).rejects.toBeInstanceOf(TaskNotFoundError);
      }
      expect((await snapshot(taskId)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    });

    it('refuses a message to a terminal task with UnsupportedOperationError', async () => {
      const taskId = await completedTask();
      const before = await store.get(scope, taskId);
      const execute = jest.fn(async (ctx: TaskContext) => ctx.complete());
      const attempt = send(agentOf(execute), userMessage('again', { taskId }));
      await expect(attempt).rejects.toBeInstanceOf(UnsupportedOperationError);
      await expect(attempt).rejects.toMatchObject({ metadata: { taskId } });
      expect(execute).not.toHaveBeenCalled();
      expect(await store.get(scope, taskId)).toEqual(before);
    });

    it('refuses a contextId that contradicts the task with InvalidParamsError naming message.contextId', async () => {
      const taskId = await inputRequiredTask();
      const attempt = send(agentOf((ctx) => ctx.complete()), userMessage('hi', { taskId, contextId: 'some-other-context' }));
      await expect(attempt).rejects.toBeInstanceOf(InvalidParamsError);
      await expect(attempt).rejects.toMatchObject({ fieldViolations: [expect.objectContaining({ field: 'message.contextId' })] });
      expect((await snapshot(taskId)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    });

    it('refuses a second message while the executor of the first still runs', async () => {
      const release = deferred();
      const returned = deferred();
      const agent = agentOf(async (ctx) => {
        if (ctx.task) return ctx.complete('second turn');
        await ctx.inputRequired('?');
        await waitFor(release, ctx); // still busy after asking
        returned.resolve();
      });
      const turn = await send(agent, userMessage('first'));
      const { taskId } = await startTask(turn);
      await turn.settled;

      const attempt = send(agent, userMessage('too early', { taskId }));
      await expect(attempt).rejects.toBeInstanceOf(UnsupportedOperationError);
      await expect(attempt).rejects.toMatchObject({ metadata: { taskId } });
      expect(backend.eventsOf(taskId)).toHaveLength(2);

      // once the executor has returned, the task takes the message
      release.resolve();
      await returned.promise;
      await drain();
      const next = await send(agent, userMessage('now', { taskId }));
      await next.settled;
      expect(statusText(await snapshot(taskId))).toBe('second turn');
    });
  });

  describe('failures become FAILED with a safe message', () => {
    it.each<[string, unknown]>([
      ['an Error', new Error('db password is hunter2-SECRET')],
      ['a string', 'hunter2-SECRET'],
      ['an object', { detail: 'hunter2-SECRET' }],
    ])('an executor that throws %s', async (_label, thrown) => {
      const turn = await send(
        agentOf(async (ctx) => {
          await ctx.working('thinking');
          throw thrown;
        }),
        userMessage('hi'),
      );
      const { taskId } = await startTask(turn);
      await turn.settled;

      const task = await snapshot(taskId);
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(task)).toBe(SAFE.threw);
      expect(task.status.message?.role).toBe('ROLE_AGENT');
      const events = backend.eventsOf(taskId);
      expect(events.map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_WORKING:thinking', `status:TASK_STATE_FAILED:${SAFE.threw}`]);
      expect(JSON.stringify(events)).not.toContain('hunter2');
      expect(JSON.stringify(task)).not.toContain('hunter2');
      expect(logged.join('\n')).not.toContain('hunter2');
      expect(logged.some((line) => line.startsWith('warn:'))).toBe(true);
    });

    it('an executor that throws before any event still gets a FAILED task', async () => {
      const turn = await send(
        agentOf(() => {
          throw new Error('boom-SECRET');
        }),
        userMessage('hi'),
      );
      const { taskId } = await startTask(turn);
      await turn.settled;
      expect(backend.eventsOf(taskId).map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', `status:TASK_STATE_FAILED:${SAFE.threw}`]);
      expect(JSON.stringify(await snapshot(taskId))).not.toContain('boom-SECRET');
    });

    it('an executor that returns without any event', async () => {
      const turn = await send(
        agentOf(() => undefined),
        userMessage('hi'),
      );
      const start = await startTask(turn);
      await turn.settled;
      expect(start.seq).toBe(1);
      const task = await snapshot(start.taskId);
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(task)).toBe(SAFE.silent);
      expect(backend.eventsOf(start.taskId).map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', `status:TASK_STATE_FAILED:${SAFE.silent}`]);
    });

    it.each<[string, (ctx: TaskContext) => Promise<void>]>([
      ['WORKING', (ctx) => ctx.working('half way')],
      ['SUBMITTED', (ctx) => ctx.submit()],
    ])('an executor that returns leaving the task %s', async (_label, leave) => {
      const turn = await send(agentOf(leave), userMessage('hi'));
      const { taskId } = await startTask(turn);
      await turn.settled;
      const task = await snapshot(taskId);
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(task)).toBe(SAFE.unfinished);
    });

    it('an executor past its deadline is aborted and its task FAILED; its later events are dropped', async () => {
      manager = createManager(40);
      const sawAbort = deferred();
      const returned = deferred();
      let signal: AbortSignal | undefined;
      const startedAt = Date.now();
      const turn = await send(
        agentOf(async (ctx) => {
          signal = ctx.signal;
          await ctx.working('slow');
          await aborted(ctx.signal);
          sawAbort.resolve();
          await ctx.appendText('too late');
          await ctx.complete('too late');
          returned.resolve();
        }),
        userMessage('hi'),
      );
      const { taskId } = await startTask(turn);
      await turn.settled;
      await sawAbort.promise;
      await returned.promise;
      await drain();

      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(35);
      expect(signal!.aborted).toBe(true);
      const task = await snapshot(taskId);
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(task)).toBe(SAFE.timeout);
      expect(task.artifacts).toBeUndefined();
      expect(backend.eventsOf(taskId).map(describeEvent)).toEqual([
        'task:TASK_STATE_SUBMITTED',
        'status:TASK_STATE_WORKING:slow',
        `status:TASK_STATE_FAILED:${SAFE.timeout}`,
      ]);
    });

    it('an executor that finishes in time is not aborted by the deadline', async () => {
      manager = createManager(30);
      let signal: AbortSignal | undefined;
      const turn = await send(
        agentOf(async (ctx) => {
          signal = ctx.signal;
          await ctx.complete('quick');
        }),
        userMessage('hi'),
      );
      const { taskId } = await startTask(turn);
      await turn.settled;
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(signal!.aborted).toBe(false);
      expect((await snapshot(taskId)).status.state).toBe('TASK_STATE_COMPLETED');
      expect(backend.eventsOf(taskId)).toHaveLength(2);
    });
  });

  describe('cancel', () => {
    it('aborts a running executor, writes CANCELED and drops the events the executor sends afterwards', async () => {
      const returned = deferred();
      let signal: AbortSignal | undefined;
      let abortReason: unknown;
      const turn = await send(
        agentOf(async (ctx) => {
          signal = ctx.signal;
          await ctx.working('busy');
          await aborted(ctx.signal);
          abortReason = ctx.signal.reason;
          // an executor that ignores the abort: nothing of this may reach the task
          await ctx.appendText('late chunk');
          await ctx.working('still going');
          await ctx.complete('late result');
          returned.resolve();
        }),
        userMessage('long job'),
      );
      const { taskId } = await startTask(turn);
      await drain();
      expect((await snapshot(taskId)).status.state).toBe('TASK_STATE_WORKING');

      const canceled = await manager.cancel(scope, taskId);
      expect(canceled.id).toBe(taskId);
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      expect(signal!.aborted).toBe(true);
      expect(abortReason).toBeDefined();
      expect(await isSettled(turn.settled)).toBe(true);

      await returned.promise;
      await drain();
      const task = await snapshot(taskId);
      expect(task.status.state).toBe('TASK_STATE_CANCELED');
      expect(task.artifacts).toBeUndefined();
      expect(backend.eventsOf(taskId).map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_WORKING:busy', 'status:TASK_STATE_CANCELED']);
      expect(canceled).toEqual(task);
    });

    it('a repeated cancel answers the CANCELED task, while the executor runs and after it returned', async () => {
      const returned = deferred();
      const release = deferred();
      const turn = await send(
        agentOf(async (ctx) => {
          await ctx.working();
          await aborted(ctx.signal);
          await release.promise;
          returned.resolve();
        }),
        userMessage('x'),
      );
      const { taskId } = await startTask(turn);
      const first = await manager.cancel(scope, taskId);
      const whileRunning = await manager.cancel(scope, taskId);
      release.resolve();
      await returned.promise;
      await drain();
      const afterwards = await manager.cancel(scope, taskId);

      for (const task of [first, whileRunning, afterwards]) expect(task.status.state).toBe('TASK_STATE_CANCELED');
      expect(afterwards).toEqual(first);
      expect(backend.eventsOf(taskId).filter((e) => stateOf(e) === 'TASK_STATE_CANCELED')).toHaveLength(1);
    });

    it.each<[string, (ctx: TaskContext) => Promise<void>]>([
      ['COMPLETED', (ctx) => ctx.complete()],
      ['FAILED', (ctx) => ctx.fail('nope')],
      ['REJECTED', (ctx) => ctx.reject('no')],
    ])('refuses to cancel a %s task with TaskNotCancelableError', async (state, end) => {
      const turn = await send(agentOf(end), userMessage('x'));
      const { taskId } = await startTask(turn);
      await turn.settled;
      await drain();
      const before = await store.get(scope, taskId);
      const attempt = manager.cancel(scope, taskId);
      await expect(attempt).rejects.toBeInstanceOf(TaskNotCancelableError);
      await expect(attempt).rejects.toMatchObject({ metadata: { taskId } });
      expect(await store.get(scope, taskId)).toEqual(before);
      expect(before?.task.status.state).toBe(`TASK_STATE_${state}`);
    });

    it('cancels an idle INPUT_REQUIRED task', async () => {
      const taskId = await inputRequiredTask();
      const before = await store.get(scope, taskId);
      const canceled = await manager.cancel(scope, taskId);
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      const after = await store.get(scope, taskId);
      expect(after?.task).toEqual(canceled);
      expect(after?.version).toBe(before!.version + 1);
      expect(after?.seq).toBe(before!.seq + 1);
      expect(canceled.history).toEqual(before!.task.history);
      expect(backend.eventsOf(taskId).map(describeEvent)).toEqual([
        'task:TASK_STATE_SUBMITTED',
        'status:TASK_STATE_INPUT_REQUIRED:Where to?',
        'status:TASK_STATE_CANCELED',
      ]);
      // a canceled task is terminal: it takes no more messages
      await expect(send(agentOf((ctx) => ctx.complete()), userMessage('Paris', { taskId }))).rejects.toBeInstanceOf(UnsupportedOperationError);
    });

    it('refuses a cancel from another scope with TaskNotFoundError and leaves the task running', async () => {
      let signal: AbortSignal | undefined;
      const turn = await send(
        agentOf(async (ctx) => {
          signal = ctx.signal;
          await ctx.working();
          await aborted(ctx.signal);
        }),
        userMessage('x'),
      );
      const { taskId } = await startTask(turn);
      await drain();
      for (const other of [
        { ...scope, subject: 'mallory' },
        { ...scope, tenant: 'other-tenant' },
        { ...scope, agent: 'other-agent' },
      ]) {
        await expect(manager.cancel(other, taskId)).rejects.toBeInstanceOf(TaskNotFoundError);
      }
      expect(signal!.aborted).toBe(false);
      expect((await snapshot(taskId)).status.state).toBe('TASK_STATE_WORKING');

      // nor can another scope cancel an idle task
      const idle = await inputRequiredTask();
      await expect(manager.cancel({ ...scope, subject: 'mallory' }, idle)).rejects.toBeInstanceOf(TaskNotFoundError);
      expect((await snapshot(idle)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    });

    it('refuses to cancel an unknown task with TaskNotFoundError', async () => {
      await expect(manager.cancel(scope, 'no-such-task')).rejects.toBeInstanceOf(TaskNotFoundError);
    });
  });

  describe('the log', () => {
    it('holds the events in the order of the awaited ctx calls', async () => {
      const turn = await send(
        agentOf(async (ctx) => {
          await ctx.submit('queued');
          await ctx.working('w1');
          await ctx.addArtifact({ artifactId: 'whole', parts: [{ text: 'A' }] });
          await ctx.appendText('s1');
          await ctx.working('w2');
          await ctx.appendText('s2');
          await ctx.addArtifact({ artifactId: 'whole', parts: [{ text: 'B' }] });
          await ctx.complete('bye');
        }),
        userMessage('hi'),
      );
      const { taskId } = await startTask(turn);
      await turn.settled;
      const events = backend.eventsOf(taskId);
      expect(events.map(describeEvent)).toEqual([
        'task:TASK_STATE_SUBMITTED',
        'status:TASK_STATE_WORKING:w1',
        'artifact:A',
        'artifact:s1',
        'status:TASK_STATE_WORKING:w2',
        'artifact:s2',
        'artifact:B',
        'artifact:',
        'status:TASK_STATE_COMPLETED:bye',
      ]);
      // submit(message) opens the task with that status message
      const opening = (events[0] as { task: Task }).task;
      expect(statusText(opening)).toBe('queued');
      expect(opening.history?.map((m) => m.role)).toEqual(['ROLE_USER', 'ROLE_AGENT']);

      // followers read the same log
      const controller = new AbortController();
      const deadline = setTimeout(() => controller.abort(), 2000);
      const followed: LoggedEvent[] = [];
      for await (const entry of manager.follow(taskId, 0, () => controller.signal)) {
        followed.push(entry);
        if (followed.length === events.length) break;
      }
      clearTimeout(deadline);
      controller.abort();
      expect(followed.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(followed.map((e) => e.event)).toEqual(events);

      const task = await snapshot(taskId);
      expect(task.artifacts?.map((a) => [a.artifactId, a.parts.map((p) => p.text)])).toEqual([
        ['whole', ['B']],
        [expect.any(String), ['s1', 's2']],
      ]);
      expect(task.history?.map((m) => m.parts[0].text)).toEqual(['hi', 'queued', 'w1', 'w2', 'bye']);
    });

    it('keeps the call order of ctx calls made without awaiting each one', async () => {
      const turn = await send(
        agentOf(async (ctx) => {
          void ctx.working('1');
          void ctx.appendText('a');
          void ctx.working('2');
          void ctx.appendText('b');
          await ctx.complete('3');
        }),
        userMessage('hi'),
      );
      const { taskId } = await startTask(turn);
      await turn.settled;
      expect(backend.eventsOf(taskId).map(describeEvent)).toEqual([
        'task:TASK_STATE_SUBMITTED',
        'status:TASK_STATE_WORKING:1',
        'artifact:a',
        'status:TASK_STATE_WORKING:2',
        'artifact:b',
        'artifact:',
        'status:TASK_STATE_COMPLETED:3',
      ]);
    });

    it('refuses reply() once the turn has a task', async () => {
      let refusal: unknown;
      const turn = await send(
        agentOf(async (ctx) => {
          await ctx.working();
          await ctx.reply('too late for a message').catch((error: unknown) => (refusal = error));
          await ctx.complete();
        }),
        userMessage('hi'),
      );
      const { taskId } = await startTask(turn);
      await turn.settled;
      expect(refusal).toBeInstanceOf(Error);
      expect(backend.eventsOf(taskId).map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_WORKING', 'status:TASK_STATE_COMPLETED']);
    });

    it('refuses every state helper once the turn answered with a Message, and stores no task', async () => {
      const refusals: unknown[] = [];
      const turn = await send(
        agentOf(async (ctx) => {
          await ctx.reply('a plain answer');
          for (const helper of [() => ctx.submit(), () => ctx.working(), () => ctx.appendText('x'), () => ctx.complete()]) {
            await helper().catch((error: unknown) => refusals.push(error));
          }
        }),
        userMessage('hi'),
      );
      expect('message' in (await turn.started)).toBe(true);
      await turn.settled;
      await drain();
      expect(refusals).toHaveLength(4);
      for (const refusal of refusals) expect(refusal).toBeInstanceOf(Error);
      expect(backend.appended).toEqual([]);
    });
  });

  describe('streamed artifacts', () => {
    function artifactUpdates(taskId: string): TaskArtifactUpdateEvent[] {
      return backend.eventsOf(taskId).flatMap((e) => ('artifactUpdate' in e ? [e.artifactUpdate] : []));
    }

    it('appendText creates the artifact, then appends; complete() closes it with lastChunk', async () => {
      const turn = await send(
        agentOf(async (ctx) => {
          await ctx.appendText('Hel');
          await ctx.appendText('lo');
          await ctx.complete();
        }),
        userMessage('hi'),
      );
      const { taskId } = await startTask(turn);
      await turn.settled;

      const updates = artifactUpdates(taskId);
      expect(updates.map((u) => [u.append ?? false, u.lastChunk ?? false, u.artifact.parts])).toEqual([
        [false, false, [{ text: 'Hel' }]],
        [true, false, [{ text: 'lo' }]],
        [true, true, [{ text: '' }]],
      ]);
      const artifactId = updates[0].artifact.artifactId;
      expect(artifactId).toMatch(UUID);
      expect(updates.every((u) => u.artifact.artifactId === artifactId && u.taskId === taskId)).toBe(true);
      expect(stateOf(backend.eventsOf(taskId).at(-1)!)).toBe('TASK_STATE_COMPLETED');

      const task = await snapshot(taskId);
      expect(task.artifacts).toHaveLength(1);
      expect(task.artifacts?.[0].parts).toEqual([{ text: 'Hel' }, { text: 'lo' }]);
    });

    it('an artifact closed with lastChunk is not closed again by complete(); several artifacts stream side by side', async () => {
      const turn = await send(
        agentOf(async (ctx) => {
          await ctx.appendText('a1', { artifactId: 'a', name: 'first' });
          await ctx.appendText('b1', { artifactId: 'b' });
          await ctx.appendText('a2', { artifactId: 'a', lastChunk: true });
          await ctx.appendText('b2', { artifactId: 'b' });
          await ctx.complete();
        }),
        userMessage('hi'),
      );
      const { taskId } = await startTask(turn);
      await turn.settled;
      expect(artifactUpdates(taskId).map((u) => [u.artifact.artifactId, u.append ?? false, u.lastChunk ?? false, u.artifact.parts[0].text])).toEqual([
        ['a', false, false, 'a1'],
        ['b', false, false, 'b1'],
        ['a', true, true, 'a2'],
        ['b', true, false, 'b2'],
        ['b', true, true, ''],
      ]);
      const task = await snapshot(taskId);
      expect(task.artifacts?.map((a) => [a.artifactId, a.name, a.parts.map((p) => p.text)])).toEqual([
        ['a', 'first', ['a1', 'a2']],
        ['b', undefined, ['b1', 'b2']],
      ]);
    });
  });

  describe('runTool', () => {
    it('reports each tool run as a WORKING step and hands the tool the signal and the caller', async () => {
      const invocations: Array<{ args: { q: string }; invocation: ToolInvocation }> = [];
      const tool: AgentTool<{ q: string }, string> = {
        name: 'search',
        description: 'searches',
        inputSchema: { type: 'object' },
        invoke: async (args, invocation) => {
          invocations.push({ args, invocation });
          return `result of ${args.q}`;
        },
      };
      let signal: AbortSignal | undefined;
      const results: string[] = [];
      const turn = await send(
        agentOf(async (ctx) => {
          signal = ctx.signal;
          results.push(await ctx.runTool(tool, { q: 'one' }));
          results.push(await ctx.runTool(tool, { q: 'two' }));
          await ctx.complete(results.join(', '));
        }),
        userMessage('hi'),
      );
      const { taskId } = await startTask(turn);
      await turn.settled;

      expect(results).toEqual(['result of one', 'result of two']);
      expect(invocations.map((i) => i.args)).toEqual([{ q: 'one' }, { q: 'two' }]);
      for (const { invocation } of invocations) {
        expect(invocation.signal).toBe(signal);
        expect(invocation.caller).toBe(caller);
      }
      expect(backend.eventsOf(taskId).map(describeEvent)).toEqual([
        'task:TASK_STATE_SUBMITTED',
        'status:TASK_STATE_WORKING:step 1',
        'status:TASK_STATE_WORKING:step 2',
        'status:TASK_STATE_COMPLETED:result of one, result of two',
      ]);
      // the step text says nothing about the tool or its arguments
      expect(JSON.stringify(backend.eventsOf(taskId).slice(1, 3))).not.toMatch(/search|one|two/);
    });

    it('the step is in the log before the tool runs', async () => {
      let stateWhenInvoked: TaskState | undefined;
      let taskIdSeen = '';
      const tool: AgentTool<void, void> = {
        name: 't',
        description: 't',
        inputSchema: {},
        invoke: async () => {
          stateWhenInvoked = (await store.get(scope, taskIdSeen))?.task.status.state;
        },
      };
      const turn = await send(
        agentOf(async (ctx) => {
          taskIdSeen = ctx.taskId;
          await ctx.runTool(tool, undefined);
          await ctx.complete();
        }),
        userMessage('hi'),
      );
      await turn.settled;
      expect(stateWhenInvoked).toBe('TASK_STATE_WORKING');
    });
  });

  describe('shutdown', () => {
    it('aborts running executors and fails their tasks', async () => {
      const signals: AbortSignal[] = [];
      const agent = agentOf(async (ctx) => {
        signals.push(ctx.signal);
        await ctx.working('busy');
        await aborted(ctx.signal);
      });
      const turns = [await send(agent, userMessage('a')), await send(agent, userMessage('b'))];
      const taskIds = await Promise.all(turns.map(async (t) => (await startTask(t)).taskId));
      const done = await completedTask();
      await drain();

      await manager.shutdown();
      for (const turn of turns) expect(await isSettled(turn.settled)).toBe(true);
      expect(signals.map((s) => s.aborted)).toEqual([true, true]);
      for (const taskId of taskIds) {
        const task = await snapshot(taskId);
        expect(task.status.state).toBe('TASK_STATE_FAILED');
        expect(statusText(task)).toBe(SAFE.shutdown);
      }
      // a finished task is left alone
      expect((await snapshot(done)).status.state).toBe('TASK_STATE_COMPLETED');
    });
  });
});
