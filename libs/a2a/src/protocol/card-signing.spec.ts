/**
 * Agent Card signing (spec digest §6.6, §11 row 20): canonical payload, JWS with a detached
 * payload, verification, JWKS, and interop with the official @a2a-js/sdk in both directions.
 */
import { afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { canonicalizeAgentCard, generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';
import { createSecretKey, generateKeyPairSync } from 'node:crypto';
import canonicalize from 'canonicalize';
import * as jose from 'jose';
import { serializeAgentCard } from './agent-card.js';
import { canonicalCardPayload, sdkCardPayload } from './card-payload.js';
import { CardSigningError, publicJwks, signAgentCard, signedCardBody, type CardSigningAlgorithm, type CardSigningKey } from './card-signing.js';
import { CardSignatureError, verifyAgentCard, type CardKeySource, type CardVerificationOptions } from './card-verification.js';
import type { AgentCard } from './types.js';

/** The SDK's own AgentCard type (ts-proto), which our JSON cards are on the wire. */
type SdkCard = Parameters<ReturnType<typeof verifyAgentCardSignature>>[0];
type SdkKey = Parameters<typeof generateAgentCardSignature>[0];
const asSdk = (card: unknown): SdkCard => card as SdkCard;

/** A complete card without empty values: its spec form and SDK form are the same bytes. */
const CARD: AgentCard = {
  name: 'Recipe Agent',
  description: 'Helps with recipes',
  version: '1.2.0',
  supportedInterfaces: [
    { url: 'https://agent.example.com/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'https://agent.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ],
  provider: { url: 'https://example.com', organization: 'Example Org' },
  documentationUrl: 'https://example.com/docs',
  capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: true, extensions: [{ uri: 'https://example.com/ext/x', required: true, params: { level: 2, on: false } }] },
  securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } } },
  securityRequirements: [{ schemes: { bearer: { list: ['recipes:read'] } } }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'application/json'],
  skills: [{ id: 'recipes', name: 'Recipes', description: 'Find recipes ünïcödé 🍝', tags: ['cooking'], examples: ['pasta'] }],
};

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

interface KeySet {
  alg: CardSigningAlgorithm;
  privateKey: jose.CryptoKey;
  publicKey: jose.CryptoKey;
  privateJwk: jose.JWK;
  publicJwk: jose.JWK;
  /** A second key of the same type: the wrong key. */
  otherPublicKey: jose.CryptoKey;
  otherPublicJwk: jose.JWK;
  /** What a verifier passes for this algorithm (HS256 must be asked for). */
  verifyOptions: CardVerificationOptions;
}

async function keysFor(alg: CardSigningAlgorithm): Promise<KeySet> {
  const generate = async (): Promise<{ privateKey: jose.CryptoKey; publicKey: jose.CryptoKey }> => {
    if (alg === 'HS256') {
      const secret = (await jose.generateSecret('HS256', { extractable: true })) as jose.CryptoKey;
      return { privateKey: secret, publicKey: secret };
    }
    return jose.generateKeyPair(alg, { extractable: true });
  };
  const own = await generate();
  const other = await generate();
  return {
    alg,
    ...own,
    privateJwk: await jose.exportJWK(own.privateKey),
    publicJwk: await jose.exportJWK(own.publicKey),
    otherPublicKey: other.publicKey,
    otherPublicJwk: await jose.exportJWK(other.publicKey),
    verifyOptions: alg === 'HS256' ? { algorithms: ['HS256'] } : {},
  };
}

const ALGORITHMS: CardSigningAlgorithm[] = ['ES256', 'RS256', 'EdDSA', 'HS256'];
const KID = 'card-key-1';
const JKU = 'https://agent.example.com/.well-known/jwks.json';

/** The JWKS a verifier holds: the served one, or for HS256 (never served) a local one with the secret. */
async function verifierJwks(keys: KeySet): Promise<jose.JSONWebKeySet> {
  if (keys.alg === 'HS256') return { keys: [{ ...keys.privateJwk, kid: KID, alg: 'HS256' }] };
  return publicJwks([{ key: keys.privateKey, alg: keys.alg, kid: KID }]);
}

function decodeHeader(card: AgentCard, index = 0): jose.ProtectedHeaderParameters {
  return jose.decodeProtectedHeader({ protected: card.signatures![index].protected, payload: '', signature: '' });
}

async function expectRejected(promise: Promise<unknown>, code: CardSignatureError['code'] = 'NO_VALID_SIGNATURE', reason?: RegExp): Promise<CardSignatureError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CardSignatureError);
  const e = error as CardSignatureError;
  expect(e.code).toBe(code);
  if (reason) expect(e.message).toMatch(reason);
  return e;
}

const silenceSdkDebug = (): void => {
  // the SDK verifier reports each failed signature through console.debug
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
};

afterEach(() => {
  jest.restoreAllMocks();
});

