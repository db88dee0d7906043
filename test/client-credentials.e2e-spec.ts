/**
 * Where the client's credentials go (issue 17 item 6): to the card URL's origin; to an interface
 * the card names at another origin only when the card's signature verified against the caller's
 * keys or that origin is allowed; on discovery only when asked. Two hand-written peers on
 * 127.0.0.1 (two ports, two origins), and the assertions are on what each of them saw.
 */
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { generateKeyPair, type CryptoKey } from 'jose';
import {
  A2AClient,
  CardSignatureError,
  CredentialsWithheldError,
  InvalidClientOptionsError,
  publicJwks,
  signAgentCard,
  type A2ABinding,
  type A2AClientOptions,
  type AgentCard,
} from 'nestjs-a2a';
import { startHttpServer, type LoopbackServer } from '../libs/a2a/src/net/testing/loopback-server.js';
import { userMessage } from './support/wire-client.js';

const LOCAL = { egress: { allowHttp: true, allowPrivate: true }, circuitBreakers: false } as const;
const TOKEN = 'Bearer s3cr3t-token';
const TASK = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } };

const open: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** An agent's endpoints (either binding; SSE for streams); it records every request. */
function agentHandler(req: IncomingMessage, res: ServerResponse, body: string): void {
  if (req.url?.includes('message:stream') || (req.url?.endsWith('/rpc') && body.includes('SendStreamingMessage'))) {
    const rpc = req.url.endsWith('/rpc');
    const id = rpc ? (JSON.parse(body) as { id: unknown }).id : undefined;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`data: ${JSON.stringify(rpc ? { jsonrpc: '2.0', id, result: { task: TASK } } : { task: TASK })}\n\n`);
    return;
  }
  if (req.url?.endsWith('/rpc')) {
    const { id, method } = JSON.parse(body) as { id: unknown; method: string };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: method === 'GetTask' ? TASK : { task: TASK } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/a2a+json' }).end(JSON.stringify(req.url?.includes('/tasks/') ? TASK : { task: TASK }));
}

function cardNaming(api: string): AgentCard {
  return {
    name: 'elsewhere',
    description: 'a card whose interfaces are on another origin',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${api}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${api}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 'S', description: 'a skill', tags: ['t'] }],
  };
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<LoopbackServer> {
  const server = await startHttpServer(handler);
  open.push(server);
  return server;
}

/** A card server (origin A) serving `card`, and the agent (origin B) that card names. */
async function twoOrigins(card: (api: string) => Promise<AgentCard> | AgentCard = cardNaming): Promise<{ cards: LoopbackServer; api: LoopbackServer; cardUrl: string; apiOrigin: string }> {
  const api = await serve(agentHandler);
  const apiOrigin = `http://127.0.0.1:${api.port}`;
  const body = JSON.stringify(await card(apiOrigin));
  const cards = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  return { cards, api, cardUrl: `http://127.0.0.1:${cards.port}`, apiOrigin };
}

const authorizations = (server: LoopbackServer): (string | undefined)[] => server.requests.map((r) => r.headers.authorization);

async function callAll(client: A2AClient): Promise<unknown[]> {
  const outcomes: unknown[] = [];
  outcomes.push(await client.sendMessage({ message: userMessage('hi') }).catch((e: unknown) => e));
  outcomes.push(await client.getTask({ id: 't-1' }).catch((e: unknown) => e));
  outcomes.push(await client.sendStreamingMessage({ message: userMessage('hi') }).toArray().catch((e: unknown) => e));
  return outcomes;
}

