/**
 * Cards across versions: the hybrid card a 0.3 reader gets (read back by a strict 0.3 decoder,
 * typed as the 0.3 SDK types it, and still verifiable by 1.0 verifiers), and a pure 0.3 card read
 * as 1.0 (the 0.3 specification's sample card, both security forms).
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { verifyAgentCardSignature, type AgentCard as SdkV1Card } from '@a2a-js/sdk';
import type * as Sdk from 'a2a-sdk-v03';
import * as jose from 'jose';
import { thrown } from '../../testing/thrown.js';
import { signedCardBody } from '../card-signing.js';
import { verifyAgentCard } from '../card-verification.js';
import { decode, encode } from '../codec.js';
import { InvalidParamsError, VersionNotSupportedError } from '../errors.js';
import { AgentCardSchema } from '../schemas.js';
import type { AgentCard, SecurityScheme } from '../types.js';
import { agentCardFromV03, fromV03Scheme, isV03AgentCard, toV03HybridAgentCard, toV03Scheme } from './agent-card.js';
import { V03AgentCardSchema } from './schemas.js';
import { GEO_CARD } from './testing/v03-examples.js';
import type { V03SecurityScheme } from './types.js';

afterEach(() => {
  jest.restoreAllMocks();
});

const CARD: AgentCard = {
  name: 'research',
  description: 'Finds sources',
  version: '2.0.0',
  supportedInterfaces: [
    { url: 'https://agents.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'https://agents.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    { url: 'https://agents.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    { url: 'https://agents.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
  ],
  provider: { organization: 'Example', url: 'https://example.com' },
  capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true, extensions: [{ uri: 'urn:ext', required: false }] },
  securitySchemes: {
    apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
    bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
  },
  securityRequirements: [{ schemes: { bearer: { list: ['read'] } } }, { schemes: { apiKey: {} } }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    { id: 'topic', name: 'Topic', description: 'Research a topic', tags: ['research'], securityRequirements: [{ schemes: { bearer: { list: ['topic'] } } }] },
    { id: 'cite', name: 'Cite', description: 'Cite a source', tags: ['research'] },
  ],
};

describe('toV03HybridAgentCard', () => {
  const hybrid = toV03HybridAgentCard(CARD);

  it('is the 1.0 card plus the members 0.3 readers look for', () => {
    expect(hybrid).toMatchObject({
      ...encode(AgentCardSchema, { ...CARD, securitySchemes: undefined, skills: [] }),
      skills: expect.any(Array),
      protocolVersion: '0.3',
      url: 'https://agents.example.com/a2a/jsonrpc',
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [
        { url: 'https://agents.example.com/a2a/jsonrpc', transport: 'JSONRPC' },
        { url: 'https://agents.example.com/a2a/rest', transport: 'HTTP+JSON' },
      ],
      supportsAuthenticatedExtendedCard: true,
      security: [{ bearer: ['read'] }, { apiKey: [] }],
    });
    expect(hybrid.securitySchemes).toEqual({
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
      bearer: { type: 'http', scheme: 'Bearer', bearerFormat: 'JWT', httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
    });
    expect((hybrid.skills as unknown[])[0]).toMatchObject({ security: [{ bearer: ['topic'] }], securityRequirements: [{ schemes: { bearer: { list: ['topic'] } } }] });
    expect((hybrid.skills as unknown[])[1]).not.toHaveProperty('security');
  });

  it('a strict 0.3 reader reads it, typed as the 0.3 SDK types a card', () => {
    const read = decode(V03AgentCardSchema, hybrid);
    const sdk: Sdk.AgentCard = read;
    expect(sdk.url).toBe('https://agents.example.com/a2a/jsonrpc');
    expect(sdk.securitySchemes?.bearer).toEqual({ type: 'http', scheme: 'Bearer', bearerFormat: 'JWT' });
    expect(agentCardFromV03(hybrid).supportedInterfaces).toEqual(CARD.supportedInterfaces.slice(2));
  });

  it('a 1.0 reader reads the 1.0 card in it, nothing else', () => {
    expect(decode(AgentCardSchema, hybrid)).toEqual(decode(AgentCardSchema, JSON.parse(JSON.stringify(CARD))));
  });

  it('the 1.0 card signature still verifies on it, with ours and with the @a2a-js/sdk 1.x verifier', async () => {
    // the SDK verifier reports each signature it could not verify (here the spec-form one) through console.debug
    jest.spyOn(console, 'debug').mockImplementation(() => undefined);
    const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
    const { body } = await signedCardBody(CARD, [{ key: privateKey, alg: 'ES256', kid: 'k1' }]);
    const signedHybrid = toV03HybridAgentCard(JSON.parse(body) as AgentCard);
    expect(signedHybrid.signatures).toEqual(JSON.parse(body).signatures);
    await expect(verifyAgentCard(signedHybrid, publicKey)).resolves.toMatchObject({ kid: 'k1', form: 'spec' });
    await expect(verifyAgentCardSignature(async () => publicKey)(signedHybrid as unknown as SdkV1Card)).resolves.toBeUndefined();
    await expect(verifyAgentCard({ ...signedHybrid, name: 'evil' }, publicKey)).rejects.toThrow();
  });

  it('refuses a card without a 0.3 interface: a 0.3 client could call nothing', () => {
    const error = thrown(() => toV03HybridAgentCard({ ...CARD, supportedInterfaces: CARD.supportedInterfaces.slice(0, 2) }));
    expect(error).toBeInstanceOf(VersionNotSupportedError);
  });
});

describe('security schemes: 1.0 oneof ⇄ 0.3 type', () => {
  it.each<[string, SecurityScheme, V03SecurityScheme]>([
    ['API key', { apiKeySecurityScheme: { location: 'query', name: 'key', description: 'd' } }, { type: 'apiKey', in: 'query', name: 'key', description: 'd' }],
    ['HTTP', { httpAuthSecurityScheme: { scheme: 'Basic' } }, { type: 'http', scheme: 'Basic' }],
    [
      'OAuth 2',
      { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: { read: 'Read' } } }, oauth2MetadataUrl: 'https://auth.example/.well-known' } },
      { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: { read: 'Read' } } }, oauth2MetadataUrl: 'https://auth.example/.well-known' },
    ],
    ['OpenID Connect', { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://id.example/.well-known/openid-configuration' } }, { type: 'openIdConnect', openIdConnectUrl: 'https://id.example/.well-known/openid-configuration' }],
    ['mutual TLS', { mtlsSecurityScheme: { description: 'client cert' } }, { type: 'mutualTLS', description: 'client cert' }],
  ])('%s', (_what, v1, v03) => {
    expect(toV03Scheme(v1)).toEqual(v03);
    expect(fromV03Scheme(v03)).toEqual(v1);
    const sdk: Sdk.SecurityScheme = toV03Scheme(v1);
    expect(sdk.type).toBe(v03.type);
  });

  it('what has no 0.3 form is left out (deviceCode, pkceRequired); of several 0.3 flows, 1.0 keeps one', () => {
    expect(toV03Scheme({ oauth2SecurityScheme: { flows: { deviceCode: { deviceAuthorizationUrl: 'https://a/d', tokenUrl: 'https://a/t', scopes: {} } } } })).toEqual({ type: 'oauth2', flows: {} });
    expect(toV03Scheme({ oauth2SecurityScheme: { flows: { authorizationCode: { authorizationUrl: 'https://a/a', tokenUrl: 'https://a/t', scopes: {}, pkceRequired: true } } } })).toEqual({
      type: 'oauth2',
      flows: { authorizationCode: { authorizationUrl: 'https://a/a', tokenUrl: 'https://a/t', scopes: {} } },
    });
    const flows = { password: { tokenUrl: 'https://a/p', scopes: {} }, clientCredentials: { tokenUrl: 'https://a/c', scopes: {} }, implicit: { authorizationUrl: 'https://a/i', scopes: {} } };
    expect(fromV03Scheme({ type: 'oauth2', flows })).toEqual({ oauth2SecurityScheme: { flows: { clientCredentials: flows.clientCredentials } } });
  });
});

describe('agentCardFromV03: a pure 0.3 card, for the client', () => {
  it('reads the 0.3 specification sample card (§5.7)', () => {
    expect(isV03AgentCard(GEO_CARD)).toBe(true);
    const card = agentCardFromV03(GEO_CARD);
    expect(card.supportedInterfaces).toEqual([
      { url: 'https://georoute-agent.example.com/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '0.2' },
      { url: 'https://georoute-agent.example.com/a2a/grpc', protocolBinding: 'GRPC', protocolVersion: '0.2' },
      { url: 'https://georoute-agent.example.com/a2a/json', protocolBinding: 'HTTP+JSON', protocolVersion: '0.2' },
    ]);
    expect(card.capabilities).toEqual({ streaming: true, pushNotifications: true, extendedAgentCard: true });
    expect(card.securitySchemes).toEqual({ google: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://accounts.google.com/.well-known/openid-configuration' } } });
    expect(card.securityRequirements).toEqual([{ schemes: { google: { list: ['openid', 'profile', 'email'] } } }]);
    expect(card).toMatchObject({ iconUrl: GEO_CARD.iconUrl, documentationUrl: GEO_CARD.documentationUrl, provider: GEO_CARD.provider, signatures: GEO_CARD.signatures, version: '1.2.0' });
    expect(card.skills.map((s) => s.id)).toEqual(['route-optimizer-traffic', 'custom-map-generator']);
  });

  it('defaults the preferred transport to JSONRPC; keeps a skill security', () => {
    const { preferredTransport: _p, additionalInterfaces: _a, ...rest } = GEO_CARD;
    const card = agentCardFromV03({ ...rest, protocolVersion: '0.3.0', skills: [{ ...GEO_CARD.skills[0], security: [{ google: ['openid'] }] }] });
    expect(card.supportedInterfaces).toEqual([{ url: GEO_CARD.url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }]);
    expect(card.skills[0].securityRequirements).toEqual([{ schemes: { google: { list: ['openid'] } } }]);
  });

  it('reads a card whose security is in the 0.3 proto form', () => {
    const card = agentCardFromV03({
      ...GEO_CARD,
      securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } } },
      security: [{ schemes: { key: { list: [] } } }],
    });
    expect(card.securitySchemes).toEqual({ key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } } });
    expect(card.securityRequirements).toEqual([{ schemes: { key: {} } }]);
  });

  it('refuses what is not a 0.3 card, naming every field', () => {
    const error = thrown(() =>
      agentCardFromV03({ ...GEO_CARD, url: 42, additionalInterfaces: [{ url: 'https://a.example' }, 'junk'], securitySchemes: { k: { type: 'magic' } }, security: [{ google: 'openid' }] }),
    ) as InvalidParamsError;
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect(error.fieldViolations).toEqual([
      { field: 'url', description: 'must be a string' },
      { field: 'additionalInterfaces[0].transport', description: 'is required' },
      { field: 'additionalInterfaces[1]', description: 'must be a JSON object' },
      { field: 'securitySchemes.k.type', description: 'must be one of "apiKey", "http", "oauth2", "openIdConnect", "mutualTLS"' },
      { field: 'security[0].google', description: 'must be an array' },
    ]);
  });
});