// ---------------------------------------------------------------------------------------------
describe('canonicalCardPayload (§8.4.1)', () => {
  it('canonicalises the spec worked example exactly as stated', () => {
    const example = { name: 'Example Agent', description: '', capabilities: { streaming: false, pushNotifications: false, extensions: [] }, skills: [] };
    expect(canonicalCardPayload(example)).toBe(
      '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}',
    );
  });

  it('gives the SDK form of the worked example as the digest states, and as a2a-js computes it', () => {
    const example = { name: 'Example Agent', description: '', capabilities: { streaming: false, pushNotifications: false, extensions: [] }, skills: [] };
    const expected = '{"capabilities":{"pushNotifications":false,"streaming":false},"name":"Example Agent"}';
    expect(sdkCardPayload(example)).toBe(expected);
    expect(canonicalizeAgentCard(asSdk(example))).toBe(expected);
  });

  it.each([
    ['streaming: false explicitly set stays', { capabilities: { streaming: false } }, '"capabilities":{"streaming":false}'],
    ['pushNotifications: false explicitly set stays', { capabilities: { pushNotifications: false } }, '"capabilities":{"pushNotifications":false}'],
    ['extendedAgentCard: false explicitly set stays', { capabilities: { extendedAgentCard: false } }, '"capabilities":{"extendedAgentCard":false}'],
    ['unset optional booleans are absent', { capabilities: {} }, '"capabilities":{}'],
    ['documentationUrl: "" explicitly set stays', { documentationUrl: '' }, '"documentationUrl":""'],
    ['iconUrl: "" explicitly set stays', { iconUrl: '' }, '"iconUrl":""'],
    ['a REQUIRED empty string stays', { description: '' }, '"description":""'],
    ['a REQUIRED empty list stays', { skills: [] }, '"skills":[]'],
  ])('%s', (_name, fields, fragment) => {
    const payload = canonicalCardPayload({ name: 'A', ...fields });
    expect(payload).toContain(fragment);
  });

  it('leaves unset optional fields out, and does not invent absent REQUIRED ones', () => {
    expect(canonicalCardPayload({ name: 'A', capabilities: {} })).toBe('{"capabilities":{},"name":"A"}');
  });

  it.each([
    ['an empty non-required list', { capabilities: { extensions: [] } }, '{"capabilities":{},"name":"A"}'],
    ['an empty map', { securitySchemes: {} }, '{"name":"A"}'],
    ['a non-presence false', { capabilities: { extensions: [{ uri: 'u', required: false }] } }, '{"capabilities":{"extensions":[{"uri":"u"}]},"name":"A"}'],
    ['an empty non-required string', { supportedInterfaces: [{ url: 'u', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }] }, '{"name":"A","supportedInterfaces":[{"protocolBinding":"JSONRPC","protocolVersion":"1.0","url":"u"}]}'],
    ['null (ProtoJSON: not set)', { documentationUrl: null, provider: null }, '{"name":"A"}'],
    ['unknown fields (0.3 hybrid card)', { url: 'https://x', protocolVersion: '0.3', preferredTransport: 'JSONRPC', supportsAuthenticatedExtendedCard: true }, '{"name":"A"}'],
    ['the signatures', { signatures: [{ protected: 'x', signature: 'y' }] }, '{"name":"A"}'],
  ])('drops %s', (_name, fields, expected) => {
    expect(canonicalCardPayload({ name: 'A', ...fields })).toBe(expected);
  });

  it('reads snake_case names as their camelCase fields', () => {
    expect(canonicalCardPayload({ name: 'A', default_input_modes: ['text/plain'] })).toBe('{"defaultInputModes":["text/plain"],"name":"A"}');
  });

  it('keeps a Struct as given (nested defaults are JSON values, not fields)', () => {
    const payload = canonicalCardPayload({ name: 'A', capabilities: { extensions: [{ uri: 'u', params: { b: '', a: [], c: null, d: 0 } }] } });
    expect(payload).toBe('{"capabilities":{"extensions":[{"params":{"a":[],"b":"","c":null,"d":0},"uri":"u"}]},"name":"A"}');
  });

  it('is RFC 8785: members sorted by UTF-16 code units, ECMAScript numbers, minimal escaping', () => {
    const payload = canonicalCardPayload({ name: 'A\u00e9\u20ac\n"', capabilities: { extensions: [{ uri: 'u', params: { '\u20ac': 1, '\ud83d\ude00': 2, a: 1e21, b: 0.000001, c: 1.5e-7, z: 100 } }] } });
    expect(payload).toBe('{"capabilities":{"extensions":[{"params":{"a":1e+21,"b":0.000001,"c":1.5e-7,"z":100,"\u20ac":1,"\ud83d\ude00":2},"uri":"u"}]},"name":"Aé€\\n\\""}');
  });

  it('is the payload of the served bytes: the same before and after a serialise/parse round trip', () => {
    expect(canonicalCardPayload(JSON.parse(serializeAgentCard(CARD)))).toBe(canonicalCardPayload(CARD));
  });
});

