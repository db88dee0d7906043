/**
 * Rate limits through the host's own `@nestjs/throttler` guard: the demo with A2A_RATE_LIMIT (its
 * ThrottlerGuard as an APP_GUARD, counting per caller), built and run in a child process (the
 * throttler is a CommonJS package, which Node loads and jest's ESM mode does not). The module
 * answers the guard's refusal in each binding's shape, with the `Retry-After` the guard set, for
 * plain and streaming requests alike.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnDemo, type DemoProcess } from './support/built-demo.js';
import { jsonRpcClient, restClient, userMessage, type BindingClient } from './support/wire-client.js';

const LIMIT = 3;
const CALLERS = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7'];

let demo: DemoProcess;
beforeAll(async () => {
  demo = await spawnDemo({ A2A_RATE_LIMIT: String(LIMIT), DEMO_API_KEYS: CALLERS.map((c) => `${c}:key-${c}`).join(',') });
}, 240_000);
afterAll(() => demo?.stop());

const unused = [...CALLERS];
/** A caller of its own for each test, so its budget is its own. */
const caller = () => ({ 'X-API-Key': `key-${unused.shift()}` });

const bindings: Array<[string, () => BindingClient]> = [
  ['JSON-RPC', () => jsonRpcClient(`${demo.url}/a2a/jsonrpc`)],
  ['HTTP+JSON', () => restClient(`${demo.url}/a2a/rest`)],
];

describe.each(bindings)('A2A_RATE_LIMIT on %s', (name, client) => {
  it('lets the limit through, then answers 429 RESOURCE_EXHAUSTED with Retry-After in the binding shape', async () => {
    const headers = caller();
    for (let i = 0; i < LIMIT; i++) expect((await client().call('SendMessage', { message: userMessage('hello') }, { headers })).result).toBeDefined();
    const refused = await client().call('SendMessage', { message: userMessage('hello') }, { headers });
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // the demo's throttler is a named one: the guard sets only Retry-After-per-minute, the module answers it as Retry-After too
    expect(refused.headers.get('retry-after-per-minute')).toBe(String(retryAfter));
    expect(refused.error).toMatchObject({ reason: 'RESOURCE_EXHAUSTED' });
    if (name === 'JSON-RPC') expect(refused.raw).toEqual({ jsonrpc: '2.0', id: expect.any(Number), error: expect.objectContaining({ code: -32000 }) });
    else expect(refused.raw).toEqual({ error: expect.objectContaining({ code: 429, status: 'RESOURCE_EXHAUSTED' }) });
    expect(JSON.stringify(refused.raw)).not.toMatch(/Throttler|stack|\bat /);
  });

  it('refuses a streaming request the same way, before any stream opens', async () => {
    const headers = caller();
    for (let i = 0; i < LIMIT; i++) {
      const ok = await client().stream('SendStreamingMessage', { message: userMessage('/task hi') }, { headers });
      expect(ok.status).toBe(200);
      expect(ok.events.length).toBeGreaterThan(0);
    }
    const refused = await client().stream('SendStreamingMessage', { message: userMessage('/task hi') }, { headers });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).not.toMatch(/event-stream/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.error).toMatchObject({ reason: 'RESOURCE_EXHAUSTED' });
  });
});

describe('A2A_RATE_LIMIT', () => {
  it('keeps the JSON-RPC request id in the refusal', async () => {
    const headers = { 'content-type': 'application/json', 'A2A-Version': '1.0', ...caller() };
    const body = (id: string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'GetTask', params: { id: 'missing' } });
    for (let i = 0; i < LIMIT; i++) await fetch(`${demo.url}/a2a/jsonrpc`, { method: 'POST', headers, body: body(`r${i}`) });
    const res = await fetch(`${demo.url}/a2a/jsonrpc`, { method: 'POST', headers, body: body('the-id') });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 'the-id', error: { code: -32000, data: [{ reason: 'RESOURCE_EXHAUSTED' }] } });
  });

  it('counts per caller: one caller over its limit leaves another alone, and health probes are never limited', async () => {
    const [spent, fresh] = [caller(), caller()];
    const rest = restClient(`${demo.url}/a2a/rest`);
    for (let i = 0; i < LIMIT; i++) await rest.call('ListTasks', {}, { headers: spent });
    expect((await rest.call('ListTasks', {}, { headers: spent })).status).toBe(429);
    expect((await rest.call('ListTasks', {}, { headers: fresh })).status).toBe(200);
    for (let i = 0; i < LIMIT + 2; i++) expect((await fetch(`${demo.url}/health/ready`)).status).toBe(200);
  });
});
