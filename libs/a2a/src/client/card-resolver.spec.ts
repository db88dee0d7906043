import { describe, expect, it } from '@jest/globals';
import { InvalidAgentResponseError } from '../protocol/errors.js';
import { agentCardUrl, readAgentCard } from './card-resolver.js';
import { freshnessLifetimeMs } from './http-freshness.js';

describe('agentCardUrl', () => {
  it.each([
    ['https://agent.example.com', 'https://agent.example.com/.well-known/agent-card.json'],
    ['https://agent.example.com/', 'https://agent.example.com/.well-known/agent-card.json'],
    ['https://agent.example.com/a2a/agents/echo/', 'https://agent.example.com/a2a/agents/echo/.well-known/agent-card.json'],
    ['https://agent.example.com/cards/echo.json?v=2', 'https://agent.example.com/cards/echo.json?v=2'],
    ['https://agent.example.com/.well-known/agent-card.json', 'https://agent.example.com/.well-known/agent-card.json'],
  ])('%s → %s', (input, expected) => {
    expect(agentCardUrl(input)).toBe(expected);
  });
});

describe('freshnessLifetimeMs (RFC 9111 §4.2)', () => {
  const defaults = { defaultTtlMs: 300_000, maxTtlMs: 3_600_000 };
  it.each([
    ['max-age', { cacheControl: 'public, max-age=60' }, 60_000],
    ['max-age minus Age', { cacheControl: 'max-age=60', age: '20' }, 40_000],
    ['no-cache: stored, revalidated every time', { cacheControl: 'no-cache' }, 0],
    ['no-store: not stored', { cacheControl: 'no-store, max-age=60' }, undefined],
    ['Expires relative to Date', { expires: 'Thu, 01 Jan 2026 00:10:00 GMT', date: 'Thu, 01 Jan 2026 00:00:00 GMT' }, 600_000],
    ['an invalid Expires: already stale', { expires: '0' }, 0],
    ['no caching headers: the default TTL', {}, 300_000],
    ['capped by maxTtlMs', { cacheControl: 'max-age=31536000' }, 3_600_000],
    ['max-age wins over Expires', { cacheControl: 'max-age=5', expires: 'Thu, 01 Jan 2099 00:00:00 GMT' }, 5_000],
  ])('%s', (_what, headers, expected) => {
    expect(freshnessLifetimeMs(headers, defaults)).toBe(expected);
  });
});

describe('readAgentCard', () => {
  const v1 = {
    name: 'a',
    description: 'd',
    version: '1',
    supportedInterfaces: [{ url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };

  it('reads a 1.0 card, ignoring unknown (hybrid 0.3) fields', () => {
    const { card, legacy } = readAgentCard({ ...v1, url: 'https://a.example/old', protocolVersion: '0.3.0', preferredTransport: 'JSONRPC' }, 'card');
    expect(legacy).toBe(false);
    expect(card.supportedInterfaces).toEqual(v1.supportedInterfaces);
    expect(card).not.toHaveProperty('url');
  });

  it('reads a 0.3 card: synthesised 0.3 interfaces (default transport JSONRPC), its extended-card flag and security in 1.0 form', () => {
    const { supportedInterfaces: _, capabilities: __, ...rest } = v1;
    const legacyCard = {
      ...rest,
      protocolVersion: '0.3.0',
      url: 'https://a.example/rpc',
      capabilities: {},
      supportsAuthenticatedExtendedCard: true,
      additionalInterfaces: [{ url: 'https://a.example/rpc', transport: 'JSONRPC' }, { url: 'https://a.example/grpc', transport: 'GRPC' }],
      securitySchemes: { k: { type: 'apiKey', in: 'header', name: 'X' } },
      security: [{ k: [] }],
    };
    const { card, legacy } = readAgentCard(legacyCard, 'card');
    expect(legacy).toBe(true);
    expect(card.supportedInterfaces).toEqual([
      { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'https://a.example/grpc', protocolBinding: 'GRPC', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities.extendedAgentCard).toBe(true);
    expect(card.securitySchemes).toEqual({ k: { apiKeySecurityScheme: { location: 'header', name: 'X' } } });
    expect(card.securityRequirements).toEqual([{ schemes: { k: {} } }]);
    expect(() => readAgentCard({ ...legacyCard, additionalInterfaces: [...legacyCard.additionalInterfaces, 'junk'] }, 'https://a.example/card.json')).toThrow(
      'https://a.example/card.json: not a valid A2A 0.3 Agent Card (additionalInterfaces[2] must be a JSON object)',
    );
  });

  it('refuses what is not a card, naming the fields', () => {
    expect(() => readAgentCard([], 'https://a.example/card.json')).toThrow(InvalidAgentResponseError);
    expect(() => readAgentCard({ ...v1, supportedInterfaces: [] }, 'https://a.example/card.json')).toThrow(
      'https://a.example/card.json: not a valid A2A Agent Card (supportedInterfaces is required and must not be empty)',
    );
  });
});
