/**
 * What an agent author writes every day, through the real engine on the in-memory backend:
 * conversations (contextId minted, bounded, scoped by caller), tool steps that show nothing of the
 * tool, failures that say what happened, and the helpers that keep executors short.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { InvalidParamsError } from '../../protocol/errors.js';
import type { Message, StreamResponse, Task } from '../../protocol/types.js';
import { rejectionOf } from '../../testing/thrown.js';
import type { A2ACaller, AgentTool } from '../agent-executor.js';
import type { Conversation } from '../conversation.js';
import { InMemoryTaskBackend } from '../in-memory/in-memory-task-backend.js';
import { dataPart, filePart, textPart } from '../parts.js';
import type { TaskContext } from '../task-context.js';
import type { TaskScope } from '../task-store.js';
import { ToolCallEvents, type ToolCallEvent } from '../tool-call-events.js';
import { TaskManager } from './task-manager.js';
import type { RunnableAgent, Turn } from './turn.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const alice: A2ACaller<{ plan: string }> = { subject: 'alice', user: { plan: 'gold' } };
const bob: A2ACaller = { subject: 'bob' };
const scopeOf = (caller: A2ACaller): TaskScope => ({ agent: 'author', tenant: '', subject: caller.subject });

function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: `u-${randomUUID()}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

function agentOf(execute: (ctx: TaskContext) => Promise<void> | void): RunnableAgent {
  return { name: 'author', executor: { execute } };
}

/** A tool whose name, arguments and result are marked, so that the wire can be searched for them. */
function markedTool(name: string, fail?: Error): AgentTool<{ query: string }, string> {
  return {
    name,
    description: `the ${name} tool`,
    inputSchema: { type: 'object' },
    invoke: async ({ query }) => {
      if (fail) throw fail;
      return `RESULT-of-${name}-for-${query}`;
    },
  };
}

