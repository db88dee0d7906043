import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDemo, type RunningApp } from './support/demo-app.js';

describe('demo app', () => {
  let demo: RunningApp;
  beforeAll(async () => {
    demo = await startDemo();
  });
  afterAll(() => demo.close());

  it('serves the card and answers a message over JSON-RPC', async () => {
    const card: any = await (await fetch(`${demo.url}/.well-known/agent-card.json`)).json();
    expect(card.supportedInterfaces[0]).toEqual({ url: `${demo.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    const res = await fetch(`${demo.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
    });
    const body: any = await res.json();
    expect(body.result.message.parts).toEqual([{ text: 'echo: hi' }]);
  });
});
