/**
 * A host's own caller resolver that answers asynchronously (a promise): the bindings wait for it,
 * on both bindings and both platforms, and a refusal it throws (Nest's ForbiddenException) is answered in the binding's
 * shape. The default resolver answers at once and is not awaited, so this is the path to keep.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ForbiddenException, Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { A2ACallerResolver, A2AModule } from 'nestjs-a2a';
import { EchoAgent } from '../src/echo.agent.js';
import { startApp } from './support/custom-app.js';
import type { RunningApp } from './support/demo-app.js';
import { describeOnEachPlatform } from './support/platforms.js';
import { jsonRpcClient, restClient, userMessage, type BindingClient } from './support/wire-client.js';

/** The caller is the `x-test-user` header, found a turn later; `nobody` is refused. */
@Injectable()
class AsyncHeaderCallerResolver extends A2ACallerResolver {
  override async resolve(req: IncomingMessage, requested: { tenant?: string }) {
    await new Promise((resolve) => setImmediate(resolve));
    const subject = req.headers['x-test-user'] as string | undefined;
    if (subject === 'nobody') throw new ForbiddenException();
    return { subject: subject ?? 'anonymous', tenant: requested.tenant, user: subject, authenticated: subject !== undefined };
  }
}

const as = (user: string) => ({ headers: { 'x-test-user': user } });

describeOnEachPlatform('an asynchronous caller resolver', () => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp(A2AModule.forRoot({ allowUnauthenticated: true, callerResolver: AsyncHeaderCallerResolver }), [EchoAgent]);
  });

  afterAll(async () => {
    await running.close();
  });

  describe.each<[string, () => BindingClient]>([
    ['JSON-RPC', () => jsonRpcClient(`${running.url}/a2a/jsonrpc`)],
    ['HTTP+JSON', () => restClient(`${running.url}/a2a/rest`)],
  ])('%s', (_, client) => {
    it('scopes tasks by the caller it resolves', async () => {
      const sent = await client().call('SendMessage', { message: userMessage('/task scoped'), configuration: { returnImmediately: true } }, as('alice'));
      const taskId = sent.result!.task.id as string;
      expect((await client().call('GetTask', { id: taskId }, as('alice'))).result!.id).toBe(taskId);
      const other = await client().call('GetTask', { id: taskId }, as('bob'));
      expect(other.result).toBeUndefined();
      expect(other.error).toBeDefined();
    });

    it('answers its refusal in the binding’s shape', async () => {
      const refused = await client().call('SendMessage', { message: userMessage('hello') }, as('nobody'));
      expect(refused.status).toBe(403);
      expect(refused.result).toBeUndefined();
      expect(refused.error).toBeDefined();
    });
  });
});