describe('agent authoring', () => {
  let backend: InMemoryTaskBackend;
  let manager: TaskManager;
  let toolEvents: ToolCallEvents;
  let logged: string[];

  function createManager(options: { executorTimeoutMs?: number; maxContextIdLength?: number } = {}): TaskManager {
    const record = (level: string) => (...args: unknown[]) => void logged.push(`${level}: ${args.join(' ')}`);
    const logger = { log: record('log'), warn: record('warn'), error: record('error'), debug: record('debug'), verbose: record('verbose'), fatal: record('fatal') };
    return new TaskManager({ backend, logger, toolEvents }, { executorTimeoutMs: options.executorTimeoutMs ?? 5000, maxContextIdLength: options.maxContextIdLength });
  }

  beforeEach(() => {
    backend = new InMemoryTaskBackend();
    toolEvents = new ToolCallEvents();
    logged = [];
    manager = createManager();
  });

  afterEach(async () => {
    await manager.shutdown();
    await backend.close();
  });

  function send(agent: RunnableAgent, message: Message, caller: A2ACaller = alice, on = manager): Promise<Turn> {
    return on.send({ agent, scope: scopeOf(caller), request: { message }, caller, extensions: ['urn:x-ext:a'] });
  }

  /** Runs a turn to its end; answers the stored task and its whole log. */
  async function run(agent: RunnableAgent, message: Message, caller: A2ACaller = alice): Promise<{ task: Task; log: StreamResponse[] }> {
    const turn = await send(agent, message, caller);
    const start = await turn.started;
    if (!('taskId' in start)) throw new Error('expected a task');
    await turn.settled;
    const log: StreamResponse[] = [];
    for await (const { event } of backend.log.follow(start.taskId, 0, AbortSignal.timeout(200))) log.push(event);
    return { task: (await backend.store.get(scopeOf(caller), start.taskId))!.task, log };
  }

  describe('conversations: the contextId', () => {
    it.each([
      ['none', undefined],
      ['an empty one', ''],
    ])('a message carrying %s gets one minted, on the task, on every event and in the executor', async (_label, contextId) => {
      let seen: string | undefined;
      const { task, log } = await run(
        agentOf(async (ctx) => {
          seen = ctx.contextId;
          await ctx.working();
          await ctx.addArtifact({ parts: [textPart('x')] });
          await ctx.complete();
        }),
        userMessage('hi', { contextId }),
      );
      expect(task.contextId).toMatch(UUID);
      expect(seen).toBe(task.contextId);
      expect(task.history?.[0].contextId).toBe(task.contextId);
      const contexts = log.map((e) => ('task' in e ? e.task.contextId : 'statusUpdate' in e ? e.statusUpdate.contextId : 'artifactUpdate' in e ? e.artifactUpdate.contextId : undefined));
      expect(contexts).toEqual(log.map(() => task.contextId));
    });

    it('a contextId the client gives is kept', async () => {
      const { task } = await run(agentOf((ctx) => ctx.complete()), userMessage('hi', { contextId: 'my-thread' }));
      expect(task.contextId).toBe('my-thread');
    });

    it.each([
      ['longer than the bound', 'c'.repeat(129)],
      ['not a string', 42],
    ])('a contextId %s is InvalidParams naming the field and the bound, never the value', async (_label, contextId) => {
      const error = await rejectionOf(send(agentOf((ctx) => ctx.complete()), userMessage('hi', { contextId: contextId as string })));
      expect(error).toBeInstanceOf(InvalidParamsError);
      expect((error as InvalidParamsError).fieldViolations).toEqual([
        { field: 'message.contextId', description: 'must be a string of at most 128 characters (limits.maxContextIdLength)' },
      ]);
      expect((error as Error).message).not.toContain('ccc');
      expect((error as Error).message).not.toContain('42');
    });

    it('a continuation carrying contextId "" continues its task in the task\'s own context', async () => {
      const asked = await run(agentOf((ctx) => ctx.inputRequired('Which one?')), userMessage('book', { contextId: 'trip' }));
      const { task } = await run(agentOf((ctx) => ctx.complete()), userMessage('the blue one', { taskId: asked.task.id, contextId: '' }));
      expect(task).toMatchObject({ id: asked.task.id, contextId: 'trip', status: { state: 'TASK_STATE_COMPLETED' } });
    });

    it('the bound is configurable', async () => {
      const strict = createManager({ maxContextIdLength: 8 });
      await expect(send(agentOf((ctx) => ctx.complete()), userMessage('hi', { contextId: 'nine-char' }), alice, strict)).rejects.toThrow('at most 8 characters');
      const turn = await send(agentOf((ctx) => ctx.complete()), userMessage('hi', { contextId: 'eight-ch' }), alice, strict);
      await turn.settled;
      await strict.shutdown();
    });
  });

  describe('conversations: ctx.conversation()', () => {
    /** An executor that answers with what its conversation held, as `turn N; first: <text>`. */
    const chat = (seen: Conversation[]) =>
      agentOf(async (ctx) => {
        const conversation = await ctx.conversation();
        seen.push(conversation);
        const first = conversation.turns[0]?.messages[0]?.parts[0]?.text ?? ctx.text;
        await ctx.addArtifact({ parts: [textPart(`turn ${conversation.omitted + conversation.turns.length + 1}; first: ${first}`)] });
        await ctx.complete();
      });

    it('reads the earlier turns of its context, newest last, across three turns', async () => {
      const seen: Conversation[] = [];
      const one = await run(chat(seen), userMessage('first words'));
      const contextId = one.task.contextId;
      const two = await run(chat(seen), userMessage('second', { contextId }));
      const three = await run(chat(seen), userMessage('third', { contextId }));
      expect([one, two, three].map(({ task }) => task.artifacts?.[0].parts[0].text)).toEqual([
        'turn 1; first: first words',
        'turn 2; first: first words',
        'turn 3; first: first words',
      ]);
      expect(seen[2].turns.map((t) => t.taskId)).toEqual([one.task.id, two.task.id]);
      expect(seen[2].turns[1]).toMatchObject({ state: 'TASK_STATE_COMPLETED', artifacts: [{ parts: [{ text: 'turn 2; first: first words' }] }] });
      expect(seen[2].turns[1].messages.map((m) => m.role)).toEqual(['ROLE_USER']);
    });

    it('is bounded: the newest turns, and how many were left out', async () => {
      let contextId: string | undefined;
      for (let i = 1; i <= 4; i++) contextId = (await run(agentOf((ctx) => ctx.complete()), userMessage(`m${i}`, { contextId }))).task.contextId;
      let conversation: Conversation | undefined;
      await run(
        agentOf(async (ctx) => {
          conversation = await ctx.conversation({ maxTurns: 2 });
          await ctx.complete();
        }),
        userMessage('m5', { contextId }),
      );
      expect(conversation!.omitted).toBe(2);
      expect(conversation!.turns.map((t) => t.messages[0].parts[0].text)).toEqual(['m3', 'm4']);
      // a bound that is no number is the default one
      let fallback: Conversation | undefined;
      await run(
        agentOf(async (ctx) => {
          fallback = await ctx.conversation({ maxTurns: Number.NaN });
          await ctx.complete();
        }),
        userMessage('m6', { contextId }),
      );
      expect(fallback!.turns).toHaveLength(5);
    });

    it("another caller presenting the same contextId sees nothing of the first caller's thread", async () => {
      const seen: Conversation[] = [];
      const first = await run(chat(seen), userMessage('alice private words'));
      const { task } = await run(chat(seen), userMessage('bob', { contextId: first.task.contextId }), bob);
      expect(seen[1]).toEqual({ turns: [], omitted: 0 });
      expect(task.artifacts?.[0].parts[0].text).toBe('turn 1; first: bob');
      expect(JSON.stringify(task)).not.toContain('alice private words');
    });

    it('a continuation sees the other tasks, then its own task as it stood before the message', async () => {
      const earlier = await run(agentOf((ctx) => ctx.complete()), userMessage('earlier'));
      const contextId = earlier.task.contextId;
      const asking = await run(agentOf((ctx) => ctx.inputRequired('Which one?')), userMessage('book', { contextId }));
      let conversation: Conversation | undefined;
      await run(
        agentOf(async (ctx) => {
          conversation = await ctx.conversation();
          await ctx.complete();
        }),
        userMessage('the blue one', { contextId, taskId: asking.task.id }),
      );
      expect(conversation!.turns.map((t) => t.taskId)).toEqual([earlier.task.id, asking.task.id]);
      expect(conversation!.turns[1].messages.map((m) => m.parts[0].text)).toEqual(['book', 'Which one?']);
      expect(conversation!.omitted).toBe(0);
    });
  });

  describe('tool steps', () => {
    it('show only `step i/n` in the log and the history, while observers hear the tool, caller, duration and outcome', async () => {
      const heard: ToolCallEvent[] = [];
      toolEvents.on((event) => heard.push(event));
      const tools = ['alpha-search', 'beta-facts', 'gamma-quotes'].map((name) => markedTool(name));
      const { task, log } = await run(
        agentOf(async (ctx) => {
          ctx.expectSteps(3);
          const results = [];
          for (const tool of tools) results.push(await ctx.runTool(tool, { query: 'ARG-secret-query' }));
          await ctx.complete(`I read ${results.length} sources.`);
        }),
        userMessage('research this'),
      );
      const bytes = JSON.stringify({ task, log });
      for (const leak of ['alpha', 'beta', 'gamma', 'ARG-secret', 'RESULT-of', 'tool']) expect(bytes).not.toContain(leak);
      expect(task.history?.map((m) => m.parts[0].text)).toEqual(['research this', 'step 1/3', 'step 2/3', 'step 3/3', 'I read 3 sources.']);
      expect(heard.map((e) => `${e.phase}:${e.tool}:${e.step}/${e.steps}:${e.outcome ?? ''}`)).toEqual([
        'started:alpha-search:1/3:',
        'finished:alpha-search:1/3:succeeded',
        'started:beta-facts:2/3:',
        'finished:beta-facts:2/3:succeeded',
        'started:gamma-quotes:3/3:',
        'finished:gamma-quotes:3/3:succeeded',
      ]);
      expect(heard[1]).toMatchObject({ agent: 'author', taskId: task.id, contextId: task.contextId, caller: alice, durationMs: expect.any(Number) });
    });

    it('without a total, a step is `step i`; a listener that throws changes nothing', async () => {
      toolEvents.on(() => {
        throw new Error('listener bug');
      });
      const { task } = await run(
        agentOf(async (ctx) => {
          await ctx.runTool(markedTool('one'), { query: 'q' });
          await ctx.complete();
        }),
        userMessage('go'),
      );
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.history?.map((m) => m.parts[0].text)).toEqual(['go', 'step 1']);
    });
  });

  describe('failures say what happened', () => {
    /** The failed task's status: its text and the metadata's error. */
    async function failureOf(execute: (ctx: TaskContext) => Promise<void>, on?: () => Promise<void>) {
      const turn = await send(agentOf(execute), userMessage('go'));
      const start = await turn.started;
      if (on) await on();
      await turn.settled;
      const task = (await backend.store.get(scopeOf(alice), (start as { taskId: string }).taskId))!.task;
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      return { text: task.status.message?.parts[0].text, error: task.status.message?.metadata?.error, bytes: JSON.stringify(task) };
    }

    it('an exception without a code: INTERNAL, a safe text, nothing of the exception', async () => {
      const failure = await failureOf(async (ctx) => {
        await ctx.working();
        throw new Error('connect to postgres://admin:hunter2@db failed');
      });
      expect(failure).toMatchObject({ text: 'The agent encountered an internal error.', error: { code: 'INTERNAL' } });
      expect(failure.bytes).not.toMatch(/hunter2|postgres|Error|at /);
      expect(logged.join('\n')).not.toContain('hunter2');
      expect(logged.join('\n')).toContain('INTERNAL');
    });

    it("an exception that declares a code: that code, and still none of the exception's message", async () => {
      const failure = await failureOf(async (ctx) => {
        await ctx.working();
        throw Object.assign(new Error('quota of key sk-123 used up'), { code: 'QUOTA_EXCEEDED' });
      });
      expect(failure).toMatchObject({ text: 'The agent stopped on an error (QUOTA_EXCEEDED).', error: { code: 'QUOTA_EXCEEDED' } });
      expect(failure.bytes).not.toContain('sk-123');
    });

    it('a code that is not a plain identifier is not quoted: INTERNAL', async () => {
      const failure = await failureOf(async () => {
        throw Object.assign(new Error('x'), { code: 'see https://internal.example/secret' });
      });
      expect(failure.error).toEqual({ code: 'INTERNAL' });
      expect(failure.bytes).not.toContain('internal.example');
    });

    it('a tool failure the executor did not catch says which step failed, not which tool or peer', async () => {
      const peerError = Object.assign(new Error('peer research at https://research.internal:8443 refused'), { code: 'TOOL_UNAVAILABLE' });
      const failure = await failureOf(async (ctx) => {
        ctx.expectSteps(3);
        await ctx.runTool(markedTool('research-one'), { query: 'a' });
        await ctx.runTool(markedTool('research-two', peerError), { query: 'b' });
      });
      expect(failure).toMatchObject({ text: 'Step 2 of 3 failed (TOOL_UNAVAILABLE).', error: { code: 'TOOL_UNAVAILABLE', step: 2, steps: 3 } });
      expect(failure.bytes).not.toMatch(/research|internal|8443/);
    });

    it('a tool failure the executor caught and replaced is not blamed on the step', async () => {
      const failure = await failureOf(async (ctx) => {
        try {
          await ctx.runTool(markedTool('flaky', new Error('down')), { query: 'a' });
        } catch {
          throw new Error('gave up');
        }
      });
      expect(failure).toMatchObject({ text: 'The agent encountered an internal error.', error: { code: 'INTERNAL' } });
    });

    it('a deadline says so: DEADLINE_EXCEEDED', async () => {
      await manager.shutdown();
      manager = createManager({ executorTimeoutMs: 50 });
      const failure = await failureOf(async (ctx) => {
        await ctx.working();
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      });
      expect(failure).toMatchObject({ text: 'The agent did not finish in time.', error: { code: 'DEADLINE_EXCEEDED' } });
    });

    it('a server shutting down says so: SHUTTING_DOWN', async () => {
      const failure = await failureOf(
        async (ctx) => {
          await ctx.working();
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        },
        () => manager.shutdown(),
      );
      expect(failure).toMatchObject({ text: 'The agent was stopped because the server is shutting down.', error: { code: 'SHUTTING_DOWN' } });
    });

    it('an executor that ends without an answer, or leaves the task working, says which', async () => {
      expect((await failureOf(async () => undefined)).error).toEqual({ code: 'NO_RESPONSE' });
      expect((await failureOf((ctx) => ctx.working())).error).toEqual({ code: 'UNFINISHED' });
    });

    it('a cancellation ends CANCELED, not FAILED', async () => {
      const turn = await send(
        agentOf(async (ctx) => {
          await ctx.working();
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
          throw new Error('aborted');
        }),
        userMessage('go'),
      );
      const start = (await turn.started) as { taskId: string };
      await turn.flushed();
      const canceled = await manager.cancel(scopeOf(alice), start.taskId);
      await turn.settled;
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      expect((await backend.store.get(scopeOf(alice), start.taskId))!.task.status.state).toBe('TASK_STATE_CANCELED');
    });
  });

  describe('helpers', () => {
    it('streamText, addData and parts from plain values; typed caller and active extensions', async () => {
      let plan: string | undefined;
      let active: boolean[] = [];
      async function* tokens() {
        yield 'Hello, ';
        yield 'world';
      }
      const { task, log } = await run(
        { name: 'author', executor: { execute: async (ctx: TaskContext<{ plan: string }>) => {
          plan = ctx.caller.user?.plan;
          active = [ctx.hasExtension('urn:x-ext:a'), ctx.hasExtension('urn:x-ext:b')];
          await ctx.streamText(tokens(), { name: 'greeting' });
          await ctx.addData({ score: 0.9, tags: ['a'] }, { name: 'result' });
          await ctx.addArtifact({ parts: [filePart({ bytes: 'file body', filename: 'a.txt', mediaType: 'text/plain' }), filePart({ url: 'https://example.com/b.pdf' })] });
          await ctx.complete();
        } } },
        userMessage('go'),
      );
      expect(plan).toBe('gold');
      expect(active).toEqual([true, false]);
      expect(task.artifacts?.map((a) => [a.name, a.parts])).toEqual([
        ['greeting', [{ text: 'Hello, ' }, { text: 'world' }]],
        ['result', [{ data: { score: 0.9, tags: ['a'] }, mediaType: 'application/json' }]],
        [undefined, [{ raw: Buffer.from('file body').toString('base64'), filename: 'a.txt', mediaType: 'text/plain' }, { url: 'https://example.com/b.pdf' }]],
      ]);
      const chunks = log.filter((e) => 'artifactUpdate' in e && e.artifactUpdate.artifact.name === 'greeting');
      expect(chunks.map((e) => ('artifactUpdate' in e ? [e.artifactUpdate.append, e.artifactUpdate.lastChunk] : []))).toEqual([
        [undefined, undefined],
        [true, undefined],
        [true, true],
      ]);
      expect(dataPart([1, 2], 'application/vnd.x+json')).toEqual({ data: [1, 2], mediaType: 'application/vnd.x+json' });
      expect(textPart('hi', 'text/markdown')).toEqual({ text: 'hi', mediaType: 'text/markdown' });
    });

    it('reply(text) answers with a Message in the conversation, storing no task', async () => {
      const turn = await send(agentOf((ctx) => ctx.reply('plain answer')), userMessage('hi', { contextId: 'thread-1' }));
      const start = await turn.started;
      expect(start).toEqual({ message: expect.objectContaining({ role: 'ROLE_AGENT', contextId: 'thread-1', parts: [{ text: 'plain answer' }] }) });
      expect((await backend.store.list(scopeOf(alice), { contextId: 'thread-1', pageSize: 10 })).totalSize).toBe(0);
    });
  });
});
