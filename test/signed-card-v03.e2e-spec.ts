/**
 * A signed Agent Card served beside A2A 0.3 stays verifiable by the verifiers of both versions:
 * the hybrid card (and `agent.json`) by a2a-python 0.3's verifier (a port: see
 * ./support/a2a-python-v03-verifier.ts), the pure and the hybrid card by the @a2a-js/sdk 1.x
 * verifier and ours, and each card through our client's resolver, a pure 0.3 one included. A
 * tampered card is refused by each.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { verifyAgentCardSignature, type AgentCard as SdkAgentCard } from '@a2a-js/sdk';
import { generateKeyPair, importJWK, type CryptoKey, type JWK, type JSONWebKeySet } from 'jose';
import { A2AAgent, A2AModule, type AgentExecutor, type CardSigningAlgorithm, type TaskContext } from 'nestjs-a2a';
import { AgentCardResolver, verifyAgentCard } from 'nestjs-a2a/client';
import { startHttpServer } from 'nestjs-a2a/testing';
import { V03_CANONICAL_CARD, V03_CANONICAL_PAYLOAD, V03_CANONICAL_PAYLOAD_0321 } from '../libs/a2a/src/protocol/v03/testing/card-canonical-fixture.js';
import { canonicalizeAgentCard, createSignatureVerifier, InvalidSignaturesError, ValidationError, type V03Release } from './support/a2a-python-v03-verifier.js';
import { startApp } from './support/custom-app.js';
import { startDemo, type RunningApp } from './support/demo-app.js';
import type { Json } from './support/wire-client.js';

const LOCAL = { allowHttp: true, allowPrivate: true } as const;
const RELEASES: V03Release[] = ['0.3.26', '0.3.21'];
const ALGORITHMS = ['ES256', 'RS256', 'EdDSA'];

// the SDK's verifier reports each signature it passes over on console.debug
beforeAll(() => {
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
});

/** The key of a signature as a client finds it: `jku` → JWKS → `kid` (our JWKS is on 127.0.0.1). */
async function keyFromJku(kid: string | undefined, jku: string | undefined): Promise<CryptoKey> {
  const jwks = (await (await fetch(jku!)).json()) as JSONWebKeySet;
  const jwk = jwks.keys.find((k) => k.kid === kid)!;
  return (await importJWK(jwk as JWK, jwk.alg)) as CryptoKey;
}

const v03Verify = (card: Json, release: V03Release) => createSignatureVerifier(keyFromJku, ALGORITHMS, release)(card);
const sdkVerify = (card: Json) => verifyAgentCardSignature(keyFromJku)(card as SdkAgentCard);
const get = async (url: string, headers: Record<string, string> = {}): Promise<Json> => (await fetch(url, { headers })).json();
const formsOf = (card: Json): unknown[] => card.signatures.map((s: Json) => JSON.parse(Buffer.from(s.protected, 'base64url').toString())['nestjs-a2a-payload']);

describe('the 0.3 reference verifier', () => {
  it('canonicalises as the real a2a-python 0.3.26 and 0.3.21 do', () => {
    expect(canonicalizeAgentCard(JSON.parse(JSON.stringify(V03_CANONICAL_CARD)), '0.3.26')).toBe(V03_CANONICAL_PAYLOAD);
    expect(canonicalizeAgentCard(JSON.parse(JSON.stringify(V03_CANONICAL_CARD)), '0.3.21')).toBe(V03_CANONICAL_PAYLOAD_0321);
  });
});

