/**
 * The client against hand-written peers on 127.0.0.1: card caching and revalidation, signed
 * cards, slow and trickling servers, retries, the circuit breaker, redirects, the egress policy
 * and redaction. Nothing here dials anything but 127.0.0.1; refused targets are only checked.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { generateKeyPair } from 'jose';
import {
  A2ACircuitBreakers,
  A2AClient,
  A2AHttpError,
  A2ATimeoutError,
  AgentCardResolver,
  CardSignatureError,
  CircuitOpenError,
  EgressRefusedError,
  EgressRequestError,
  InvalidAgentResponseError,
  NoCompatibleInterfaceError,
  TaskNotFoundError,
  publicJwks,
  signAgentCard,
  type A2AClientOptions,
  type AgentCard,
  type AgentInterface,
} from 'nestjs-a2a';
import { fakeLookup } from '../libs/a2a/src/net/testing/fake-lookup.js';
import { startHttpServer, startRawServer, type LoopbackServer } from '../libs/a2a/src/net/testing/loopback-server.js';
import { json, messages } from './support/client-results.js';
import { freePort } from './support/ports.js';
import { userMessage } from './support/wire-client.js';

const LOCAL = { allowHttp: true, allowPrivate: true } as const;
const TASK = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } };

const open: LoopbackServer[] = [];
const timers: NodeJS.Timeout[] = [];
afterEach(async () => {
  timers.splice(0).forEach(clearInterval);
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<LoopbackServer> {
  const server = await startHttpServer(handler);
  open.push(server);
  return server;
}

function agentCard(interfaces: AgentInterface[], fields: Partial<AgentCard> = {}): AgentCard {
  return {
    name: 'peer',
    description: 'a hand-written peer',
    version: '1.0.0',
    supportedInterfaces: interfaces,
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 'S', description: 'a skill', tags: ['t'] }],
    ...fields,
  };
}

const jsonRpcAt = (url: string): AgentInterface => ({ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
const restAt = (url: string): AgentInterface => ({ url, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' });

/** A client for a fixed card (no discovery), on 127.0.0.1. */
function clientFor(card: AgentCard, options: Partial<A2AClientOptions> = {}): A2AClient {
  return new A2AClient({ card, egress: LOCAL, circuitBreakers: false, ...options });
}

