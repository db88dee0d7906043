/**
 * Signed Agent Cards as served: the demo's DEMO_SIGN_CARD=1, and a module signing with each
 * algorithm, verified by our helper and by the official @a2a-js/sdk verifier from the served JWKS.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { verifyAgentCardSignature, type AgentCard as SdkAgentCard } from '@a2a-js/sdk';
import { generateKeyPair, importJWK, type JWK, type JSONWebKeySet } from 'jose';
import { randomBytes } from 'node:crypto';
import { A2AAgent, A2AModule, type AgentExecutor, type CardSigner, type TaskContext } from 'nestjs-a2a';
import { verifyAgentCard } from 'nestjs-a2a/client';
import { startApp } from './support/custom-app.js';
import { startDemo, type RunningApp } from './support/demo-app.js';
import { describeOnEachPlatform } from './support/platforms.js';
import type { Json } from './support/wire-client.js';

type SdkKey = Parameters<Parameters<typeof verifyAgentCardSignature>[0]> extends never ? never : Awaited<ReturnType<Parameters<typeof verifyAgentCardSignature>[0]>>;

// the SDK's verifier reports each signature it could not use on console.debug
beforeAll(() => {
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
});

/** The SDK's verifier, fetching the key the way a client would: `jku` → JWKS → `kid`. */
async function sdkVerify(card: Json): Promise<void> {
  await verifyAgentCardSignature(async (kid, jku) => {
    const jwks = (await (await fetch(jku!)).json()) as JSONWebKeySet;
    const jwk = jwks.keys.find((k) => k.kid === kid)!;
    return (await importJWK(jwk as JWK, jwk.alg)) as SdkKey;
  })(card as SdkAgentCard);
}

const decodeHeader = (card: Json, i = 0) => JSON.parse(Buffer.from(card.signatures[i].protected, 'base64url').toString());

