/** TaskManager at shutdown: no new turn, a grace period for the running ones, then FAILED. */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { UnavailableError } from '../../protocol/errors.js';
import type { Message } from '../../protocol/types.js';
import { InMemoryTaskBackend } from '../in-memory/in-memory-task-backend.js';
import type { TaskContext } from '../task-context.js';
import type { TaskScope } from '../task-store.js';
import { TaskManager } from './task-manager.js';
import type { RunnableAgent } from './turn.js';

const scope: TaskScope = { agent: 'a', tenant: '', subject: 'alice' };
const SHUTDOWN_TEXT = 'The agent was stopped because the server is shutting down.';

const message = (text: string): Message => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

/** Works for `ms` (or until aborted), then completes. */
const slowAgent = (ms: number): RunnableAgent => ({
  name: 'a',
  executor: {
    async execute(ctx: TaskContext) {
      await ctx.working();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        ctx.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      if (!ctx.signal.aborted) await ctx.complete('done');
    },
  },
});

async function start(manager: TaskManager, agent: RunnableAgent): Promise<string> {
  const turn = await manager.send({ agent, scope, request: { message: message('go') }, caller: { subject: 'alice' }, extensions: [] });
  const started = await turn.started;
  if (!('taskId' in started)) throw new Error('no task');
  return started.taskId;
}

describe('TaskManager.shutdown', () => {
  it('lets a turn that ends within the grace period finish, and refuses new messages meanwhile', async () => {
    const backend = new InMemoryTaskBackend();
    const manager = new TaskManager({ backend }, { executorTimeoutMs: 60_000 });
    const taskId = await start(manager, slowAgent(200));
    const stopping = manager.shutdown(5_000);
    await expect(start(manager, slowAgent(0))).rejects.toBeInstanceOf(UnavailableError);
    const t0 = Date.now();
    await stopping;
    expect(Date.now() - t0).toBeLessThan(2_000); // it did not wait out the grace period
    expect((await manager.get(scope, taskId)).task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(manager.running).toBe(0);
  });

  it('fails a turn still running when the grace period ends, with the shutdown text', async () => {
    const backend = new InMemoryTaskBackend();
    const manager = new TaskManager({ backend }, { executorTimeoutMs: 60_000 });
    const taskId = await start(manager, slowAgent(60_000));
    const t0 = Date.now();
    await manager.shutdown(300);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(Date.now() - t0).toBeLessThan(3_000);
    const { task } = await manager.get(scope, taskId);
    expect(task.status).toMatchObject({ state: 'TASK_STATE_FAILED', message: { parts: [{ text: SHUTDOWN_TEXT }] } });
  });

  it('stops at once without a grace period', async () => {
    const backend = new InMemoryTaskBackend();
    const manager = new TaskManager({ backend }, { executorTimeoutMs: 60_000 });
    const taskId = await start(manager, slowAgent(60_000));
    const t0 = Date.now();
    await manager.shutdown();
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect((await manager.get(scope, taskId)).task.status.state).toBe('TASK_STATE_FAILED');
  });
});
