/**
 * Per-message limits (issue 17 item 3): a message of a million empty parts used to hold the event
 * loop for seconds. Now the parts are counted before they are read: the request is refused with
 * InvalidParams naming the field and the bound, and a request sent beside it is answered as
 * usual. Assertions are on the answers, never on time.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { A2AAgent, A2AModule, type AgentExecutor, type TaskContext } from 'nestjs-a2a';
import { startApp } from './support/custom-app.js';
import { describeOnEachPlatform } from './support/platforms.js';
import type { RunningApp } from './support/demo-app.js';
import { V1, jsonRpcClient, restClient, userMessage, type BindingClient } from './support/wire-client.js';

@A2AAgent({ name: 'echo', description: 'echoes', skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['echo'] }] })
@Injectable()
class EchoAgent implements AgentExecutor {
  execute(ctx: TaskContext) {
    return ctx.reply(`echo: ${ctx.text}`);
  }
}

/** `{"message":{… "parts":[{"text":""}, … a million times]}}`, built as text (no million objects in the test). */
function millionPartsBody(rpc: boolean): string {
  const parts = `[${Array.from({ length: 1_000_000 }, () => '{"text":""}').join(',')}]`;
  const params = `{"message":{"messageId":"m-big","role":"ROLE_USER","parts":${parts}}}`;
  return rpc ? `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":${params}}` : params;
}

describeOnEachPlatform('a message of a million parts, with a body limit that lets it through', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp(A2AModule.forRoot({ limits: { maxBodyBytes: 32 * 1024 * 1024 }, allowUnauthenticated: true }), [EchoAgent]);
  });
  afterAll(() => running.close());

  it.each([
    ['JSON-RPC', true],
    ['HTTP+JSON', false],
  ])('%s: refused as InvalidParams naming message.parts and the bound; a request beside it is answered', async (_binding, rpc) => {
    const url = rpc ? `${running.url}/a2a/jsonrpc` : `${running.url}/a2a/rest/message:send`;
    const big = fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...V1 }, body: millionPartsBody(rpc) });
    const client: BindingClient = rpc ? jsonRpcClient(`${running.url}/a2a/jsonrpc`) : restClient(`${running.url}/a2a/rest`);
    const beside = client.call('SendMessage', { message: userMessage('beside') });

    const [bigAnswer, besideAnswer] = await Promise.all([big, beside]);
    expect(besideAnswer.result?.message?.parts).toEqual([{ text: 'echo: beside' }]);

    const body = (await bigAnswer.json()) as { error: { code: number | string; message: string; details?: unknown[]; data?: unknown[] } };
    expect(bigAnswer.status).toBe(rpc ? 200 : 400);
    expect(rpc ? body.error.code : body.error.code).toBe(rpc ? -32602 : 400);
    expect(body.error.message).toBe('Invalid parameters: message.parts: must hold at most 1000 parts (limits.maxPartsPerMessage)');
    expect(JSON.stringify(body).length).toBeLessThan(2_000);
  });

  it('a message within the bound is served', async () => {
    const parts = Array.from({ length: 1000 }, () => ({ text: 'a' }));
    const answer = await jsonRpcClient(`${running.url}/a2a/jsonrpc`).call('SendMessage', { message: { ...userMessage('x'), parts } });
    expect(answer.result?.message?.parts).toEqual([{ text: `echo: ${parts.map((p) => p.text).join('\n')}` }]);
  });
});

describeOnEachPlatform('the limits are options', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp(
      A2AModule.forRoot({ limits: { maxPartsPerMessage: 2, maxPartBytes: 8, maxMetadataBytes: 16, maxListItems: 1 }, allowUnauthenticated: true }),
      [EchoAgent],
    );
  });
  afterAll(() => running.close());

  it('each bound is the configured one, named in the answer, never quoting the value', async () => {
    const secret = 'SECRET-VALUE-123456';
    const answer = await restClient(`${running.url}/a2a/rest`).call('SendMessage', {
      message: { ...userMessage('x'), parts: [{ text: secret }], metadata: { note: secret }, extensions: ['a', 'b'] },
    });
    expect(answer.status).toBe(400);
    const text = JSON.stringify(answer.raw);
    expect(text).not.toContain(secret);
    expect(answer.raw.error.message).toBe(
      'Invalid parameters: message.parts[0].text: must take at most 8 bytes (limits.maxPartBytes); ' +
        'message.metadata: must take at most 16 bytes (limits.maxMetadataBytes); ' +
        'message.extensions: must have at most 1 items (limits.maxListItems)',
    );
    const tooMany = await restClient(`${running.url}/a2a/rest`).call('SendMessage', { message: { ...userMessage('x'), parts: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] } });
    expect(tooMany.raw.error.message).toBe('Invalid parameters: message.parts: must hold at most 2 parts (limits.maxPartsPerMessage)');
  });

  it('bad limits fail start-up, each named', async () => {
    await expect(startApp(A2AModule.forRoot({ limits: { maxPartsPerMessage: 0, maxPartBytes: -1, maxMetadataBytes: 1.5, maxListItems: 0 } }), [EchoAgent])).rejects.toThrow(
      /limits\.maxPartsPerMessage[\s\S]*limits\.maxPartBytes[\s\S]*limits\.maxMetadataBytes[\s\S]*limits\.maxListItems/,
    );
  });
});

describeOnEachPlatform('with the default body limit', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp(A2AModule.forRoot({ allowUnauthenticated: true }), [EchoAgent]);
  });
  afterAll(() => running.close());

  it('a million parts is a body too large: 413, before it is parsed', async () => {
    const answer = await fetch(`${running.url}/a2a/rest/message:send`, { method: 'POST', headers: { 'content-type': 'application/json', ...V1 }, body: millionPartsBody(false) });
    expect(answer.status).toBe(413);
  });
});