describeOnEachPlatform('the demo with DEMO_SIGN_CARD=1 (and DEMO_API_KEYS)', () => {
  let demo: RunningApp;
  beforeAll(async () => {
    demo = await startDemo({ DEMO_SIGN_CARD: '1', DEMO_API_KEYS: 'alice:k1' });
  });
  afterAll(() => demo.close());

  it('serves a card signed with kid, typ JOSE and a jku naming the public JWKS', async () => {
    const card: Json = await (await fetch(`${demo.url}/.well-known/agent-card.json`)).json();
    const header = decodeHeader(card);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'JOSE', kid: expect.stringMatching(/^demo-/), jku: `${demo.url}/.well-known/jwks.json` });
    const jwksResponse = await fetch(header.jku); // no credentials: the JWKS is public
    expect(jwksResponse.status).toBe(200);
    const jwks = (await jwksResponse.json()) as JSONWebKeySet;
    expect(jwks.keys).toEqual([expect.objectContaining({ kid: header.kid, kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' })]);
    expect(jwks.keys[0]).not.toHaveProperty('d');
    await expect(verifyAgentCard(card, jwks)).resolves.toMatchObject({ kid: header.kid, form: 'spec' });
    await expect(sdkVerify(card)).resolves.toBeUndefined();
  });

  it('fails verification once the card is tampered with', async () => {
    const card: Json = await (await fetch(`${demo.url}/.well-known/agent-card.json`)).json();
    const jwks = (await (await fetch(`${demo.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    for (const tampered of [
      { ...card, description: 'Something else' },
      { ...card, supportedInterfaces: [{ ...card.supportedInterfaces[0], url: 'https://evil.example.com/a2a' }] },
      { ...card, skills: [...card.skills, { id: 'x', name: 'X', description: 'x', tags: ['x'] }] },
    ]) {
      await expect(verifyAgentCard(tampered, jwks)).rejects.toThrow();
      await expect(sdkVerify(tampered)).rejects.toThrow();
    }
    // dropping the scope-less requirement `{apiKey: {}}`: the SDKs' canonical form strips empty
    // values, so their verifier cannot see it (a2a-js #627); ours verifies the spec form and does
    await expect(verifyAgentCard({ ...card, securityRequirements: undefined }, jwks)).rejects.toThrow();
  });

  it('signs once: the served bytes, ETag included, stay the same until the card changes', async () => {
    const a = await fetch(`${demo.url}/.well-known/agent-card.json`);
    const b = await fetch(`${demo.url}/.well-known/agent-card.json`);
    expect(a.headers.get('etag')).toBe(b.headers.get('etag'));
    expect(await a.text()).toBe(await b.text());
  });
});

@A2AAgent({ name: 'signed', description: 'Signs its card', skills: [{ id: 's', name: 'S', description: 's', tags: ['s'] }] })
@Injectable()
class SignedAgent implements AgentExecutor {
  execute(ctx: TaskContext) {
    return ctx.reply('ok');
  }
}

describe.each([
  ['ES256', async () => (await generateKeyPair('ES256', { extractable: true })).privateKey],
  ['RS256', async () => (await generateKeyPair('RS256', { extractable: true })).privateKey],
  ['EdDSA', async () => (await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true })).privateKey],
] as const)('a module signing with %s', (alg, makeKey) => {
  let running: RunningApp;
  beforeAll(async () => {
    const signer: CardSigner = { key: await makeKey(), alg, kid: `${alg}-key` };
    running = await startApp(A2AModule.forRoot({ signing: { keys: [signer] } }), [SignedAgent]);
  });
  afterAll(() => running.close());

  it('serves a card both verifiers accept, on the root and the per-agent path', async () => {
    for (const path of ['/.well-known/agent-card.json', '/agents/signed/.well-known/agent-card.json']) {
      const card: Json = await (await fetch(`${running.url}${path}`)).json();
      expect(decodeHeader(card)).toMatchObject({ alg, kid: `${alg}-key`, typ: 'JOSE' });
      const jwks = (await (await fetch(`${running.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
      await expect(verifyAgentCard(card, jwks)).resolves.toMatchObject({ kid: `${alg}-key` });
      await expect(sdkVerify(card)).resolves.toBeUndefined();
    }
  });
});

describe('a module signing with HS256 (a shared secret)', () => {
  let running: RunningApp;
  const secret = new Uint8Array(randomBytes(32));
  beforeAll(async () => {
    running = await startApp(A2AModule.forRoot({ signing: { keys: [{ key: secret, alg: 'HS256', kid: 'shared' }] } }), [SignedAgent]);
  });
  afterAll(() => running.close());

  it('verifies with the shared secret on both verifiers, and publishes no key', async () => {
    const card: Json = await (await fetch(`${running.url}/.well-known/agent-card.json`)).json();
    await expect(verifyAgentCard(card, secret, { algorithms: ['HS256'] })).resolves.toMatchObject({ kid: 'shared' });
    const sdkKey = await importJWK({ kty: 'oct', k: Buffer.from(secret).toString('base64url') }, 'HS256');
    await expect(verifyAgentCardSignature(async () => sdkKey as SdkKey)(card as SdkAgentCard)).resolves.toBeUndefined();
    expect(await (await fetch(`${running.url}/.well-known/jwks.json`)).json()).toEqual({ keys: [] });
  });
});

describeOnEachPlatform('unsigned cards', () => {
  it('have no JWKS', async () => {
    const running = await startApp(A2AModule.forRoot(), [SignedAgent]);
    try {
      expect((await fetch(`${running.url}/.well-known/jwks.json`)).status).toBe(404);
      const card: Json = await (await fetch(`${running.url}/.well-known/agent-card.json`)).json();
      expect(card.signatures).toBeUndefined();
    } finally {
      await running.close();
    }
  });
});

describe('a signing key that cannot sign', () => {
  it('fails start-up with a clear error', async () => {
    const { publicKey } = await generateKeyPair('ES256');
    await expect(startApp(A2AModule.forRoot({ signing: { keys: [{ key: publicKey, alg: 'ES256', kid: 'pub' }] } }), [SignedAgent])).rejects.toThrow(
      /key "pub" cannot sign with ES256/,
    );
  });
});
