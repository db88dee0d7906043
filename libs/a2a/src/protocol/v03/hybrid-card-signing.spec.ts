/**
 * The hybrid card signed for both versions: the 1.0 signatures, and per signer those over the
 * card's A2A 0.3 view (what a2a-python 0.3 verifies). Which of them our verifier counts, on a
 * hybrid card and on a pure 0.3 one. The 0.3 verifier itself (a port of a2a-python's) checks the
 * served cards in test/signed-card-v03.e2e-spec.ts.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { verifyAgentCardSignature, type AgentCard as SdkV1Card } from '@a2a-js/sdk';
import * as jose from 'jose';
import { signedCardBody, signedV03HybridBody, type CardSigningAlgorithm } from '../card-signing.js';
import { verifyAgentCard, type CardVerificationOptions } from '../card-verification.js';
import type { AgentCard } from '../types.js';
import { v03CardPayloads } from './card-payload.js';

afterEach(() => {
  jest.restoreAllMocks();
});

/** No empty value in a security field, and a `false` (so two 0.3 payloads). */
const CARD: AgentCard = {
  name: 'research',
  description: 'Finds sources ✓',
  version: '2.0.0',
  supportedInterfaces: [
    { url: 'https://agents.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'https://agents.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    { url: 'https://agents.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
  ],
  capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
  securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } } },
  securityRequirements: [{ schemes: { bearer: { list: ['read'] } } }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'topic', name: 'Topic', description: 'Research a topic', tags: ['research'] }],
};

/** What a 0.3-only server would serve: the hybrid card without its 1.0 members. */
function pureV03(hybrid: Record<string, unknown>): Record<string, unknown> {
  const { supportedInterfaces: _i, securityRequirements: _r, ...rest } = hybrid;
  const schemes = rest.securitySchemes as Record<string, Record<string, unknown>>;
  return {
    ...rest,
    securitySchemes: Object.fromEntries(Object.entries(schemes).map(([name, s]) => [name, Object.fromEntries(Object.entries(s).filter(([k]) => !k.endsWith('SecurityScheme')))])),
  };
}

const formOf = (signature: { protected: string }): unknown => jose.decodeProtectedHeader({ protected: signature.protected, payload: '', signature: '' })['nestjs-a2a-payload'];
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

async function keyPair(alg: CardSigningAlgorithm): Promise<{ privateKey: jose.CryptoKey | Uint8Array; publicKey: jose.CryptoKey | Uint8Array; options: CardVerificationOptions }> {
  if (alg === 'HS256') {
    const secret = new Uint8Array(32).map((_, i) => i * 7 + 1);
    return { privateKey: secret, publicKey: secret, options: { algorithms: ['HS256'] } };
  }
  return { ...(await jose.generateKeyPair(alg, { extractable: true })), options: {} };
}

describe.each<CardSigningAlgorithm>(['ES256', 'RS256', 'EdDSA', 'HS256'])('signedV03HybridBody with %s', (alg) => {
  it('keeps the 1.0 signatures first and adds one per 0.3 payload, marked v03, each verifying over that payload', async () => {
    const { privateKey, publicKey } = await keyPair(alg);
    const signed = await signedCardBody(CARD, [{ key: privateKey, alg, kid: 'k1' }]);
    const { hybrid, body } = await signedV03HybridBody(signed.card, [{ key: privateKey, alg, kid: 'k1' }]);
    expect(JSON.parse(body)).toEqual(hybrid);
    const signatures = hybrid.signatures as { protected: string; signature: string }[];
    expect(signatures.slice(0, 1)).toEqual(signed.card.signatures);
    expect(signatures.map(formOf)).toEqual(['spec', 'v03', 'v03']);
    const payloads = v03CardPayloads(JSON.parse(body) as Record<string, unknown>);
    expect(payloads).toHaveLength(2); // `pushNotifications: false`: a2a-python 0.3.21–0.3.23 strip it
    for (const [i, payload] of payloads.entries()) {
      const jws = { ...signatures[1 + i], payload: jose.base64url.encode(payload) };
      await expect(jose.flattenedVerify(jws, publicKey)).resolves.toMatchObject({ protectedHeader: { alg, kid: 'k1', typ: 'JOSE' } });
    }
  });
});