// ---------------------------------------------------------------------------------------------
describe('sdkCardPayload replicates a2a-js canonicalizeAgentCard', () => {
  const cards: Array<[string, Record<string, unknown>]> = [
    ['the complete card', clone(CARD) as unknown as Record<string, unknown>],
    ['a bearer requirement without scopes', { ...clone(CARD), securityRequirements: [{ schemes: { bearer: {} } }] }],
    ['an mTLS scheme without description', { ...clone(CARD), securitySchemes: { m: { mtlsSecurityScheme: {} } } }],
    ['empty REQUIRED fields', { ...clone(CARD), description: '', skills: [], defaultInputModes: [] }],
    ['empties inside a Struct', { ...clone(CARD), capabilities: { extensions: [{ uri: 'u', params: { a: '', b: [], c: {}, d: null, e: 0, f: false, g: [1, '', null] } }] } }],
    ['capabilities: {}', { ...clone(CARD), capabilities: {} }],
    ['optional strings set to ""', { ...clone(CARD), documentationUrl: '', iconUrl: '' }],
    ['a 0.3 hybrid card', { ...clone(CARD), url: 'https://x', protocolVersion: '0.3', preferredTransport: 'JSONRPC', additionalInterfaces: [{ url: 'https://y', transport: 'GRPC' }] }],
    ['snake_case names', { name: 'A', default_input_modes: ['text/plain'], capabilities: { push_notifications: true } }],
    ['OAuth scopes {} (REQUIRED map)', { ...clone(CARD), securitySchemes: { o: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://t', scopes: {} } } } } } }],
  ];
  it.each(cards)('%s', (_name, card) => {
    expect(sdkCardPayload(card)).toBe(canonicalizeAgentCard(asSdk(card)));
  });
});

// ---------------------------------------------------------------------------------------------
describe.each(ALGORITHMS)('%s', (alg) => {
  let keys: KeySet;
  let signed: AgentCard;

  beforeAll(async () => {
    keys = await keysFor(alg);
    signed = await signAgentCard(CARD, keys.privateKey, { alg, kid: KID, jku: JKU });
  });

  describe('signAgentCard', () => {
    it('appends one { protected, signature } with the protected header { alg, typ: JOSE, kid, jku } saying its payload form (spec)', () => {
      expect(signed.signatures).toHaveLength(1);
      expect(Object.keys(signed.signatures![0]).sort()).toEqual(['protected', 'signature']);
      expect(decodeHeader(signed)).toEqual({ alg, typ: 'JOSE', kid: KID, jku: JKU, 'nestjs-a2a-payload': 'spec' });
      expect(signed.signatures![0].signature).toMatch(/^[A-Za-z0-9_-]+$/); // base64url, no padding
    });

    it('signs the detached §8.4.1 payload: a plain flattened JWS over canonicalCardPayload verifies', async () => {
      const payload = jose.base64url.encode(canonicalCardPayload(CARD));
      const { protectedHeader } = await jose.flattenedVerify({ ...signed.signatures![0], payload }, keys.publicKey);
      expect(protectedHeader).toEqual({ alg, typ: 'JOSE', kid: KID, jku: JKU, 'nestjs-a2a-payload': 'spec' });
    });

    it('accepts the key as a private JWK, taking kid and alg from it', async () => {
      const card = await signAgentCard(CARD, { ...keys.privateJwk, kid: 'from-jwk', alg });
      expect(decodeHeader(card)).toEqual({ alg, typ: 'JOSE', kid: 'from-jwk', 'nestjs-a2a-payload': 'spec' });
      await expect(verifyAgentCard(card, keys.publicKey, keys.verifyOptions)).resolves.toMatchObject({ kid: 'from-jwk', form: 'spec' });
    });

    it('keeps earlier signatures (key rotation) and does not change the card', async () => {
      const twice = await signAgentCard(signed, keys.privateKey, { alg, kid: 'card-key-2' });
      expect(twice.signatures).toHaveLength(2);
      expect(twice.signatures![0]).toEqual(signed.signatures![0]);
      expect(CARD.signatures).toBeUndefined();
      expect({ ...twice, signatures: undefined }).toEqual({ ...CARD, signatures: undefined });
    });
  });

  describe('verifyAgentCard', () => {
    it('verifies through the served JWKS (matched by kid)', async () => {
      const jwks = await verifierJwks(keys);
      await expect(verifyAgentCard(clone(signed), jwks, keys.verifyOptions)).resolves.toEqual({
        index: 0,
        kid: KID,
        header: { alg, typ: 'JOSE', kid: KID, jku: JKU, 'nestjs-a2a-payload': 'spec' },
        form: 'spec',
        uncovered: [],
      });
    });

    it('verifies with a single key and with a single JWK', async () => {
      await expect(verifyAgentCard(clone(signed), keys.publicKey, keys.verifyOptions)).resolves.toMatchObject({ kid: KID, form: 'spec' });
      await expect(verifyAgentCard(clone(signed), keys.publicJwk, keys.verifyOptions)).resolves.toMatchObject({ kid: KID });
    });

    it('verifies through a resolver that receives the protected header (kid, jku)', async () => {
      const seen: jose.ProtectedHeaderParameters[] = [];
      const resolver: CardKeySource = async (header) => {
        seen.push(header);
        return header.kid === KID && header.jku === JKU ? keys.publicKey : undefined;
      };
      await expect(verifyAgentCard(clone(signed), resolver, keys.verifyOptions)).resolves.toMatchObject({ kid: KID });
      expect(seen).toEqual([{ alg, typ: 'JOSE', kid: KID, jku: JKU, 'nestjs-a2a-payload': 'spec' }]);
    });

    it('ignores unknown fields added to the card (they are not covered, as in the SDKs)', async () => {
      const hybrid = { ...clone(signed), url: 'https://agent.example.com/a2a/v1', protocolVersion: '0.3', preferredTransport: 'JSONRPC' };
      await expect(verifyAgentCard(hybrid, keys.publicKey, keys.verifyOptions)).resolves.toMatchObject({ form: 'spec' });
    });

    const tampered: Array<[string, (card: AgentCard) => void]> = [
      ['name changed', (c) => void (c.name = 'Evil Agent')],
      ['description changed', (c) => void (c.description = 'Helps with recipes!')],
      ['interface url changed', (c) => void (c.supportedInterfaces[0].url = 'https://evil.example.com/a2a/v1')],
      ['interface removed', (c) => void c.supportedInterfaces.pop()],
      ['a skill added', (c) => void c.skills.push({ id: 'evil', name: 'Evil', description: 'Does evil', tags: ['evil'] })],
      ['a skill tag changed', (c) => void (c.skills[0].tags = ['baking'])],
      ['capabilities.streaming flipped', (c) => void (c.capabilities.streaming = true)],
      ['capabilities.streaming unset (false → absent)', (c) => void delete c.capabilities.streaming],
      ['extension required flipped', (c) => void (c.capabilities.extensions![0].required = false)],
      ['extension params changed', (c) => void (c.capabilities.extensions![0].params = { level: 3, on: false })],
      ['security requirement removed', (c) => void delete c.securityRequirements],
      ['scope removed from a requirement', (c) => void (c.securityRequirements![0].schemes!.bearer = { list: [] })],
      ['documentationUrl removed', (c) => void delete c.documentationUrl],
      ['iconUrl added', (c) => void (c.iconUrl = 'https://evil.example.com/icon.png')],
      ['version changed', (c) => void (c.version = '1.2.1')],
      ['a signature byte changed', (c) => {
        const sig = c.signatures![0].signature;
        c.signatures![0].signature = sig.slice(0, 10) + (sig[10] === 'A' ? 'B' : 'A') + sig.slice(11);
      }],
      ['the protected header re-encoded with another kid', (c) => {
        c.signatures![0].protected = jose.base64url.encode(JSON.stringify({ alg, typ: 'JOSE', kid: KID, jku: 'https://evil.example.com/jwks.json' }));
      }],
    ];
    it.each(tampered)('rejects a tampered card: %s', async (_name, tamper) => {
      const card = clone(signed);
      tamper(card);
      await expectRejected(verifyAgentCard(card, keys.publicKey, keys.verifyOptions));
      await expectRejected(verifyAgentCard(card, await verifierJwks(keys), keys.verifyOptions));
    });

    it('rejects the wrong key: single key, single JWK, and a JWKS whose key for that kid is another', async () => {
      await expectRejected(verifyAgentCard(clone(signed), keys.otherPublicKey, keys.verifyOptions));
      await expectRejected(verifyAgentCard(clone(signed), keys.otherPublicJwk, keys.verifyOptions));
      await expectRejected(verifyAgentCard(clone(signed), { keys: [{ ...keys.otherPublicJwk, kid: KID }] }, keys.verifyOptions));
    });

    it('rejects when no key in the JWKS has the kid, or the single JWK names another kid or alg', async () => {
      const jwks = await verifierJwks(keys);
      await expectRejected(verifyAgentCard(clone(signed), { keys: jwks.keys.map((k) => ({ ...k, kid: 'other' })) }, keys.verifyOptions), 'NO_VALID_SIGNATURE', /no key with kid "card-key-1"/);
      await expectRejected(verifyAgentCard(clone(signed), { ...keys.publicJwk, kid: 'other' }, keys.verifyOptions), 'NO_VALID_SIGNATURE', /does not match the key's kid/);
      await expectRejected(verifyAgentCard(clone(signed), { ...keys.publicJwk, alg: alg === 'RS256' ? 'PS256' : 'RS256' }, keys.verifyOptions), 'NO_VALID_SIGNATURE', /does not match the key's alg/);
    });

    it('rejects an alg outside the allow-list', async () => {
      const other = alg === 'ES256' ? 'RS256' : 'ES256';
      await expectRejected(verifyAgentCard(clone(signed), keys.publicKey, { algorithms: [other] }), 'NO_VALID_SIGNATURE', new RegExp(`alg "${alg}" is not allowed`));
    });

    it('rejects a resolver that finds no key or throws', async () => {
      await expectRejected(verifyAgentCard(clone(signed), () => undefined, keys.verifyOptions), 'NO_VALID_SIGNATURE', /returned no key/);
      await expectRejected(
        verifyAgentCard(clone(signed), async () => {
          throw new Error('jwks fetch failed');
        }, keys.verifyOptions),
        'NO_VALID_SIGNATURE',
        /jwks fetch failed/,
      );
    });
  });

  describe('signedCardBody', () => {
    it('serves exactly serializeAgentCard of the signed card, and the served bytes verify', async () => {
      const { card, body } = await signedCardBody(CARD, [{ key: keys.privateKey, alg, kid: KID, jku: JKU }]);
      expect(body).toBe(serializeAgentCard(card));
      const received = JSON.parse(body) as AgentCard;
      expect(received.signatures).toHaveLength(1);
      await expect(verifyAgentCard(received, await verifierJwks(keys), keys.verifyOptions)).resolves.toMatchObject({ index: 0, form: 'spec' });
      // the signature covers the canonical form of the served body
      const payload = jose.base64url.encode(canonicalCardPayload(received));
      await expect(jose.flattenedVerify({ ...received.signatures![0], payload }, keys.publicKey)).resolves.toBeDefined();
    });
  });

  describe('interop with @a2a-js/sdk 1.3', () => {
    it('a card we sign verifies with the SDK verifier (verifyAgentCardSignature)', async () => {
      const retrieved: Array<[string, string | undefined]> = [];
      const verify = verifyAgentCardSignature(async (kid, jku) => {
        retrieved.push([kid, jku]);
        return keys.publicKey;
      });
      const { body } = await signedCardBody(CARD, [{ key: keys.privateKey, alg, kid: KID, jku: JKU }]);
      await expect(verify(asSdk(JSON.parse(body)))).resolves.toBeUndefined();
      expect(retrieved).toEqual([[KID, JKU]]);
      // and the SDK computes the very payload we signed
      expect(canonicalizeAgentCard(asSdk(JSON.parse(body)))).toBe(canonicalCardPayload(CARD));
    });

    it('the SDK verifier rejects a card we signed once it is tampered with (the check is real)', async () => {
      silenceSdkDebug();
      const card = clone(signed);
      card.skills.push({ id: 'evil', name: 'Evil', description: 'Does evil', tags: ['evil'] });
      await expect(verifyAgentCardSignature(async () => keys.publicKey)(asSdk(card))).rejects.toThrow(/No valid signatures/);
    });

    it('a card the SDK signs (generateAgentCardSignature) verifies with ours', async () => {
      const sdkSign = generateAgentCardSignature(keys.privateKey as SdkKey, { alg, kid: KID, typ: 'JOSE', jku: JKU });
      const sdkSigned = await sdkSign(asSdk(clone(CARD)));
      await expect(verifyAgentCard(clone(sdkSigned), await verifierJwks(keys), keys.verifyOptions)).resolves.toMatchObject({ kid: KID, form: 'spec' });
    });

    // cards whose SDK form differs from their spec form: an SDK signature (which says nothing of its
    // form) verifies in the SDK form only when the verifier says the signer uses it
    const sdkOnly: Array<[string, (card: Record<string, unknown>) => void, string[]]> = [
      ['empty REQUIRED fields (description "", skills [])', (c) => Object.assign(c, { description: '', skills: [] }), ['description', 'skills']],
      ['empty values inside extension params', (c) => Object.assign(c, { capabilities: { streaming: false, extensions: [{ uri: 'u', params: { a: '', b: {} } }] } }), ['capabilities.extensions[0].params']],
    ];
    it.each(sdkOnly)('a card the SDK signs verifies with ours, when told the signer uses the SDK form, if the card holds %s (listed as uncovered)', async (_name, change, uncovered) => {
      const card = clone(CARD) as unknown as Record<string, unknown>;
      change(card);
      const sdkSigned = await generateAgentCardSignature(keys.privateKey as SdkKey, { alg, kid: KID, typ: 'JOSE' })(asSdk(card));
      const result = await verifyAgentCard(clone(sdkSigned), keys.publicKey, { ...keys.verifyOptions, sdkForm: true });
      expect(result).toMatchObject({ index: 0, kid: KID, form: 'sdk', uncovered });
      // by kid, as a verifier that knows which of its keys an SDK signs with
      await expect(verifyAgentCard(clone(sdkSigned), keys.publicKey, { ...keys.verifyOptions, sdkForm: (h) => h.kid === KID })).resolves.toMatchObject({ form: 'sdk' });
      // and it is still tamper-evident in that form
      await expectRejected(verifyAgentCard({ ...clone(sdkSigned), name: 'Evil' }, keys.publicKey, { ...keys.verifyOptions, sdkForm: true }));
      // unless told, the signature does not say it was made in the SDK form: only the spec and raw forms are tried
      await expectRejected(verifyAgentCard(clone(sdkSigned), keys.publicKey, keys.verifyOptions));
      await expectRejected(verifyAgentCard(clone(sdkSigned), keys.publicKey, { ...keys.verifyOptions, sdkForm: (h) => h.kid === 'another-key' }));
    });

    it('a card the SDK signs whose security fields hold empty values is refused even in the SDK form: its signature does not cover them', async () => {
      const card = { ...clone(CARD), securityRequirements: [{ schemes: { bearer: {} } }] } as unknown as Record<string, unknown>;
      const sdkSigned = await generateAgentCardSignature(keys.privateKey as SdkKey, { alg, kid: KID, typ: 'JOSE' })(asSdk(card));
      await expectRejected(
        verifyAgentCard(clone(sdkSigned), keys.publicKey, { ...keys.verifyOptions, sdkForm: true }),
        'NO_VALID_SIGNATURE',
        /SDK form only, which does not cover the empty securityRequirements: security fields must be covered/,
      );
      // the SDK's own verifier accepts it, and the same card with that requirement removed: the gap is real
      await expect(verifyAgentCardSignature(async () => keys.publicKey)(asSdk(clone(sdkSigned)))).resolves.toBeUndefined();
      await expect(verifyAgentCardSignature(async () => keys.publicKey)(asSdk({ ...clone(sdkSigned), securityRequirements: undefined }))).resolves.toBeUndefined();
    });

    it('a card the SDK signs keeps verifying, without being told, when it holds 0.3 hybrid fields (dropped by both forms)', async () => {
      const card = Object.assign(clone(CARD), { url: 'https://agent.example.com/a2a/v1', protocolVersion: '0.3', preferredTransport: 'JSONRPC' });
      const sdkSigned = await generateAgentCardSignature(keys.privateKey as SdkKey, { alg, kid: KID, typ: 'JOSE' })(asSdk(card));
      await expect(verifyAgentCard(clone(sdkSigned), keys.publicKey, keys.verifyOptions)).resolves.toMatchObject({ index: 0, kid: KID, form: 'spec', uncovered: [] });
      await expectRejected(verifyAgentCard({ ...clone(sdkSigned), name: 'Evil' }, keys.publicKey, keys.verifyOptions));
    });

    it('a card the SDK signs with a private JWK (and an unprotected header) verifies with ours', async () => {
      const sdkSigned = await generateAgentCardSignature(keys.privateJwk as SdkKey, { alg, kid: KID, typ: 'JOSE' }, { note: 'unprotected' })(asSdk(clone(CARD)));
      expect(sdkSigned.signatures![0].header).toEqual({ note: 'unprotected' });
      await expect(verifyAgentCard(clone(sdkSigned), keys.publicJwk, keys.verifyOptions)).resolves.toMatchObject({ form: 'spec' });
    });
  });

  describe('publicJwks', () => {
    const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth', 'priv'];

    it(alg === 'HS256' ? 'leaves the shared secret out (it has no public part)' : 'publishes the public key only, with kid, alg and use', async () => {
      for (const key of [keys.privateKey, keys.privateJwk, { ...keys.privateJwk, extra: 'secret-ish' } as jose.JWK] as CardSigningKey[]) {
        const jwks = await publicJwks([{ key, alg, kid: KID }]);
        const text = JSON.stringify(jwks);
        for (const member of PRIVATE_MEMBERS) expect(text).not.toContain(`"${member}":`);
        expect(text).not.toContain('secret-ish');
        if (alg === 'HS256') {
          expect(jwks).toEqual({ keys: [] });
          continue;
        }
        expect(jwks.keys).toHaveLength(1);
        const { kid, alg: jwkAlg, use, ...material } = jwks.keys[0];
        expect({ kid, alg: jwkAlg, use }).toEqual({ kid: KID, alg, use: 'sig' });
        expect(material).toEqual(keys.publicJwk);
      }
    });
  });
});

// ---------------------------------------------------------------------------------------------
describe('verifyAgentCard: what is never accepted', () => {
  let keys: KeySet;
  beforeAll(async () => {
    keys = await keysFor('ES256');
  });

  it('rejects alg "none", even when the caller lists it', async () => {
    const protectedHeader = jose.base64url.encode(JSON.stringify({ alg: 'none', typ: 'JOSE', kid: KID }));
    const card = { ...clone(CARD), signatures: [{ protected: protectedHeader, signature: '' }] };
    const resolver: CardKeySource = () => keys.publicKey;
    const error = await expectRejected(verifyAgentCard(card, resolver, { algorithms: ['none', 'ES256'] }), 'NO_VALID_SIGNATURE', /alg "none" is not allowed/);
    expect(error.attempts).toEqual([{ index: 0, kid: KID, alg: 'none', reason: 'alg "none" is not allowed' }]);
  });

  it('rejects HS256 by default (a verifier must ask for HMAC)', async () => {
    const hs = await keysFor('HS256');
    const card = await signAgentCard(CARD, hs.privateKey, { alg: 'HS256', kid: KID });
    await expectRejected(verifyAgentCard(card, hs.publicKey), 'NO_VALID_SIGNATURE', /alg "HS256" is not allowed/);
  });

  it('does not let an asymmetric public key act as an HMAC secret (alg confusion)', async () => {
    // the attacker "signs" with HMAC, using the published public key as the secret
    const publicKeyBytes = new TextEncoder().encode(JSON.stringify(keys.publicJwk));
    const forged = await new jose.FlattenedSign(new TextEncoder().encode(canonicalCardPayload(CARD)))
      .setProtectedHeader({ alg: 'HS256', typ: 'JOSE', kid: KID })
      .sign(publicKeyBytes);
    const card = { ...clone(CARD), signatures: [{ protected: forged.protected!, signature: forged.signature }] };
    await expectRejected(verifyAgentCard(card, { keys: [{ ...keys.publicJwk, kid: KID }] }, { algorithms: ['ES256', 'HS256'] }));
  });

  it('rejects a card without signatures, and a card that is not an Agent Card', async () => {
    await expectRejected(verifyAgentCard(clone(CARD), keys.publicKey), 'UNSIGNED');
    await expectRejected(verifyAgentCard({ ...clone(CARD), signatures: [] }, keys.publicKey), 'UNSIGNED');
    await expectRejected(verifyAgentCard('card', keys.publicKey), 'MALFORMED_CARD');
    const signed = await signAgentCard(CARD, keys.privateKey, { alg: 'ES256', kid: KID });
    await expectRejected(verifyAgentCard({ ...clone(signed), skills: 'many' }, keys.publicKey), 'MALFORMED_CARD', /skills must be an array/);
  });

  it('rejects a key source that is none of JWKS, key, resolver', async () => {
    const signed = await signAgentCard(CARD, keys.privateKey, { alg: 'ES256', kid: KID });
    await expectRejected(verifyAgentCard(signed, { nope: true } as unknown as CardKeySource), 'INVALID_KEY_SOURCE');
  });

  it('rejects a signature whose typ is not JOSE, or whose JWKS lookup has no kid', async () => {
    const payload = new TextEncoder().encode(canonicalCardPayload(CARD));
    const jwt = await new jose.FlattenedSign(payload).setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: KID }).sign(keys.privateKey);
    const noKid = await new jose.FlattenedSign(payload).setProtectedHeader({ alg: 'ES256', typ: 'JOSE' }).sign(keys.privateKey);
    const jwks = { keys: [{ ...keys.publicJwk, kid: KID }] };
    await expectRejected(verifyAgentCard({ ...clone(CARD), signatures: [{ protected: jwt.protected, signature: jwt.signature }] }, jwks), 'NO_VALID_SIGNATURE', /typ "JWT" is not JOSE/);
    await expectRejected(verifyAgentCard({ ...clone(CARD), signatures: [{ protected: noKid.protected, signature: noKid.signature }] }, jwks), 'NO_VALID_SIGNATURE', /no kid/);
  });

  it('accepts a signature without typ (the spec is ambiguous), and reports which of several signatures verified', async () => {
    const payload = new TextEncoder().encode(canonicalCardPayload(CARD));
    const noTyp = await new jose.FlattenedSign(payload).setProtectedHeader({ alg: 'ES256', kid: KID }).sign(keys.privateKey);
    const bad = { protected: noTyp.protected, signature: noTyp.signature.slice(0, -4) + 'AAAA' };
    const card = { ...clone(CARD), signatures: [bad, 'junk', { protected: noTyp.protected, signature: noTyp.signature }] };
    await expect(verifyAgentCard(card, keys.publicKey)).resolves.toMatchObject({ index: 2, kid: KID, form: 'spec' });
  });

  // empty values added to a card this module signed: its spec-form signature must not verify them,
  // whatever the verifier allows (the SDK form of the tampered card is the signed payload)
  const emptyAdditions: Array<[string, (card: AgentCard) => void]> = [
    ['an empty security alternative {} (reads as "no credentials needed")', (c) => void c.securityRequirements!.push({})],
    ['an alternative naming scheme "none" with no scopes', (c) => void c.securityRequirements!.push({ schemes: { none: {} } })],
    ['an empty interface', (c) => void c.supportedInterfaces.push({} as AgentCard['supportedInterfaces'][number])],
    ['an empty tag', (c) => void c.skills[0].tags.push('')],
    ['an empty skill security requirement', (c) => void (c.skills[0].securityRequirements = [{}])],
    ['an empty iconUrl and an empty extension', (c) => {
      c.iconUrl = '';
      c.capabilities.extensions!.push({ uri: '', params: {} });
    }],
  ];
  it.each(emptyAdditions)('rejects a card this module signed once it gets %s', async (_name, tamper) => {
    const signed = await signAgentCard(CARD, keys.privateKey, { alg: 'ES256', kid: KID });
    const card = clone(signed);
    tamper(card);
    expect(sdkCardPayload(card)).toBe(canonicalCardPayload(signed));
    await expectRejected(verifyAgentCard(card, keys.publicKey));
    await expectRejected(verifyAgentCard(card, keys.publicKey, { sdkForm: true }), 'NO_VALID_SIGNATURE', /signature verification failed\)$/);
    // the untouched card still verifies, in the spec form
    await expect(verifyAgentCard(clone(signed), keys.publicKey, { sdkForm: true })).resolves.toMatchObject({ form: 'spec', uncovered: [] });
  });

  it('rejects a card this module signed once it gets an empty security scheme: not an Agent Card at all', async () => {
    const signed = await signAgentCard(CARD, keys.privateKey, { alg: 'ES256', kid: KID });
    const card = clone(signed);
    card.securitySchemes!.none = {};
    await expectRejected(verifyAgentCard(card, keys.publicKey, { sdkForm: true }), 'MALFORMED_CARD', /securitySchemes\.none one of/);
  });

  it('rejects the same additions on a card signed in the spec form by a signer that says nothing of its form (an SDK, or this module before it said so)', async () => {
    const payload = new TextEncoder().encode(canonicalCardPayload(CARD));
    const jws = await new jose.FlattenedSign(payload).setProtectedHeader({ alg: 'ES256', typ: 'JOSE', kid: KID }).sign(keys.privateKey);
    const signed = { ...clone(CARD), signatures: [{ protected: jws.protected!, signature: jws.signature }] };
    await expect(verifyAgentCard(clone(signed), keys.publicKey)).resolves.toMatchObject({ form: 'spec' });
    for (const [, tamper] of emptyAdditions) {
      const card = clone(signed);
      tamper(card);
      await expectRejected(verifyAgentCard(card, keys.publicKey));
    }
    // told the signer uses the SDK form, security fields still never pass; other empty values are listed
    const withTag = clone(signed);
    withTag.skills[0].tags.push('');
    await expect(verifyAgentCard(withTag, keys.publicKey, { sdkForm: true })).resolves.toMatchObject({ form: 'sdk', uncovered: ['skills[0].tags[1]'] });
    for (const [, tamper] of emptyAdditions.filter(([name]) => !/tag|iconUrl/.test(name))) {
      const card = clone(signed);
      tamper(card);
      await expectRejected(verifyAgentCard(card, keys.publicKey, { sdkForm: true }), 'NO_VALID_SIGNATURE', /security fields must be covered/);
    }
  });

  it('refuses a signature that names a payload form it does not know', async () => {
    const payload = new TextEncoder().encode(canonicalCardPayload(CARD));
    const jws = await new jose.FlattenedSign(payload).setProtectedHeader({ alg: 'ES256', typ: 'JOSE', kid: KID, 'nestjs-a2a-payload': 'whatever' }).sign(keys.privateKey);
    const card = { ...clone(CARD), signatures: [{ protected: jws.protected!, signature: jws.signature }] };
    await expectRejected(verifyAgentCard(card, keys.publicKey), 'NO_VALID_SIGNATURE', /"whatever" is no payload form/);
  });

  it('verifies the raw received JSON too (a signer that also covered unknown fields)', async () => {
    const card = { ...clone(CARD), url: 'https://agent.example.com/a2a/v1' };
    const payload = new TextEncoder().encode(canonicalize(card)!);
    const jws = await new jose.FlattenedSign(payload).setProtectedHeader({ alg: 'ES256', typ: 'JOSE', kid: KID }).sign(keys.privateKey);
    const signedCard = { ...card, signatures: [{ protected: jws.protected, signature: jws.signature }] };
    await expect(verifyAgentCard(signedCard, keys.publicKey)).resolves.toMatchObject({ form: 'raw' });
    await expectRejected(verifyAgentCard(signedCard, keys.publicKey, { forms: ['spec', 'sdk'] }));
  });
});

// ---------------------------------------------------------------------------------------------
describe('signAgentCard: what is never signed', () => {
  let keys: KeySet;
  beforeAll(async () => {
    keys = await keysFor('ES256');
  });

  async function problemsOf(promise: Promise<unknown>): Promise<readonly string[]> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CardSigningError);
    return (error as CardSigningError).problems;
  }

  it.each([
    ['an empty description', { description: '' }, /card\.description is required/],
    ['an empty name', { name: '' }, /card\.name is required/],
    ['no interfaces', { supportedInterfaces: [] }, /card\.supportedInterfaces is required and must not be empty/],
    ['no input modes', { defaultInputModes: [] }, /card\.defaultInputModes is required/],
    ['a skill without tags', { skills: [{ id: 's', name: 'S', description: 'd', tags: [] }] }, /card\.skills\[0\]\.tags is required/],
  ])('refuses a card with %s (empty REQUIRED fields)', async (_name, change, problem) => {
    const problems = await problemsOf(signAgentCard({ ...clone(CARD), ...change } as AgentCard, keys.privateKey, { alg: 'ES256', kid: KID }));
    expect(problems.join('\n')).toMatch(problem);
  });

  it.each([
    ['no skills (REQUIRED, may be empty, but SDKs strip it)', { skills: [] }],
    ['a bearer requirement without scopes', { securityRequirements: [{ schemes: { bearer: {} } }] }],
    ['an mTLS scheme without description', { securitySchemes: { m: { mtlsSecurityScheme: {} } } }],
    ['empty extension params', { capabilities: { extensions: [{ uri: 'u', params: {} }] } }],
  ])('signs a card with %s twice: spec form and SDK form, so both verifiers accept it', async (_name, change) => {
    silenceSdkDebug();
    const card = { ...clone(CARD), ...change } as AgentCard;
    const { body } = await signedCardBody(card, [{ key: keys.privateKey, alg: 'ES256', kid: KID }]);
    const served = JSON.parse(body);
    expect(served.signatures).toHaveLength(2);
    await expect(verifyAgentCard(served, keys.publicKey, { forms: ['spec'] })).resolves.toMatchObject({ form: 'spec', index: 0 });
    await expect(verifyAgentCardSignature(async () => keys.publicKey)(asSdk(served))).resolves.toBeUndefined();
  });

  it('signs a card whose forms agree once', async () => {
    const { body } = await signedCardBody(CARD, [{ key: keys.privateKey, alg: 'ES256', kid: KID }]);
    expect(JSON.parse(body).signatures).toHaveLength(1);
  });

  it('still catches tampering with an empty value: our verifier never counts the SDK-form twin', async () => {
    const card: AgentCard = { ...clone(CARD), securityRequirements: [{ schemes: { bearer: {} } }] };
    const { body } = await signedCardBody(card, [{ key: keys.privateKey, alg: 'ES256', kid: KID }]);
    const tampered = { ...JSON.parse(body), securityRequirements: undefined };
    await expectRejected(verifyAgentCard(tampered, keys.publicKey));
    // stripping the spec-form signature does not help either
    await expectRejected(verifyAgentCard({ ...tampered, signatures: tampered.signatures.slice(1) }, keys.publicKey));
  });

  it('refuses a missing kid, an unsupported alg, a jku that is not a URL, protected names in the header, all at once', async () => {
    const problems = await problemsOf(
      signAgentCard(CARD, keys.privateKey, { alg: 'PS256' as CardSigningAlgorithm, jku: 'jwks.json', header: { kid: 'x' } }),
    );
    expect(problems).toEqual([
      expect.stringMatching(/alg "PS256" is not supported/),
      expect.stringMatching(/kid is required/),
      expect.stringMatching(/jku must be an absolute http\(s\) URL/),
      expect.stringMatching(/must not carry kid/),
    ]);
  });

  it('refuses a public key, and a JWK whose alg differs, with a clear error', async () => {
    await expect(signAgentCard(CARD, keys.publicKey, { alg: 'ES256', kid: KID })).rejects.toThrow(/key "card-key-1" cannot sign with ES256/);
    await expect(signAgentCard(CARD, { ...keys.privateJwk, alg: 'ES384' }, { alg: 'ES256', kid: KID })).rejects.toThrow(/differs from the key's alg/);
  });

  it('signs with Node KeyObjects and raw HS256 secret bytes as well', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const ed = await signAgentCard(CARD, privateKey, { alg: 'EdDSA', kid: KID });
    await expect(verifyAgentCard(ed, publicKey)).resolves.toMatchObject({ kid: KID });
    const jwks = await publicJwks([{ key: privateKey, alg: 'EdDSA', kid: KID }]);
    await expect(verifyAgentCard(ed, jwks)).resolves.toMatchObject({ kid: KID });
    expect(JSON.stringify(jwks)).not.toContain('"d":');

    const secret = new Uint8Array(32).fill(7);
    const hs = await signAgentCard(CARD, secret, { alg: 'HS256', kid: KID });
    await expect(verifyAgentCard(hs, createSecretKey(Buffer.from(secret)), { algorithms: ['HS256'] })).resolves.toMatchObject({ kid: KID });
    expect(await publicJwks([{ key: secret, alg: 'HS256', kid: KID }])).toEqual({ keys: [] });
  });

  it('signedCardBody signs once per signer (rotation) and serves the card unsigned with no signer', async () => {
    const rs = await keysFor('RS256');
    const { card, body } = await signedCardBody(CARD, [
      { key: keys.privateKey, alg: 'ES256', kid: 'old' },
      { key: rs.privateKey, alg: 'RS256', kid: 'new' },
    ]);
    expect(card.signatures!.map((s) => jose.decodeProtectedHeader({ ...s, payload: '' }).kid)).toEqual(['old', 'new']);
    const jwks = await publicJwks([
      { key: keys.privateKey, alg: 'ES256', kid: 'old' },
      { key: rs.privateKey, alg: 'RS256', kid: 'new' },
    ]);
    await expect(verifyAgentCard(JSON.parse(body), { keys: jwks.keys.filter((k) => k.kid === 'new') })).resolves.toMatchObject({ index: 1, kid: 'new' });
    await expect(signedCardBody(CARD, [])).resolves.toEqual({ card: CARD, body: serializeAgentCard(CARD) });
    await expect(signedCardBody(CARD, [{ key: keys.privateKey, alg: 'ES256', kid: 'same' }, { key: rs.privateKey, alg: 'RS256', kid: 'same' }])).rejects.toThrow(
      /kid same is used by more than one signer/,
    );
  });
});
