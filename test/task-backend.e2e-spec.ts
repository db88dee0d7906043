/**
 * A task backend of the app's own, through the module's `taskBackend` option: the module runs every
 * task on it, over both bindings, and closes it at shutdown; what is not a backend fails start-up.
 */
import { describe, expect, it } from '@jest/globals';
import { A2AConfigurationError, A2AModule, ANONYMOUS_SUBJECT, InMemoryTaskBackend, type StoredTask, type TaskBackend, type TaskScope, type TaskWrite } from 'nestjs-a2a';
import { describeTaskBackendContract } from 'nestjs-a2a/testing';
import { EchoAgent } from '../src/echo.agent.js';
import { startApp } from './support/custom-app.js';
import { jsonRpcClient, restClient, userMessage } from './support/wire-client.js';

/** A backend of "the app's own": the in-memory one, counting its commits and its closes. */
class CountingBackend implements TaskBackend {
  private readonly inner = new InMemoryTaskBackend();
  readonly store = this.inner.store;
  readonly log = this.inner.log;
  readonly coordinator = this.inner.coordinator;
  readonly committed: string[] = [];
  closes = 0;

  async commit(write: TaskWrite): Promise<StoredTask> {
    const stored = await this.inner.commit(write);
    this.committed.push(stored.task.id);
    return stored;
  }

  admit(scope: TaskScope, bytes: number): Promise<void> {
    return this.inner.admit(scope, bytes);
  }

  async close(): Promise<void> {
    this.closes++;
    await this.inner.close();
  }
}

// a backend of the app's own passes the suites the module's backends pass, taken from the testing entry as a user would
describeTaskBackendContract('a backend of the app’s own (CountingBackend)', async () => {
  const backend = new CountingBackend();
  return { backend, close: () => backend.close() };
});

describe('taskBackend option', () => {
  it('runs every task on the given backend, over both bindings, and closes it once at shutdown', async () => {
    const backend = new CountingBackend();
    const running = await startApp(A2AModule.forRoot({ taskBackend: backend, defaultAgent: 'echo' }), [EchoAgent]);
    try {
      const viaRest = (await restClient(`${running.url}/a2a/rest`).call('SendMessage', { message: userMessage('/task over rest') })).result.task;
      const viaRpc = (await jsonRpcClient(`${running.url}/a2a/jsonrpc`).call('SendMessage', { message: userMessage('/task over json-rpc') })).result.task;
      for (const task of [viaRest, viaRpc]) {
        expect(task.status.state).toBe('TASK_STATE_COMPLETED');
        expect(backend.committed).toContain(task.id);
        expect((await backend.store.get({ agent: 'echo', tenant: '', subject: ANONYMOUS_SUBJECT }, task.id))?.task.status.state).toBe('TASK_STATE_COMPLETED');
      }
    } finally {
      await running.close();
    }
    expect(backend.closes).toBe(1);
  });

  it('refuses what is not a backend at start-up, naming the option', async () => {
    const error = await startApp(A2AModule.forRoot({ taskBackend: { store: {}, commit: () => undefined } as never, defaultAgent: 'echo' }), [EchoAgent]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(A2AConfigurationError);
    expect((error as A2AConfigurationError).message).toMatch(/taskBackend: must be a TaskBackend/);
  });
});
