/**
 * A2A 0.3 beside 1.0 on the wire, byte by byte: which card a reader gets (hybrid or pure, `Vary`,
 * the 0.2 path), which version answers a request (the header decides, the method name does not),
 * and the 0.3 shapes of errors, including a guard's refusal. With `A2A_V03=0` nothing of it exists.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { verifyAgentCardSignature, type AgentCard as SdkAgentCard } from '@a2a-js/sdk';
import { importJWK, type JWK, type JSONWebKeySet } from 'jose';
import { verifyAgentCard } from 'nestjs-a2a/client';
import { startDemo, type RunningApp } from './support/demo-app.js';
import type { Json } from './support/wire-client.js';

const HYBRID_ONLY = ['url', 'preferredTransport', 'protocolVersion', 'additionalInterfaces', 'supportsAuthenticatedExtendedCard'];

async function rpc(url: string, body: Json, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Json }> {
  const res = await fetch(`${url}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

const call = (method: string, params: Json = {}) => ({ jsonrpc: '2.0', id: 7, method, params });
const message03 = (text: string) => ({ message: { kind: 'message', messageId: `m-${Math.random()}`, role: 'user', parts: [{ kind: 'text', text }] } });

describe('the demo (v03 on, signed card)', () => {
  let demo: RunningApp;
  beforeAll(async () => {
    demo = await startDemo({ DEMO_SIGN_CARD: '1' });
  });
  afterAll(() => demo.close());

  it('lists the 0.3 interfaces after the 1.0 ones, at the same URLs', async () => {
    const card: Json = await (await fetch(`${demo.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json();
    expect(card.supportedInterfaces).toEqual([
      { url: `${demo.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${demo.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${demo.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: `${demo.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ]);
  });

  it('gives the pure card to a 1.0 reader and the hybrid one to anyone else, Vary: A2A-Version, each with its own ETag', async () => {
    const pure = await fetch(`${demo.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    const hybrid = await fetch(`${demo.url}/.well-known/agent-card.json`);
    const asked03 = await fetch(`${demo.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '0.3' } });
    for (const res of [pure, hybrid, asked03]) expect(res.headers.get('vary')).toBe('A2A-Version');
    const pureCard: Json = await pure.json();
    const hybridCard: Json = await hybrid.json();
    expect(await asked03.json()).toEqual(hybridCard);
    for (const field of HYBRID_ONLY) expect(pureCard).not.toHaveProperty(field);
    expect(hybridCard).toMatchObject({
      protocolVersion: '0.3',
      url: `${demo.url}/a2a/jsonrpc`,
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [
        { url: `${demo.url}/a2a/jsonrpc`, transport: 'JSONRPC' },
        { url: `${demo.url}/a2a/rest`, transport: 'HTTP+JSON' },
      ],
      supportsAuthenticatedExtendedCard: false,
      // every 1.0 field is there too
      supportedInterfaces: pureCard.supportedInterfaces,
      skills: pureCard.skills,
    });
    // the 1.0 signatures first, then those over the card's 0.3 view
    expect(hybridCard.signatures.slice(0, pureCard.signatures.length)).toEqual(pureCard.signatures);
    const forms = hybridCard.signatures.map((s: Json) => JSON.parse(Buffer.from(s.protected, 'base64url').toString())['nestjs-a2a-payload']);
    expect(forms.slice(pureCard.signatures.length)).toEqual(['v03', 'v03']);
    expect(pure.headers.get('etag')).not.toBe(hybrid.headers.get('etag'));
    // a cached hybrid card is not the pure one: its ETag does not match a 1.0 reader's
    const revalidated = await fetch(`${demo.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0', 'If-None-Match': hybrid.headers.get('etag')! } });
    expect(revalidated.status).toBe(200);
    const same = await fetch(`${demo.url}/.well-known/agent-card.json`, { headers: { 'If-None-Match': hybrid.headers.get('etag')! } });
    expect(same.status).toBe(304);
  });

  it('serves the hybrid card at the 0.2 path, for the default agent and per agent', async () => {
    const root: Json = await (await fetch(`${demo.url}/.well-known/agent.json`, { headers: { 'A2A-Version': '1.0' } })).json();
    expect(root).toMatchObject({ protocolVersion: '0.3', url: `${demo.url}/a2a/jsonrpc`, name: 'echo' });
    const support: Json = await (await fetch(`${demo.url}/agents/support/.well-known/agent.json`)).json();
    expect(support).toMatchObject({ protocolVersion: '0.3', url: `${demo.url}/agents/support/a2a/jsonrpc`, name: 'support' });
  });

  it('keeps both cards verifiable, by our verifier and the a2a-js 1.x one: the hybrid card carries the 1.0 signatures, which cover the 1.0 fields', async () => {
    jest.spyOn(console, 'debug').mockImplementation(() => undefined); // the SDK's verifier reports each signature it passes over
    const jwks = (await (await fetch(`${demo.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    const sdkVerify = (card: Json) =>
      verifyAgentCardSignature(async (kid) => {
        const jwk = jwks.keys.find((k) => k.kid === kid)!;
        return (await importJWK(jwk as JWK, jwk.alg)) as never;
      })(card as SdkAgentCard);
    const pure: Json = await (await fetch(`${demo.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json();
    const hybrid: Json = await (await fetch(`${demo.url}/.well-known/agent.json`)).json();
    await expect(verifyAgentCard(pure, jwks)).resolves.toMatchObject({ form: 'spec' });
    await expect(verifyAgentCard(hybrid, jwks)).resolves.toMatchObject({ form: 'spec' });
    await expect(sdkVerify(pure)).resolves.toBeUndefined();
    await expect(sdkVerify(hybrid)).resolves.toBeUndefined();
    await expect(verifyAgentCard({ ...hybrid, description: 'changed' }, jwks)).rejects.toThrow();
    await expect(sdkVerify({ ...hybrid, description: 'changed' })).rejects.toThrow();
  });

  it('answers a request without A2A-Version in 0.3, and one with 1.0 in 1.0, whatever the method name', async () => {
    const v03 = await rpc(demo.url, call('message/send', message03('hello')));
    expect(v03.status).toBe(200);
    expect(v03.headers.get('a2a-version')).toBeNull();
    expect(v03.body).toEqual({ jsonrpc: '2.0', id: 7, result: expect.objectContaining({ kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'echo: hello' }] }) });

    // a 1.0 method without the header: 0.3's method-not-found (answered at 0.3: no A2A-Version)
    const v1MethodAs03 = await rpc(demo.url, call('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } }));
    expect(v1MethodAs03.status).toBe(200);
    expect(v1MethodAs03.body).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found: SendMessage' } });
    expect(v1MethodAs03.headers.get('a2a-version')).toBeNull();

    // a 0.3 method with A2A-Version: 1.0: 1.0's method-not-found
    const v03MethodAs1 = await rpc(demo.url, call('message/send', message03('x')), { 'A2A-Version': '1.0' });
    expect(v03MethodAs1.body).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found: message/send' } });
    expect(v03MethodAs1.headers.get('a2a-version')).toBe('1.0');

    // an unknown version is refused in the 1.0 shape, naming both versions served
    const unknown = await rpc(demo.url, call('SendMessage', {}), { 'A2A-Version': '2.0' });
    expect(unknown.body.error).toMatchObject({ code: -32009, data: [expect.objectContaining({ reason: 'VERSION_NOT_SUPPORTED', metadata: { supportedVersions: '1.0,0.3' } })] });
  });

  it('answers bad 0.3 params with -32602 naming each field in data, and keeps the request id', async () => {
    const bad = await rpc(demo.url, call('message/send', { message: { kind: 'message', role: 'robot', parts: [] } }));
    expect(bad.body.id).toBe(7);
    expect(bad.body.error.code).toBe(-32602);
    expect(bad.body.error.data.fieldViolations.map((v: Json) => v.field)).toEqual(expect.arrayContaining(['message.messageId', 'message.role', 'message.parts']));
    const missing = await rpc(demo.url, call('tasks/get', { id: 'nope' }));
    expect(missing.body.error).toEqual({ code: -32001, message: expect.stringContaining('nope'), data: expect.objectContaining({ reason: 'TASK_NOT_FOUND' }) });
  });

  it('serves the REST routes of a2a-js 0.3 under /v1 without the header, 1.0 ones with it', async () => {
    const body = { message: { messageId: 'r1', role: 'ROLE_USER', content: [{ text: 'rest 0.3' }] } };
    const v03 = await fetch(`${demo.url}/a2a/rest/v1/message:send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(v03.status).toBe(201);
    expect(await v03.json()).toMatchObject({ message: { role: 'ROLE_AGENT', content: [{ text: 'echo: rest 0.3' }] } });
    // a 1.0 route without the header is no 0.3 route: 0.3's bare error body
    const v1RouteAs03 = await fetch(`${demo.url}/a2a/rest/message:send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(v1RouteAs03.status).toBe(404);
    expect(await v1RouteAs03.json()).toEqual({ code: -32601, message: 'No A2A operation at POST /message:send' });
    // with it, the 1.0 table: `v1` reads as a tenant, and a 0.3 body is no 1.0 request (1.0's google.rpc.Status)
    const v03RouteAs1 = await fetch(`${demo.url}/a2a/rest/v1/message:send`, { method: 'POST', headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' }, body: JSON.stringify(body) });
    expect(v03RouteAs1.status).toBe(400);
    expect(await v03RouteAs1.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    const missing = await fetch(`${demo.url}/a2a/rest/v1/tasks/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: -32001 });
  });

  it('activates 0.3 extensions from X-A2A-Extensions (none declared here: none echoed)', async () => {
    const res = await rpc(demo.url, call('message/send', message03('ext')), { 'X-A2A-Extensions': 'urn:unknown' });
    expect(res.body.result.kind).toBe('message');
    expect(res.headers.get('x-a2a-extensions')).toBeNull();
  });

  it('answers agent/getAuthenticatedExtendedCard for an agent without one as 0.3 did: UnsupportedOperation', async () => {
    const res = await rpc(demo.url, call('agent/getAuthenticatedExtendedCard'));
    expect(res.body.error).toMatchObject({ code: -32004 });
  });
});

describe('the demo with API keys: a guard refuses a 0.3 request in 0.3', () => {
  let demo: RunningApp;
  beforeAll(async () => {
    demo = await startDemo({ DEMO_API_KEYS: 'alice:k1' });
  });
  afterAll(() => demo.close());

  it('401 with WWW-Authenticate and the request id, a 0.3 error body', async () => {
    const res = await rpc(demo.url, call('message/send', message03('no key')));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBeTruthy();
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32000, message: expect.any(String), data: expect.objectContaining({ reason: 'UNAUTHENTICATED' }) } });
    const rest = await fetch(`${demo.url}/a2a/rest/v1/tasks/x`);
    expect(rest.status).toBe(401);
    expect(await rest.json()).toMatchObject({ code: -32000, data: { reason: 'UNAUTHENTICATED' } });
    const ok = await rpc(demo.url, call('message/send', message03('with key')), { 'X-API-Key': 'k1' });
    expect(ok.body.result.parts).toEqual([{ kind: 'text', text: 'echo: with key' }]);
  });
});

describe('the demo with A2A_V03=0', () => {
  let demo: RunningApp;
  beforeAll(async () => {
    demo = await startDemo({ A2A_V03: '0' });
  });
  afterAll(() => demo.close());

  it('serves the pure card to everyone, lists only 1.0 interfaces, has no 0.2 card path and refuses header-less requests', async () => {
    const res = await fetch(`${demo.url}/.well-known/agent-card.json`);
    expect(res.headers.get('vary')).toBeNull();
    const card: Json = await res.json();
    for (const field of HYBRID_ONLY) expect(card).not.toHaveProperty(field);
    expect(card.supportedInterfaces.map((i: Json) => i.protocolVersion)).toEqual(['1.0', '1.0']);
    expect((await fetch(`${demo.url}/.well-known/agent.json`)).status).toBe(404);
    const refused = await rpc(demo.url, call('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } }));
    expect(refused.body.error).toMatchObject({ code: -32009 });
    const v03Method = await rpc(demo.url, call('message/send', message03('x')));
    expect(v03Method.body.error).toEqual({ code: -32601, message: 'Method not found: message/send' });
    expect(v03Method.headers.get('a2a-version')).toBe('1.0');
  });
});