describe('a hybrid card signed for both versions, to 1.0 verifiers', () => {
  it('verifies by its 1.0 signature with ours and the @a2a-js/sdk 1.x verifier; a change to a 1.0 field is refused though the 0.3 signatures do not cover it', async () => {
    jest.spyOn(console, 'debug').mockImplementation(() => undefined); // the SDK verifier reports each signature it passes over
    const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
    const signers = [{ key: privateKey, alg: 'ES256' as const, kid: 'k1' }];
    const { hybrid } = await signedV03HybridBody((await signedCardBody(CARD, signers)).card, signers);
    await expect(verifyAgentCard(clone(hybrid), publicKey)).resolves.toMatchObject({ index: 0, form: 'spec' });
    await expect(verifyAgentCardSignature(async () => publicKey)(clone(hybrid) as unknown as SdkV1Card)).resolves.toBeUndefined();

    // the 1.0 interfaces are outside the 0.3 view: only the 1.0 signature covers them, and it no longer verifies
    const moved = clone(hybrid) as { supportedInterfaces: { url: string }[] };
    moved.supportedInterfaces[0].url = 'https://evil.example.com/a2a';
    const error = await verifyAgentCard(moved, publicKey).catch((e: unknown) => e as Error);
    expect(error).toMatchObject({ code: 'NO_VALID_SIGNATURE' });
    expect((error as Error).message).toMatch(/#1 kid k1: a signature over the card's A2A 0.3 view, made for 0.3 verifiers; it does not cover the 1.0 fields/);
    await expect(verifyAgentCardSignature(async () => publicKey)(moved as unknown as SdkV1Card)).rejects.toThrow();
  });
});

describe('a card read as 0.3, to our verifier', () => {
  it('verifies by a v03 signature (form v03), and refuses it changed', async () => {
    const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
    const signers = [{ key: privateKey, alg: 'ES256' as const, kid: 'k1' }];
    const { hybrid } = await signedV03HybridBody((await signedCardBody(CARD, signers)).card, signers);
    const card = pureV03(hybrid);
    await expect(verifyAgentCard(card, publicKey)).resolves.toMatchObject({ index: 1, form: 'v03', uncovered: [] });
    for (const changed of [{ ...card, url: 'https://evil.example.com/a2a' }, { ...card, security: [] }, { ...card, skills: [] }, { ...card, preferredTransport: 'HTTP+JSON' }]) {
      await expect(verifyAgentCard(changed, publicKey)).rejects.toMatchObject({ code: 'NO_VALID_SIGNATURE' });
    }
  });

  it('checks an undeclared signature (as a2a-python 0.3 signs) in the 0.3 form only when sdkForm allows', async () => {
    const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
    const card = pureV03((await signedV03HybridBody(CARD, [])).hybrid);
    const [payload] = v03CardPayloads(card);
    const jws = await new jose.FlattenedSign(new TextEncoder().encode(payload)).setProtectedHeader({ alg: 'ES256', typ: 'JOSE', kid: 'py' }).sign(privateKey);
    const signedCard = { ...card, signatures: [{ protected: jws.protected!, signature: jws.signature }] };
    await expect(verifyAgentCard(signedCard, publicKey)).rejects.toMatchObject({ code: 'NO_VALID_SIGNATURE' });
    await expect(verifyAgentCard(signedCard, publicKey, { sdkForm: true })).resolves.toMatchObject({ form: 'v03', kid: 'py' });
  });

  it('refuses a 0.3-form signature that leaves a security requirement uncovered (a2a-python 0.3 strips `{"apiKey": []}`)', async () => {
    const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
    const open: AgentCard = {
      ...CARD,
      securitySchemes: { ...CARD.securitySchemes, apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } } },
      securityRequirements: [...CARD.securityRequirements!, { schemes: { apiKey: {} } }],
    };
    const signers = [{ key: privateKey, alg: 'ES256' as const, kid: 'k1' }];
    const card = pureV03((await signedV03HybridBody((await signedCardBody(open, signers)).card, signers)).hybrid);
    expect(card.security).toEqual([{ bearer: ['read'] }, { apiKey: [] }]);
    await expect(verifyAgentCard(card, publicKey)).rejects.toThrow(/it verifies in the A2A 0.3 form only, which does not cover the empty security\[1\]/);
  });
});