describe('the demo with DEMO_SIGN_CARD=1 and DEMO_API_KEYS (v03 on)', () => {
  let demo: RunningApp;
  let jwks: JSONWebKeySet;
  beforeAll(async () => {
    demo = await startDemo({ DEMO_SIGN_CARD: '1', DEMO_API_KEYS: 'alice:k1' });
    jwks = (await get(`${demo.url}/.well-known/jwks.json`)) as JSONWebKeySet;
  });
  afterAll(() => demo.close());

  it('serves a hybrid card and agent.json that the 0.3 verifier accepts (both releases), and a tampered one it refuses', async () => {
    for (const path of ['/.well-known/agent-card.json', '/.well-known/agent.json', '/agents/support/.well-known/agent.json']) {
      const card = await get(`${demo.url}${path}`);
      expect(formsOf(card)).toEqual(['spec', 'sdk', 'v03', 'v03']);
      for (const release of RELEASES) {
        await expect(v03Verify(card, release)).resolves.toBeUndefined();
        for (const tampered of [
          { ...card, description: 'Something else' },
          { ...card, url: 'https://evil.example.com/a2a' },
          { ...card, additionalInterfaces: [{ url: 'https://evil.example.com/a2a', transport: 'JSONRPC' }] },
          { ...card, skills: [...card.skills, { id: 'x', name: 'X', description: 'x', tags: ['x'] }] },
        ]) {
          await expect(v03Verify(tampered, release)).rejects.toThrow(InvalidSignaturesError);
        }
      }
    }
  });

  it('keeps the pure 1.0 card to 1.0 signatures, which the 0.3 model cannot even read (no url)', async () => {
    const pure = await get(`${demo.url}/.well-known/agent-card.json`, { 'A2A-Version': '1.0' });
    expect(formsOf(pure)).toEqual(['spec', 'sdk']);
    await expect(v03Verify(pure, '0.3.26')).rejects.toThrow(ValidationError);
  });

  it('has the 1.0 verifiers (ours, @a2a-js/sdk 1.x) accept the pure and the hybrid card, and refuse them tampered', async () => {
    const pure = await get(`${demo.url}/.well-known/agent-card.json`, { 'A2A-Version': '1.0' });
    for (const card of [pure, await get(`${demo.url}/.well-known/agent-card.json`), await get(`${demo.url}/.well-known/agent.json`)]) {
      await expect(verifyAgentCard(card, jwks)).resolves.toMatchObject({ index: 0, form: 'spec' });
      await expect(sdkVerify(card)).resolves.toBeUndefined();
      const tampered = { ...card, supportedInterfaces: [{ ...card.supportedInterfaces[0], url: 'https://evil.example.com/a2a' }] };
      await expect(verifyAgentCard(tampered, jwks)).rejects.toThrow();
      await expect(sdkVerify(tampered)).rejects.toThrow();
    }
  });

  it('has our resolver verify the pure and the hybrid card against the JWKS URL', async () => {
    const resolver = new AgentCardResolver({ egress: LOCAL });
    const verify = { jwksUrl: `${demo.url}/.well-known/jwks.json` };
    try {
      await expect(resolver.resolve(demo.url, { verify })).resolves.toMatchObject({ legacy: false, signature: { form: 'spec' } });
      const pure = new AgentCardResolver({ egress: LOCAL, headers: { 'A2A-Version': '1.0' } });
      await expect(pure.resolve(demo.url, { verify })).resolves.toMatchObject({ legacy: false, signature: { form: 'spec' } });
      await pure.close();
    } finally {
      await resolver.close();
    }
  });
});

@A2AAgent({ name: 'signed', description: 'Signs its card for 1.0 and 0.3 readers ✓', skills: [{ id: 's', name: 'S', description: 's', tags: ['s'] }] })
@Injectable()
class SignedAgent implements AgentExecutor {
  execute(ctx: TaskContext) {
    return ctx.reply('ok');
  }
}

describe.each<[CardSigningAlgorithm, () => Promise<CryptoKey>]>([
  ['ES256', async () => (await generateKeyPair('ES256', { extractable: true })).privateKey],
  ['RS256', async () => (await generateKeyPair('RS256', { extractable: true })).privateKey],
  ['EdDSA', async () => (await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true })).privateKey],
])('a module with v03 on, signing with %s', (alg, makeKey) => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp(A2AModule.forRoot({ v03: true, signing: { keys: [{ key: await makeKey(), alg, kid: `${alg}-key` }] } }), [SignedAgent]);
  });
  afterAll(() => running.close());

  it('serves hybrid cards every verifier accepts, on the root and the per-agent paths', async () => {
    const jwks = (await get(`${running.url}/.well-known/jwks.json`)) as JSONWebKeySet;
    for (const path of ['/.well-known/agent-card.json', '/.well-known/agent.json', '/agents/signed/.well-known/agent-card.json']) {
      const card = await get(`${running.url}${path}`);
      for (const release of RELEASES) await expect(v03Verify(card, release)).resolves.toBeUndefined();
      await expect(v03Verify({ ...card, name: 'evil' }, '0.3.26')).rejects.toThrow(InvalidSignaturesError);
      await expect(verifyAgentCard(card, jwks)).resolves.toMatchObject({ kid: `${alg}-key`, form: 'spec' });
      await expect(sdkVerify(card)).resolves.toBeUndefined();
    }
  });

  it('a pure 0.3 card made of the hybrid one (its 1.0 members gone) verifies through our resolver, in the 0.3 form', async () => {
    const { supportedInterfaces: _i, ...pure03 } = await get(`${running.url}/.well-known/agent.json`);
    const tampered = { ...pure03, url: 'https://evil.example.com/a2a' };
    const cards = await startHttpServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.url?.startsWith('/tampered') ? tampered : pure03));
    });
    const resolver = new AgentCardResolver({ egress: LOCAL });
    try {
      const verify = { jwksUrl: `${running.url}/.well-known/jwks.json` };
      await expect(resolver.resolve(`http://127.0.0.1:${cards.port}/pure`, { verify })).resolves.toMatchObject({ legacy: true, signature: { form: 'v03', kid: `${alg}-key` } });
      await expect(resolver.resolve(`http://127.0.0.1:${cards.port}/tampered`, { verify })).rejects.toMatchObject({ code: 'NO_VALID_SIGNATURE' });
      await expect(v03Verify(pure03, '0.3.26')).resolves.toBeUndefined();
    } finally {
      await resolver.close();
      await cards.close();
    }
  });
});