describe.each<A2ABinding>(['JSONRPC', 'HTTP+JSON'])('%s: credentials and the card', (binding) => {
  let keys: { privateKey: CryptoKey; publicKey: CryptoKey };
  beforeAll(async () => {
    keys = await generateKeyPair('ES256', { extractable: true });
  });

  const clientOf = (cardUrl: string, extra: Partial<A2AClientOptions> = {}): A2AClient =>
    new A2AClient({ cardUrl, preferredBinding: binding, ...LOCAL, headers: { authorization: TOKEN }, ...extra });

  it('an unsigned card naming an interface on another origin: the token never reaches that origin, and nothing is sent there', async () => {
    const { cards, api, cardUrl, apiOrigin } = await twoOrigins();
    const client = clientOf(cardUrl);
    const outcomes = await callAll(client);
    for (const outcome of outcomes) {
      expect(outcome).toBeInstanceOf(CredentialsWithheldError);
      expect((outcome as CredentialsWithheldError).origin).toBe(apiOrigin);
      expect((outcome as Error).message).not.toContain('s3cr3t');
    }
    expect(api.requests).toEqual([]);
    // discovery sent no credential either
    expect(cards.requests.length).toBeGreaterThan(0);
    expect(authorizations(cards)).toEqual(cards.requests.map(() => undefined));
    await client.close();
  });

  it('a headers provider is asked, and whatever it answers for another origin is withheld; one that answers nothing goes through', async () => {
    const { api, cardUrl } = await twoOrigins();
    const asked: string[] = [];
    const withToken = new A2AClient({
      cardUrl,
      preferredBinding: binding,
      ...LOCAL,
      headers: (request) => {
        asked.push(`${request.operation} ${new URL(request.url).port}`);
        return { authorization: TOKEN };
      },
    });
    await expect(withToken.getTask({ id: 't-1' })).rejects.toBeInstanceOf(CredentialsWithheldError);
    expect(asked).toEqual([`GetTask ${api.port}`]);
    expect(api.requests).toEqual([]);
    await withToken.close();

    // a public agent: no headers to withhold, so the card's interface is called as it says
    const anonymous = new A2AClient({ cardUrl, preferredBinding: binding, ...LOCAL, headers: () => undefined });
    await expect(anonymous.getTask({ id: 't-1' })).resolves.toMatchObject({ id: 't-1' });
    expect(authorizations(api)).toEqual([undefined]);
    await anonymous.close();
  });

  it('per-call headers are withheld the same way', async () => {
    const { api, cardUrl } = await twoOrigins();
    const client = new A2AClient({ cardUrl, preferredBinding: binding, ...LOCAL });
    await expect(client.getTask({ id: 't-1' }, { headers: { authorization: TOKEN } })).rejects.toBeInstanceOf(CredentialsWithheldError);
    expect(api.requests).toEqual([]);
    await client.close();
  });

  it('an allowed origin (credentialOrigins) gets the token', async () => {
    const { cards, api, cardUrl, apiOrigin } = await twoOrigins();
    const client = clientOf(cardUrl, { credentialOrigins: [`${apiOrigin}/any/path`] });
    const outcomes = await callAll(client);
    expect(outcomes.filter((o) => o instanceof Error)).toEqual([]);
    expect(api.requests).toHaveLength(3);
    expect(authorizations(api)).toEqual([TOKEN, TOKEN, TOKEN]);
    expect(authorizations(cards)).toEqual(cards.requests.map(() => undefined));
    await client.close();
  });

  it('a card whose signature verifies against a trusted key gets the token at the origin it names', async () => {
    const { api, cardUrl } = await twoOrigins((origin) => signAgentCard(cardNaming(origin), keys.privateKey, { alg: 'ES256', kid: 'k1' }));
    const jwks = await publicJwks([{ key: keys.privateKey, alg: 'ES256', kid: 'k1' }]);
    const client = clientOf(cardUrl, { verify: { keys: jwks } });
    const outcomes = await callAll(client);
    expect(outcomes.filter((o) => o instanceof Error)).toEqual([]);
    expect(authorizations(api)).toEqual([TOKEN, TOKEN, TOKEN]);
    await client.close();
  });

  it('a signed card checked against another key is refused: nothing reaches either origin beyond the card fetch', async () => {
    const { api, cardUrl } = await twoOrigins((origin) => signAgentCard(cardNaming(origin), keys.privateKey, { alg: 'ES256', kid: 'k1' }));
    const other = await generateKeyPair('ES256', { extractable: true });
    const client = clientOf(cardUrl, { verify: { keys: await publicJwks([{ key: other.privateKey, alg: 'ES256', kid: 'k1' }]) } });
    await expect(client.getTask({ id: 't-1' })).rejects.toBeInstanceOf(CardSignatureError);
    expect(api.requests).toEqual([]);
    await client.close();
  });

  it('a signed card that is not verified (no verify option) counts as unsigned', async () => {
    const { api, cardUrl } = await twoOrigins((origin) => signAgentCard(cardNaming(origin), keys.privateKey, { alg: 'ES256', kid: 'k1' }));
    const client = clientOf(cardUrl);
    await expect(client.getTask({ id: 't-1' })).rejects.toBeInstanceOf(CredentialsWithheldError);
    expect(api.requests).toEqual([]);
    await client.close();
  });

  it('the card on its own origin: the token goes with every call, never with discovery unless discoveryHeaders asks', async () => {
    const same: LoopbackServer = await serve((req, res, body) => {
      if (req.url === '/.well-known/agent-card.json') {
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(cardNaming(`http://127.0.0.1:${same.port}`)));
      }
      agentHandler(req, res, body);
    });
    const cardUrl = `http://127.0.0.1:${same.port}`;
    const client = clientOf(cardUrl);
    expect((await callAll(client)).filter((o) => o instanceof Error)).toEqual([]);
    const seen = same.requests.map((r) => [r.url === '/.well-known/agent-card.json' ? 'card' : 'call', r.headers.authorization]);
    expect(seen).toEqual([['card', undefined], ['call', TOKEN], ['call', TOKEN], ['call', TOKEN]]);
    await client.close();

    same.requests.length = 0;
    const asking = clientOf(cardUrl, { discoveryHeaders: { authorization: 'Bearer card-only' } });
    await asking.getTask({ id: 't-1' });
    expect(same.requests.map((r) => r.headers.authorization)).toEqual(['Bearer card-only', TOKEN]);
    await asking.close();
  });
});

it('a card given in hand is the caller\'s own configuration: its origins get the headers', async () => {
  const api = await serve(agentHandler);
  const client = new A2AClient({ card: cardNaming(`http://127.0.0.1:${api.port}`), ...LOCAL, headers: { authorization: TOKEN } });
  await client.getTask({ id: 't-1' });
  expect(authorizations(api)).toEqual([TOKEN]);
  await client.close();
});

it('credentialOrigins must be http(s) URLs, and the message never repeats the value', () => {
  const error = (() => {
    try {
      new A2AClient({ cardUrl: 'https://agent.example.com', credentialOrigins: ['ftp://secret@x', 'not a url'] });
    } catch (e) {
      return e;
    }
  })();
  expect(error).toBeInstanceOf(InvalidClientOptionsError);
  expect((error as InvalidClientOptionsError).problems).toEqual([
    'credentialOrigins: entry 0 must be an absolute http(s) URL or origin',
    'credentialOrigins: entry 1 must be an absolute http(s) URL or origin',
  ]);
});
