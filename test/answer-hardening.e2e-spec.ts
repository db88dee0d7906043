/**
 * What every A2A answer carries and how much of a request it may echo (issue 17 item 7): a 5 MiB
 * task id once produced a 10 MiB answer; every answer (results, errors, streams, cards) now says
 * `X-Content-Type-Options: nosniff`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { A2AAgent, A2AModule, type AgentExecutor, type TaskContext } from 'nestjs-a2a';
import { startApp } from './support/custom-app.js';
import { startDemo, type RunningApp } from './support/demo-app.js';
import { describeOnEachPlatform } from './support/platforms.js';
import { V1, jsonRpcClient, restClient, userMessage } from './support/wire-client.js';

@A2AAgent({ name: 'echo', description: 'echoes', skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['echo'] }] })
@Injectable()
class EchoAgent implements AgentExecutor {
  execute(ctx: TaskContext) {
    return ctx.reply(`echo: ${ctx.text}`);
  }
}

describeOnEachPlatform('errors echo a bounded part of what they were sent', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp(A2AModule.forRoot({ limits: { maxBodyBytes: 8 * 1024 * 1024 }, allowUnauthenticated: true }), [EchoAgent]);
  });
  afterAll(() => running.close());

  const hugeId = 'x'.repeat(5 * 1024 * 1024);

  it.each([
    ['GetTask', { id: hugeId }],
    ['CancelTask', { id: hugeId }],
    ['SubscribeToTask', { id: hugeId }],
    ['SendMessage', { message: { ...userMessage('hi'), taskId: hugeId } }],
    ['GetTaskPushNotificationConfig', { taskId: hugeId, id: hugeId }],
  ])('JSON-RPC %s with a 5 MiB id: a small answer that quotes at most 128 characters of it', async (method, params) => {
    const res = await fetch(`${running.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...V1 },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const text = await res.text();
    expect(text.length).toBeLessThan(4096);
    expect(JSON.parse(text).error).toBeDefined();
    expect(text).not.toContain('x'.repeat(129));
  });

  it('TaskNotFound quotes the id cut at 128 characters, in the message and in ErrorInfo metadata', async () => {
    const answer = await jsonRpcClient(`${running.url}/a2a/jsonrpc`).call('GetTask', { id: 'y'.repeat(1000) });
    expect(answer.error?.reason).toBe('TASK_NOT_FOUND');
    expect(answer.error?.message).toBe(`Task ${'y'.repeat(128)}… not found`);
    const info = answer.error!.details.find((d) => d.metadata)!;
    expect(info.metadata.taskId).toBe(`${'y'.repeat(128)}…`);
    // a short id is quoted whole
    expect((await jsonRpcClient(`${running.url}/a2a/jsonrpc`).call('GetTask', { id: 'no-such-task' })).error?.message).toBe('Task no-such-task not found');
  });

  it('a media type the agent does not take is quoted bounded too', async () => {
    const mediaType = `image/${'z'.repeat(100_000)}`;
    const answer = await restClient(`${running.url}/a2a/rest`).call('SendMessage', { message: { ...userMessage('hi'), parts: [{ text: 'a', mediaType }] } });
    expect(answer.error?.reason).toBe('CONTENT_TYPE_NOT_SUPPORTED');
    expect(answer.error?.message).toMatch(new RegExp(`^This agent does not take image/z{122}…; it takes `));
    expect(JSON.stringify(answer.raw).length).toBeLessThan(4096);
  });
});

describeOnEachPlatform('every A2A answer says X-Content-Type-Options: nosniff', () => {
  let demo: RunningApp;
  let guarded: RunningApp;
  beforeAll(async () => {
    demo = await startDemo({ DEMO_SIGN_CARD: '1' });
    guarded = await startDemo({ DEMO_API_KEYS: 'alice:key-1' });
  });
  afterAll(async () => {
    await demo.close();
    await guarded.close();
  });

  const post = (base: string, path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...V1, ...headers }, body });
  const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

  it('results, errors and streams of both bindings, cards, the JWKS, 304s, guard refusals and body-parser refusals', async () => {
    const answers: Array<[string, Response]> = [
      ['JSON-RPC result', await post(demo.url, '/a2a/jsonrpc', rpc('SendMessage', { message: userMessage('hi') }))],
      ['JSON-RPC error', await post(demo.url, '/a2a/jsonrpc', rpc('GetTask', { id: 'missing' }))],
      ['JSON-RPC parse error', await post(demo.url, '/a2a/jsonrpc', '{not json')],
      ['JSON-RPC stream', await post(demo.url, '/a2a/jsonrpc', rpc('SendStreamingMessage', { message: userMessage('hi') }))],
      ['REST result', await post(demo.url, '/a2a/rest/message:send', JSON.stringify({ message: userMessage('hi') }))],
      ['REST error', await fetch(`${demo.url}/a2a/rest/tasks/missing`, { headers: V1 })],
      ['REST unknown route', await fetch(`${demo.url}/a2a/rest/nowhere`, { headers: V1 })],
      ['REST stream', await post(demo.url, '/a2a/rest/message:stream', JSON.stringify({ message: userMessage('hi') }))],
      ['REST body too large', await post(demo.url, '/a2a/rest/message:send', JSON.stringify({ message: userMessage('x'.repeat(2 * 1024 * 1024)) }))],
      ['card', await fetch(`${demo.url}/.well-known/agent-card.json`)],
      ['JWKS', await fetch(`${demo.url}/.well-known/jwks.json`)],
      ['JWKS absent', await fetch(`${guarded.url}/.well-known/jwks.json`)],
      ['guard refusal (401)', await post(guarded.url, '/a2a/jsonrpc', rpc('GetTask', { id: 'x' }))],
      ['guard refusal REST (401)', await fetch(`${guarded.url}/a2a/rest/tasks/x`, { headers: V1 })],
    ];
    const card = answers.find(([name]) => name === 'card')![1];
    answers.push(['card 304', await fetch(`${demo.url}/.well-known/agent-card.json`, { headers: { 'if-none-match': card.headers.get('etag')! } })]);
    const statuses = answers.map(([name, res]) => [name, res.status]);
    expect(statuses.filter(([, status]) => status === 0)).toEqual([]);
    expect(answers.map(([name, res]) => [name, res.headers.get('x-content-type-options')])).toEqual(answers.map(([name]) => [name, 'nosniff']));
    await Promise.all(answers.map(([, res]) => res.body?.cancel()));
    expect(Object.fromEntries(statuses)).toMatchObject({ 'REST body too large': 413, 'card 304': 304, 'guard refusal (401)': 401, 'JWKS absent': 404 });
  });
});