describe('Agent Card cache (spec §8.6)', () => {
  it('honours max-age, revalidates with If-None-Match (304), and replaces a card whose ETag changed', async () => {
    let version = 1;
    const peer = await serve((req, res) => {
      const etag = `"v${version}"`;
      if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { etag, 'cache-control': 'max-age=60' }).end();
      json(res, 200, agentCard([jsonRpcAt(`http://127.0.0.1:${peer.port}/rpc`)], { version: `${version}.0.0` }), { etag, 'cache-control': 'max-age=60' });
    });
    let now = 1_000_000;
    const resolver = new AgentCardResolver({ egress: LOCAL, now: () => now });
    const url = `http://127.0.0.1:${peer.port}`;

    const first = await resolver.resolve(url);
    expect(first.card.version).toBe('1.0.0');
    expect(first.url).toBe(`${url}/.well-known/agent-card.json`);
    expect(first.expiresAt).toBe(now + 60_000);
    now += 59_000;
    await resolver.resolve(url);
    expect(peer.requests).toHaveLength(1);

    now += 2_000; // expired: revalidated, not refetched
    const revalidated = await resolver.resolve(url);
    expect(peer.requests).toHaveLength(2);
    expect(peer.requests[1].headers['if-none-match']).toBe('"v1"');
    expect(revalidated.card).toBe(first.card);
    expect(revalidated.expiresAt).toBe(now + 60_000);

    version = 2;
    now += 61_000;
    const replaced = await resolver.resolve(url);
    expect(peer.requests).toHaveLength(3);
    expect(replaced.card.version).toBe('2.0.0');
    expect(replaced.etag).toBe('"v2"');
    await resolver.close();
  });

  it('uses a default TTL without caching headers, never stores no-store, revalidates with If-Modified-Since, shares concurrent fetches', async () => {
    const lastModified = 'Tue, 01 Sep 2026 10:00:00 GMT';
    const peer = await serve((req, res) => {
      const base = `http://127.0.0.1:${peer.port}`;
      if (req.url === '/plain.json') return json(res, 200, agentCard([jsonRpcAt(`${base}/rpc`)]));
      if (req.url === '/nostore.json') return json(res, 200, agentCard([jsonRpcAt(`${base}/rpc`)]), { 'cache-control': 'no-store' });
      if (req.headers['if-modified-since'] === lastModified) return void res.writeHead(304).end();
      json(res, 200, agentCard([jsonRpcAt(`${base}/rpc`)]), { 'last-modified': lastModified, 'cache-control': 'max-age=0' });
    });
    let now = 5_000;
    const resolver = new AgentCardResolver({ egress: LOCAL, defaultTtlMs: 1_000, now: () => now });
    const base = `http://127.0.0.1:${peer.port}`;
    const count = (path: string) => peer.requests.filter((r) => r.url === path).length;

    await Promise.all([resolver.resolve(`${base}/plain.json`), resolver.resolve(`${base}/plain.json`), resolver.resolve(`${base}/plain.json`)]);
    expect(count('/plain.json')).toBe(1);
    now += 999;
    await resolver.resolve(`${base}/plain.json`);
    expect(count('/plain.json')).toBe(1);
    now += 2;
    await resolver.resolve(`${base}/plain.json`);
    expect(count('/plain.json')).toBe(2);

    await resolver.resolve(`${base}/nostore.json`);
    await resolver.resolve(`${base}/nostore.json`);
    expect(count('/nostore.json')).toBe(2);

    await resolver.resolve(`${base}/dated.json`);
    const again = await resolver.resolve(`${base}/dated.json`);
    expect(count('/dated.json')).toBe(2);
    expect(peer.requests.filter((r) => r.url === '/dated.json')[1].headers['if-modified-since']).toBe(lastModified);
    expect(again.lastModified).toBe(lastModified);
    await resolver.close();
  });

  it('a client follows a changed card to its new interface', async () => {
    let path = '/rpc-1';
    const peer = await serve((req, res, body) => {
      if (req.url === '/.well-known/agent-card.json') return json(res, 200, agentCard([jsonRpcAt(`http://127.0.0.1:${peer.port}${path}`)]), { 'cache-control': 'max-age=1' });
      json(res, 200, { jsonrpc: '2.0', id: JSON.parse(body).id, result: { ...TASK, id: req.url } });
    });
    let now = 0;
    const client = new A2AClient({ cardUrl: `http://127.0.0.1:${peer.port}`, egress: LOCAL, circuitBreakers: false, cardCache: { now: () => now } });
    expect((await client.getTask({ id: 'x' })).id).toBe('/rpc-1');
    path = '/rpc-2';
    expect((await client.getTask({ id: 'x' })).id).toBe('/rpc-1');
    now += 1_001;
    expect((await client.getTask({ id: 'x' })).id).toBe('/rpc-2');
    await client.close();
  });

  it('reads a 0.3 card, and the client talks 0.3 to it', async () => {
    const received: Array<{ method: string; params: unknown; version: unknown }> = [];
    const peer = await serve((req, res, body) => {
      if (req.method === 'GET') {
        return json(res, 200, {
          protocolVersion: '0.3.0',
          name: 'legacy',
          description: 'an A2A 0.3 agent',
          version: '1',
          url: `http://127.0.0.1:${peer.port}/rpc`,
          preferredTransport: 'JSONRPC',
          additionalInterfaces: [{ url: `http://127.0.0.1:${peer.port}/rest`, transport: 'HTTP+JSON' }],
          capabilities: { streaming: true },
          securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } },
          security: [{ key: [] }],
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [],
        });
      }
      const { id, method, params } = JSON.parse(body);
      received.push({ method, params, version: req.headers['a2a-version'] });
      json(res, 200, { jsonrpc: '2.0', id, result: { kind: 'message', messageId: 'r-1', role: 'agent', parts: [{ kind: 'text', text: 'hello from 0.3' }] } });
    });
    const resolver = new AgentCardResolver({ egress: LOCAL });
    const resolved = await resolver.resolve(`http://127.0.0.1:${peer.port}`);
    expect(resolved.legacy).toBe(true);
    expect(resolved.card.supportedInterfaces).toEqual([
      { url: `http://127.0.0.1:${peer.port}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: `http://127.0.0.1:${peer.port}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ]);
    expect(resolved.card.securitySchemes).toEqual({ key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } } });
    await resolver.close();
    const client = new A2AClient({ cardUrl: `http://127.0.0.1:${peer.port}`, egress: LOCAL });
    expect(await client.getInterface()).toMatchObject({ binding: 'JSONRPC', protocolVersion: '0.3' });
    expect(await client.sendMessage({ message: userMessage('hi') })).toEqual({ message: { messageId: 'r-1', role: 'ROLE_AGENT', parts: [{ text: 'hello from 0.3' }] } });
    expect(received).toEqual([{ method: 'message/send', params: { message: expect.objectContaining({ kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'hi' }] }), configuration: { blocking: true } }, version: undefined }]);
    await client.close();
  });

  it('a card of an agent that speaks neither 1.0 nor 0.3 is refused clearly', async () => {
    const peer = await serve((_req, res) => json(res, 200, agentCard([{ url: `http://127.0.0.1:${peer.port}/grpc`, protocolBinding: 'GRPC', protocolVersion: '1.0' }, { url: `http://127.0.0.1:${peer.port}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.1' }])));
    const client = new A2AClient({ cardUrl: `http://127.0.0.1:${peer.port}`, egress: LOCAL });
    const error = await client.sendMessage({ message: userMessage('hi') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoCompatibleInterfaceError);
    expect((error as Error).message).toContain('it speaks JSONRPC or HTTP+JSON at A2A 1.0 or 0.3, the card offers GRPC 1.0, JSONRPC 0.1');
    await client.close();
  });

  it('refuses a body that is not a card', async () => {
    const peer = await serve((_req, res) => json(res, 200, { name: 'half a card' }));
    const resolver = new AgentCardResolver({ egress: LOCAL });
    const error = await resolver.resolve(`http://127.0.0.1:${peer.port}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidAgentResponseError);
    expect((error as Error).message).toMatch(/not a valid A2A Agent Card \(description is required; supportedInterfaces is required/);
    await resolver.close();
  });
});

describe('signed Agent Cards (spec §8.4.3)', () => {
  async function signedPeer(tamper = false) {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const signer = { key: privateKey, alg: 'ES256' as const, kid: 'k-1' };
    const jwks = await publicJwks([signer]);
    let cardBody = '';
    const peer = await serve((req, res) => {
      if (req.url === '/jwks.json') return json(res, 200, jwks, { 'cache-control': 'max-age=300' });
      res.writeHead(200, { 'content-type': 'application/json' }).end(cardBody);
    });
    const signed = await signAgentCard(agentCard([jsonRpcAt(`http://127.0.0.1:${peer.port}/rpc`)]), privateKey, signer);
    cardBody = JSON.stringify(tamper ? { ...signed, description: 'tampered after signing' } : signed);
    return { peer, jwks, url: `http://127.0.0.1:${peer.port}`, jwksUrl: `http://127.0.0.1:${peer.port}/jwks.json` };
  }

  it('accepts a card that verifies with the right JWKS, given or fetched (and cached)', async () => {
    const { peer, jwks, url, jwksUrl } = await signedPeer();
    const resolver = new AgentCardResolver({ egress: LOCAL });
    expect((await resolver.resolve(url, { verify: { keys: jwks } })).signature).toMatchObject({ kid: 'k-1', form: 'spec' });
    const byUrl = { jwksUrl };
    expect((await resolver.resolve(url, { verify: byUrl })).signature?.kid).toBe('k-1');
    await resolver.resolve(url, { verify: byUrl });
    expect(peer.requests.filter((r) => r.url === '/jwks.json')).toHaveLength(1);
    await resolver.close();
  });

  it('follows a key rotation: a cached JWKS that verifies nothing is fetched again, once', async () => {
    const first = await generateKeyPair('ES256', { extractable: true });
    const second = await generateKeyPair('ES256', { extractable: true });
    let signer = { key: first.privateKey, alg: 'ES256' as const, kid: 'k-1' };
    let cardBody = '';
    let jwks = await publicJwks([signer]);
    const peer = await serve((req, res) => {
      if (req.url === '/jwks.json') return json(res, 200, jwks, { 'cache-control': 'max-age=3600' });
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' }).end(cardBody);
    });
    const sign = async () => (cardBody = JSON.stringify(await signAgentCard(agentCard([jsonRpcAt(`http://127.0.0.1:${peer.port}/rpc`)]), signer.key, signer)));
    await sign();
    let now = 0;
    const resolver = new AgentCardResolver({ egress: LOCAL, now: () => now });
    const verify = { jwksUrl: `http://127.0.0.1:${peer.port}/jwks.json` };
    expect((await resolver.resolve(`http://127.0.0.1:${peer.port}`, { verify })).signature?.kid).toBe('k-1');

    signer = { key: second.privateKey, alg: 'ES256', kid: 'k-2' };
    jwks = await publicJwks([signer]);
    await sign();
    now += 61_000;
    expect((await resolver.resolve(`http://127.0.0.1:${peer.port}`, { verify })).signature?.kid).toBe('k-2');
    expect(peer.requests.filter((r) => r.url === '/jwks.json')).toHaveLength(2);
    await resolver.close();
  });

  it('refuses a tampered card, a card signed with another key and an unsigned one', async () => {
    const tampered = await signedPeer(true);
    const resolver = new AgentCardResolver({ egress: LOCAL });
    const error = await resolver.resolve(tampered.url, { verify: { keys: tampered.jwks } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CardSignatureError);
    expect((error as CardSignatureError).code).toBe('NO_VALID_SIGNATURE');
    expect((error as Error).message).toContain(`${tampered.url}/.well-known/agent-card.json: Agent Card refused`);

    const client = new A2AClient({ cardUrl: tampered.url, egress: LOCAL, verify: { jwksUrl: tampered.jwksUrl } });
    await expect(client.sendMessage({ message: userMessage('hi') })).rejects.toBeInstanceOf(CardSignatureError);
    // a JWKS fetched just now is not fetched again: the card is simply refused
    expect(tampered.peer.requests.filter((r) => r.url === '/jwks.json')).toHaveLength(1);
    expect(tampered.peer.requests.filter((r) => r.url === '/rpc')).toHaveLength(0);
    await client.close();

    const honest = await signedPeer();
    await expect(resolver.resolve(honest.url, { verify: { keys: tampered.jwks } })).rejects.toMatchObject({ code: 'NO_VALID_SIGNATURE' });
    const unsigned = await serve((_req, res) => json(res, 200, agentCard([jsonRpcAt('http://127.0.0.1:1/rpc')])));
    await expect(resolver.resolve(`http://127.0.0.1:${unsigned.port}`, { verify: { keys: honest.jwks } })).rejects.toMatchObject({ code: 'UNSIGNED' });
    await resolver.close();
  });
});

describe('deadlines: slow and trickling servers are cut', () => {
  it('headers that never come: the overall deadline', async () => {
    const silent = await serve(() => undefined);
    const client = clientFor(agentCard([jsonRpcAt(`http://127.0.0.1:${silent.port}/rpc`)]), { timeoutMs: 300 });
    const started = Date.now();
    const error = await client.getTask({ id: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(A2ATimeoutError);
    expect(error).toMatchObject({ kind: 'deadline', timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(2_000);
    await client.close();
  });

  it('a TLS handshake that never completes: the connect timeout', async () => {
    const mute = await startRawServer(() => undefined); // accepts TCP, never says a word
    open.push(mute);
    const client = clientFor(agentCard([jsonRpcAt(`https://127.0.0.1:${mute.port}/rpc`)]), { connectTimeoutMs: 200, timeoutMs: 5_000, egress: { allowPrivate: true } });
    const started = Date.now();
    const error = await client.getTask({ id: 'x' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'connect', timeoutMs: 200 });
    expect(Date.now() - started).toBeLessThan(2_000);
    await client.close();
  });

  it('a body trickling a byte every 100 ms: the overall deadline', async () => {
    const trickler = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0","id":1,"result":');
      timers.push(setInterval(() => res.write(' '), 100));
    });
    const client = clientFor(agentCard([jsonRpcAt(`http://127.0.0.1:${trickler.port}/rpc`)]), { timeoutMs: 500 });
    const started = Date.now();
    await expect(client.getTask({ id: 'x' })).rejects.toMatchObject({ kind: 'deadline' });
    expect(Date.now() - started).toBeLessThan(2_000);
    await client.close();
  });

  function ssePeer(write: (res: ServerResponse) => void) {
    return serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      write(res);
    });
  }
  const event = (body: unknown, id?: number) => `${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(body)}\n\n`;

  it('a stream that goes silent: the idle timeout, after the events that came', async () => {
    const peer = await ssePeer((res) => res.write(event({ task: TASK }, 1)));
    const client = clientFor(agentCard([restAt(`http://127.0.0.1:${peer.port}/rest`)]), { streamIdleTimeoutMs: 300 });
    const stream = client.subscribeToTask({ id: 't-1' });
    expect(await stream.next()).toMatchObject({ value: { task: { id: 't-1' } } });
    const started = Date.now();
    await expect(stream.next()).rejects.toMatchObject({ kind: 'idle', timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(stream.lastEventId).toBe('1');
    await client.close();
  });

  it('heartbeats keep a quiet stream open; a trickled event that never ends does not', async () => {
    const quiet = await ssePeer((res) => {
      let beats = 0;
      const timer = setInterval(() => {
        if (++beats < 8) return void res.write(': keep-alive\n\n');
        clearInterval(timer);
        res.end(event({ statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } } }));
      }, 100);
      timers.push(timer);
    });
    const client = clientFor(agentCard([restAt(`http://127.0.0.1:${quiet.port}/rest`)]), { streamIdleTimeoutMs: 300 });
    const events = await client.subscribeToTask({ id: 't-1' }).toArray();
    expect(events).toHaveLength(1);
    await client.close();

    const trickler = await ssePeer((res) => {
      const text = `data: ${JSON.stringify({ task: TASK })}`;
      let i = 0;
      timers.push(setInterval(() => res.write(text[i++ % text.length]), 100));
    });
    const cut = clientFor(agentCard([restAt(`http://127.0.0.1:${trickler.port}/rest`)]), { streamIdleTimeoutMs: 400 });
    await expect(cut.subscribeToTask({ id: 't-1' }).toArray()).rejects.toMatchObject({ kind: 'idle' });
    await cut.close();
  });

  it('an event larger than maxResponseBytes ends the stream', async () => {
    const peer = await ssePeer((res) => res.write(`data: ${'x'.repeat(5000)}`));
    const client = clientFor(agentCard([restAt(`http://127.0.0.1:${peer.port}/rest`)]), { maxResponseBytes: 1024 });
    await expect(client.subscribeToTask({ id: 't-1' }).toArray()).rejects.toBeInstanceOf(InvalidAgentResponseError);
    await client.close();
  });

  it('errors inside a stream: REST `event: error`, REST data with `error`, a JSON-RPC error response', async () => {
    const notFound = { code: 404, status: 'NOT_FOUND', message: 'gone', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }] };
    const rest = await ssePeer((res) => res.end(`${event({ task: TASK })}event: error\ndata: ${JSON.stringify({ error: notFound })}\n\n`));
    const plain = await ssePeer((res) => res.end(`${event({ task: TASK })}${event({ error: notFound })}`));
    const rpc = await ssePeer((res) => res.end(`${event({ jsonrpc: '2.0', id: 1, result: { task: TASK } })}${event({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'gone' } })}`));
    for (const card of [agentCard([restAt(`http://127.0.0.1:${rest.port}/rest`)]), agentCard([restAt(`http://127.0.0.1:${plain.port}/rest`)]), agentCard([jsonRpcAt(`http://127.0.0.1:${rpc.port}/rpc`)])]) {
      const client = clientFor(card);
      const stream = client.subscribeToTask({ id: 't-1' });
      expect(await stream.next()).toMatchObject({ value: { task: { id: 't-1' } } });
      const error = await stream.next().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaskNotFoundError);
      expect((error as Error).message).toBe('gone');
      await client.close();
    }
  });
});

describe('retries (cockatiel, exponential backoff with jitter)', () => {
  /** Fails `failures` times with `status`, then answers like an agent. */
  async function flaky(failures: number, status = 503, headers: Record<string, string> = {}) {
    let count = 0;
    const peer = await serve((req, res, body) => {
      if (++count <= failures) return void res.writeHead(status, headers).end('busy');
      if (req.url === '/rpc') {
        const call = JSON.parse(body);
        return json(res, 200, { jsonrpc: '2.0', id: call.id, result: call.method === 'SendMessage' ? { task: TASK } : TASK });
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ${JSON.stringify({ task: TASK })}\n\n`);
    });
    return peer;
  }
  const fast = { retry: { initialDelayMs: 10, maxDelayMs: 50 } };

  it('GetTask is retried through two 503s; SendStreamingMessage is not', async () => {
    const peer = await flaky(2);
    const client = clientFor(agentCard([jsonRpcAt(`http://127.0.0.1:${peer.port}/rpc`)]), fast);
    expect((await client.getTask({ id: 't-1' })).id).toBe('t-1');
    expect(peer.requests).toHaveLength(3);
    await client.close();

    const streaming = await flaky(2);
    const streamer = clientFor(agentCard([restAt(`http://127.0.0.1:${streaming.port}/rest`)]), fast);
    const error = await streamer.sendStreamingMessage({ message: userMessage('hi') }).toArray().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(A2AHttpError);
    expect((error as A2AHttpError).statusCode).toBe(503);
    expect(streaming.requests).toHaveLength(1);
    // SubscribeToTask may be opened again: nothing was delivered yet
    expect(await streamer.subscribeToTask({ id: 't-1' }).toArray()).toEqual([{ task: TASK }]);
    expect(streaming.requests).toHaveLength(3);
    await streamer.close();
  });

  it('SendMessage is retried with the very same request, hence the same messageId; CreateTaskPushNotificationConfig is not', async () => {
    const peer = await flaky(2);
    const client = clientFor(agentCard([jsonRpcAt(`http://127.0.0.1:${peer.port}/rpc`)]), fast);
    await client.sendMessage({ message: userMessage('once', { messageId: 'm-fixed' }) });
    const sent = peer.requests.map((r) => JSON.parse(r.body).params.message.messageId);
    expect(sent).toEqual(['m-fixed', 'm-fixed', 'm-fixed']);
    await client.close();

    const other = await flaky(1);
    const creator = clientFor(agentCard([jsonRpcAt(`http://127.0.0.1:${other.port}/rpc`)]), fast);
    await expect(creator.createTaskPushNotificationConfig({ taskId: 't-1', url: 'https://hooks.example.com/x' })).rejects.toMatchObject({ statusCode: 503 });
    expect(other.requests).toHaveLength(1);
    await creator.close();

    const never = await flaky(1);
    const noRetry = clientFor(agentCard([jsonRpcAt(`http://127.0.0.1:${never.port}/rpc`)]), { ...fast, retry: { ...fast.retry, sendMessage: false } });
    await expect(noRetry.sendMessage({ message: userMessage('x') })).rejects.toMatchObject({ statusCode: 503 });
    expect(never.requests).toHaveLength(1);
    await noRetry.close();
  });

  it('429 honours Retry-After up to the cap', async () => {
    const polite = await flaky(1, 429, { 'retry-after': '1' });
    const client = clientFor(agentCard([jsonRpcAt(`http://127.0.0.1:${polite.port}/rpc`)]), fast);
    const started = Date.now();
    await client.getTask({ id: 't-1' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(polite.requests).toHaveLength(2);
    await client.close();

    const greedy = await flaky(1, 429, { 'retry-after': '120' });
    const capped = clientFor(agentCard([jsonRpcAt(`http://127.0.0.1:${greedy.port}/rpc`)]), { retry: { maxRetryAfterMs: 5_000 } });
    await expect(capped.getTask({ id: 't-1' })).rejects.toMatchObject({ statusCode: 429 });
    expect(greedy.requests).toHaveLength(1);
    await capped.close();
  });

  it('a refused connection is transient; a 4xx answer is not', async () => {
    const port = await freePort();
    const client = clientFor(agentCard([jsonRpcAt(`http://127.0.0.1:${port}/rpc`)]), fast);
    const error = await client.getTask({ id: 't-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EgressRequestError);
    expect((error as EgressRequestError).code).toBe('ECONNREFUSED');
    await client.close();

    const strict = await flaky(5, 400);
    const once = clientFor(agentCard([jsonRpcAt(`http://127.0.0.1:${strict.port}/rpc`)]), fast);
    await expect(once.getTask({ id: 't-1' })).rejects.toMatchObject({ statusCode: 400 });
    expect(strict.requests).toHaveLength(1);
    await once.close();
  });
});

describe('circuit breaker per origin (cockatiel ConsecutiveBreaker)', () => {
  it('opens after consecutive failures, fails fast without a request, closes after a successful half-open trial', async () => {
    let healthy = false;
    const peer = await serve((_req, res, body) => {
      if (!healthy) return void res.writeHead(503).end();
      json(res, 200, { jsonrpc: '2.0', id: JSON.parse(body).id, result: TASK });
    });
    const origin = `http://127.0.0.1:${peer.port}`;
    const breakers = new A2ACircuitBreakers({ failureThreshold: 3, halfOpenAfterMs: 300 });
    const card = agentCard([jsonRpcAt(`${origin}/rpc`)]);
    const a = clientFor(card, { circuitBreakers: breakers, retry: false });
    const b = clientFor(card, { circuitBreakers: breakers, retry: false });
    for (let i = 0; i < 3; i++) await expect(a.getTask({ id: 't-1' })).rejects.toMatchObject({ statusCode: 503 });
    expect(breakers.state(origin)).toBe('open');
    const error = await b.getTask({ id: 't-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CircuitOpenError);
    expect((error as Error).message).toContain(`${origin}: circuit breaker open`);
    expect(peer.requests).toHaveLength(3);

    healthy = true;
    await new Promise((r) => setTimeout(r, 350));
    expect((await b.getTask({ id: 't-1' })).id).toBe('t-1');
    expect(breakers.state(origin)).toBe('closed');
    await a.close();
    await b.close();
  });

  it('A2A error answers do not count: the peer is alive', async () => {
    const peer = await serve((_req, res, body) => json(res, 200, { jsonrpc: '2.0', id: JSON.parse(body).id, error: { code: -32001, message: 'no' } }));
    const breakers = new A2ACircuitBreakers({ failureThreshold: 2 });
    const client = clientFor(agentCard([jsonRpcAt(`http://127.0.0.1:${peer.port}/rpc`)]), { circuitBreakers: breakers });
    for (let i = 0; i < 4; i++) await expect(client.getTask({ id: 'x' })).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(breakers.state(`http://127.0.0.1:${peer.port}`)).toBe('closed');
    await client.close();
  });

  it('by default every client of the process shares one breaker per origin', async () => {
    const peer = await serve((req, res) => res.writeHead(503).end());
    const card = agentCard([jsonRpcAt(`http://127.0.0.1:${peer.port}/rpc`)]);
    const a = new A2AClient({ card, egress: LOCAL, retry: false });
    const b = new A2AClient({ card, egress: LOCAL, retry: false });
    for (let i = 0; i < A2ACircuitBreakers.shared.failureThreshold; i++) await expect(a.getTask({ id: 'x' })).rejects.toMatchObject({ statusCode: 503 });
    await expect(b.getTask({ id: 'x' })).rejects.toBeInstanceOf(CircuitOpenError);
    await a.close();
    await b.close();
  });
});

describe('redirects are answers, never followed', () => {
  it('a redirected card and a redirected operation fail with A2AHttpError; the target is never asked', async () => {
    const elsewhere = await serve((_req, res) => json(res, 200, {}));
    const peer = await serve((_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${elsewhere.port}/card.json?token=SECRET-1` }).end());
    const resolver = new AgentCardResolver({ egress: LOCAL });
    const error = await resolver.resolve(`http://127.0.0.1:${peer.port}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(A2AHttpError);
    expect((error as A2AHttpError).statusCode).toBe(302);
    expect((error as Error).message).toContain('redirects are not followed');
    expect((error as Error).message).not.toContain('SECRET-1');
    const client = clientFor(agentCard([restAt(`http://127.0.0.1:${peer.port}/rest`)]));
    await expect(client.getTask({ id: 't-1' })).rejects.toMatchObject({ statusCode: 302 });
    expect(elsewhere.connections).toHaveLength(0);
    await resolver.close();
    await client.close();
  });
});

describe('egress policy on card and interface URLs', () => {
  it('refuses a loopback card URL unless private addresses are allowed, before any connection', async () => {
    const peer = await serve((_req, res) => json(res, 200, {}));
    const strict = new A2AClient({ cardUrl: `http://127.0.0.1:${peer.port}` });
    await expect(strict.getAgentCard()).rejects.toMatchObject({ name: 'EgressRefusedError', reason: 'scheme' });
    await strict.close();
    const httpOnly = new A2AClient({ cardUrl: `http://127.0.0.1:${peer.port}`, egress: { allowHttp: true } });
    await expect(httpOnly.getAgentCard()).rejects.toMatchObject({ reason: 'loopback' });
    await httpOnly.close();
    expect(peer.connections).toHaveLength(0);
  });

  it('refuses interface URLs on private or metadata addresses (checked, never dialled), and names that resolve to one', async () => {
    // private addresses are allowed here, so only refused kinds are listed: nothing may be dialled
    const peer = await serve((_req, res) => json(res, 200, agentCard([jsonRpcAt('http://169.254.169.254/latest/rpc'), restAt('http://192.0.2.7/rest')])));
    const client = new A2AClient({ cardUrl: `http://127.0.0.1:${peer.port}`, egress: LOCAL });
    const error = await client.getTask({ id: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EgressRefusedError);
    expect((error as EgressRefusedError).reason).toBe('metadata');
    await client.close();

    const httpOnly = clientFor(agentCard([restAt('http://10.0.0.7/rest')]), { egress: { allowHttp: true } });
    await expect(httpOnly.getTask({ id: 'x' })).rejects.toMatchObject({ reason: 'private' });
    await httpOnly.close();

    const lookup = fakeLookup({ 'peer.example': ['10.1.2.3'] });
    const rebinding = clientFor(agentCard([restAt('http://peer.example/rest')]), { egress: { allowHttp: true, lookup } });
    await expect(rebinding.getTask({ id: 'x' })).rejects.toMatchObject({ reason: 'private' });
    expect(lookup.calls).toEqual(['peer.example']);
    await rebinding.close();
  });
});

describe('errors never show a URL secret', () => {
  it('the query of a card or interface URL stays out of every message', async () => {
    const secret = 'SECRET-TOKEN-42';
    const failing = await serve((_req, res) => res.writeHead(500).end('boom'));
    const silent = await serve(() => undefined);
    const gonePort = await freePort();
    const attempts: Array<Promise<unknown>> = [
      new AgentCardResolver({ egress: LOCAL, retry: false }).resolve(`http://127.0.0.1:${failing.port}/card.json?token=${secret}`),
      clientFor(agentCard([restAt(`http://127.0.0.1:${failing.port}/rest?token=${secret}`)]), { retry: false }).getTask({ id: 'x' }),
      clientFor(agentCard([restAt(`http://127.0.0.1:${silent.port}/rest?token=${secret}`)]), { timeoutMs: 200 }).getTask({ id: 'x' }),
      clientFor(agentCard([restAt(`http://127.0.0.1:${gonePort}/rest?token=${secret}`)]), { retry: false }).getTask({ id: 'x' }),
      clientFor(agentCard([restAt(`http://10.0.0.1/rest?token=${secret}`)]), { egress: { allowHttp: true } }).getTask({ id: 'x' }),
      new A2AClient({ cardUrl: `http://user:${secret}@127.0.0.1:${failing.port}/`, egress: LOCAL }).getAgentCard(),
    ];
    const errors = await Promise.all(attempts.map((p) => p.then(() => undefined, (e: unknown) => e)));
    expect(errors.map((e) => (e as Error).name)).toEqual(['A2AHttpError', 'A2AHttpError', 'A2ATimeoutError', 'EgressRequestError', 'EgressRefusedError', 'EgressRefusedError']);
    for (const error of errors) {
      expect(messages(error)).not.toContain(secret);
      expect(JSON.stringify(error)).not.toContain(secret);
    }
    expect((errors[1] as Error).message).toContain('token=REDACTED');
  });
});

describe('the REST subscription falls back to GET', () => {
  it('POST …:subscribe answered 405 → GET, remembered for the next subscription', async () => {
    const peer = await serve((req, res) => {
      if (req.method === 'POST') return void res.writeHead(405, { allow: 'GET' }).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ${JSON.stringify({ task: TASK })}\n\n`);
    });
    const client = clientFor(agentCard([restAt(`http://127.0.0.1:${peer.port}/rest`)]));
    expect(await client.subscribeToTask({ id: 't-1' }).toArray()).toEqual([{ task: TASK }]);
    expect(await client.subscribeToTask({ id: 't-1' }, { lastEventId: '3' }).toArray()).toEqual([{ task: TASK }]);
    expect(peer.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /rest/tasks/t-1:subscribe', 'GET /rest/tasks/t-1:subscribe', 'GET /rest/tasks/t-1:subscribe']);
    expect(peer.requests[2].headers['last-event-id']).toBe('3');
    await client.close();
  });

  it('a TaskNotFound 404 is an answer, not an unknown route', async () => {
    const peer = await serve((_req, res) =>
      json(res, 404, { error: { code: 404, status: 'NOT_FOUND', message: 'no task', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }] } }),
    );
    const client = clientFor(agentCard([restAt(`http://127.0.0.1:${peer.port}/rest`)]));
    await expect(client.subscribeToTask({ id: 't-1' }).toArray()).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(peer.requests).toHaveLength(1);
    await client.close();
  });
});

describe('answers that are not A2A', () => {
  it('an invalid result is InvalidAgentResponseError naming the field', async () => {
    const peer = await serve((_req, res, body) => json(res, 200, { jsonrpc: '2.0', id: JSON.parse(body).id, result: { id: 't-1', status: { state: 'working' } } }));
    const client = clientFor(agentCard([jsonRpcAt(`http://127.0.0.1:${peer.port}/rpc`)]));
    const error = await client.getTask({ id: 't-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidAgentResponseError);
    expect((error as Error).message).toContain('status.state must be one of');
    await client.close();
  });

  it('an HTML error page is an A2AHttpError; a JSON body that is no JSON-RPC response is InvalidAgentResponse', async () => {
    const peer = await serve((req, res) => {
      if (req.url === '/html') return void res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>');
      json(res, 200, [1, 2, 3]);
    });
    const html = clientFor(agentCard([jsonRpcAt(`http://127.0.0.1:${peer.port}/html`)]), { retry: false });
    await expect(html.getTask({ id: 't-1' })).rejects.toMatchObject({ name: 'A2AHttpError', statusCode: 502 });
    const list = clientFor(agentCard([jsonRpcAt(`http://127.0.0.1:${peer.port}/list`)]));
    await expect(list.getTask({ id: 't-1' })).rejects.toBeInstanceOf(InvalidAgentResponseError);
    await html.close();
    await list.close();
  });
});
