/**
 * The extended card over A2A 0.3 (`agent/getAuthenticatedExtendedCard`, and `GET {rest}/v1/card`):
 * the caller's own card as 0.3 readers read it, -32007 when none is configured for the caller, and
 * the official a2a-js 0.3 client's `getAgentCard()`, which asks for it when the card says so.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from 'a2a-sdk-v03/client';
import { A2AModule } from 'nestjs-a2a';
import { startApp } from './support/custom-app.js';
import type { RunningApp } from './support/demo-app.js';
import { BearerGuard, VaultAgent } from './support/vault-agent.js';
import type { Json } from './support/wire-client.js';

let running: RunningApp;
beforeAll(async () => {
  running = await startApp(A2AModule.forRoot({ v03: true, guards: [BearerGuard] }), [VaultAgent]);
});
afterAll(() => running.close());

const bearer = (name: string) => ({ Authorization: `Bearer t-${name}` });

async function rpc(method: string, headers: Record<string, string>): Promise<Json> {
  const res = await fetch(`${running.url}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }) });
  return res.json();
}

describe('the extended card over 0.3', () => {
  it('the public hybrid card says there is one', async () => {
    const card: Json = await (await fetch(`${running.url}/.well-known/agent-card.json`)).json();
    expect(card).toMatchObject({ supportsAuthenticatedExtendedCard: true, security: [{ bearer: [] }], securitySchemes: { bearer: { type: 'http', scheme: 'Bearer' } } });
  });

  it('JSON-RPC: the caller’s card as a hybrid card; -32007 for a caller without one', async () => {
    const gold = await rpc('agent/getAuthenticatedExtendedCard', bearer('gold'));
    expect(gold.result).toMatchObject({ name: 'vault', description: 'Gold description', protocolVersion: '0.3', url: `${running.url}/a2a/jsonrpc`, skills: [{ id: 'gold' }] });
    const basic = await rpc('agent/getAuthenticatedExtendedCard', bearer('ann'));
    expect(basic.error).toMatchObject({ code: -32007, data: { reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED' } });
  });

  it('REST: GET /v1/card answers the card in the 0.3 proto JSON', async () => {
    const res = await fetch(`${running.url}/a2a/rest/v1/card`, { headers: bearer('gold') });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: 'vault', description: 'Gold description', protocolVersion: '0.3', skills: [{ id: 'gold' }] });
    const basic = await fetch(`${running.url}/a2a/rest/v1/card`, { headers: bearer('ann') });
    expect(basic.status).toBe(400);
    expect(await basic.json()).toMatchObject({ code: -32007 });
  });

  it.each([
    ['JSONRPC', () => new JsonRpcTransportFactory({ fetchImpl: goldFetch })],
    ['HTTP+JSON', () => new RestTransportFactory({ fetchImpl: goldFetch })],
  ] as const)('the a2a-js 0.3 client’s getAgentCard() gets the extended card (%s)', async (transport, factoryOf) => {
    const client = await new ClientFactory({ transports: [factoryOf()], preferredTransports: [transport] }).createFromUrl(running.url);
    expect(await client.getAgentCard()).toMatchObject({ name: 'vault', description: 'Gold description', skills: [{ id: 'gold' }] });
  });
});

/** fetch with the gold caller's credentials, as an app gives the SDK its auth. */
function goldFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  return fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init.headers).entries()), ...bearer('gold') } });
}
