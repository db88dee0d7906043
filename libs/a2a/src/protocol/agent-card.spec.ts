/** Agent Card construction and HTTP caching helpers (spec digest §6.1–§6.5). */
import { describe, expect, it } from '@jest/globals';
import {
  agentCardViolations,
  buildAgentCard,
  entityTag,
  ifNoneMatchHits,
  mediaTypeAccepted,
  serializeAgentCard,
  type AgentCardFields,
  type AgentCardRuntime,
} from './agent-card.js';
import { InvalidParamsError, type FieldViolation } from './errors.js';
import type { AgentCard } from './types.js';

/** The minimal 1.0 card of digest §6.2. */
const MINIMAL_CARD: AgentCard = {
  name: 'Recipe Agent',
  description: 'Helps with recipes',
  version: '1.2.0',
  supportedInterfaces: [
    { url: 'https://agent.example.com/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'https://agent.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ],
  capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: true },
  securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } } },
  securityRequirements: [{ schemes: { bearer: {} } }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'application/json'],
  skills: [{ id: 'recipes', name: 'Recipes', description: 'Find recipes', tags: ['cooking'] }],
};

const fields = (overrides: Partial<AgentCardFields> = {}): AgentCardFields => ({
  name: 'Recipe Agent',
  description: 'Helps with recipes',
  version: '1.2.0',
  skills: [{ id: 'recipes', name: 'Recipes', description: 'Find recipes', tags: ['cooking'] }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'application/json'],
  securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } } },
  securityRequirements: [{ schemes: { bearer: {} } }],
  ...overrides,
});

const runtime = (overrides: Partial<AgentCardRuntime> = {}): AgentCardRuntime => ({
  interfaces: [
    { url: 'https://agent.example.com/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'https://agent.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ],
  capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: true },
  ...overrides,
});

describe('buildAgentCard', () => {
  it('builds the minimal card of §6.2 from fields + runtime', () => {
    expect(buildAgentCard(fields(), runtime())).toEqual(MINIMAL_CARD);
  });

  it.each([
    { streaming: false, pushNotifications: false, extendedAgentCard: false },
    { streaming: true, pushNotifications: true, extendedAgentCard: false },
    { streaming: false, pushNotifications: true, extendedAgentCard: true },
  ])('capabilities are explicit booleans, false included: %j', (capabilities) => {
    expect(buildAgentCard(fields(), runtime({ capabilities })).capabilities).toEqual(capabilities);
    expect(JSON.parse(serializeAgentCard(buildAgentCard(fields(), runtime({ capabilities })))).capabilities).toEqual(capabilities);
  });

  it('declared extensions go under capabilities.extensions', () => {
    const extensions = [
      { uri: 'https://example.com/ext/geo/v1', required: true, params: { precision: 'city' } },
      { uri: 'https://example.com/ext/trace/v1', description: 'tracing', required: false },
    ];
    expect(buildAgentCard(fields({ extensions }), runtime()).capabilities).toEqual({
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: true,
      extensions: [
        { uri: 'https://example.com/ext/geo/v1', required: true, params: { precision: 'city' } },
        { uri: 'https://example.com/ext/trace/v1', description: 'tracing' },
      ],
    });
  });

  it('keeps provider, documentationUrl, iconUrl and an interface tenant', () => {
    const card = buildAgentCard(
      fields({
        provider: { url: 'https://example.com', organization: 'Example Org' },
        documentationUrl: 'https://example.com/docs',
        iconUrl: 'https://example.com/icon.png',
      }),
      runtime({ interfaces: [{ url: 'https://agent.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 'acme' }] }),
    );
    expect(card).toMatchObject({
      provider: { url: 'https://example.com', organization: 'Example Org' },
      documentationUrl: 'https://example.com/docs',
      iconUrl: 'https://example.com/icon.png',
      supportedInterfaces: [{ url: 'https://agent.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 'acme' }],
    });
  });

  it('leaves unset optional fields off the card (no top-level 0.3 fields either)', () => {
    const card = buildAgentCard(fields({ securitySchemes: undefined, securityRequirements: undefined }), runtime());
    expect(Object.keys(card).sort()).toEqual(
      ['capabilities', 'defaultInputModes', 'defaultOutputModes', 'description', 'name', 'skills', 'supportedInterfaces', 'version'].sort(),
    );
  });

  it('unknown extra properties of the input never reach the card', () => {
    const input = {
      ...fields({
        provider: { url: 'https://example.com', organization: 'Example Org', contact: 'ops@example.com' } as never,
        skills: [
          {
            id: 'recipes',
            name: 'Recipes',
            description: 'Find recipes',
            tags: ['cooking'],
            handler: 'RecipeService.find',
            internalQueue: 'recipes-q',
          } as never,
        ],
        securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT', jwksSecret: 'k3y' } } as never },
      }),
      apiKey: 'sk-live-123',
      protocolVersion: '0.3',
      url: 'https://internal.example.local',
      supportsAuthenticatedExtendedCard: true,
    } as AgentCardFields;
    const extraRuntime = { ...runtime(), redisUrl: 'redis://10.0.0.5', capabilities: { ...runtime().capabilities, stateTransitionHistory: true } } as AgentCardRuntime;
    const card = buildAgentCard(input, extraRuntime);
    const wire = serializeAgentCard(card);
    expect(card).toEqual({ ...MINIMAL_CARD, provider: { url: 'https://example.com', organization: 'Example Org' } });
    expect(wire).not.toMatch(/sk-live|internal\.example|redis|contact|ops@|handler|internalQueue|jwksSecret|k3y|stateTransitionHistory|supportsAuthenticatedExtendedCard|"url":"https:\/\/internal/);
    expect(Object.keys(JSON.parse(wire))).not.toContain('protocolVersion');
  });

  it('throws InvalidParamsError for an invalid card', () => {
    expect(() => buildAgentCard(fields({ name: '' }), runtime())).toThrow(InvalidParamsError);
  });
});

describe('agentCardViolations', () => {
  it.each<{ name: string; fields: AgentCardFields; runtime: AgentCardRuntime; violations: FieldViolation[] }>([
    { name: 'a valid card', fields: fields(), runtime: runtime(), violations: [] },
    { name: 'no skills (lenient, §1.1)', fields: fields({ skills: [] }), runtime: runtime(), violations: [] },
    {
      name: 'a skill without tags',
      fields: fields({ skills: [{ id: 's', name: 'S', description: 'd' } as never] }),
      runtime: runtime(),
      violations: [{ field: 'skills[0].tags', description: 'is required and must not be empty' }],
    },
    {
      name: 'a skill with empty tags',
      fields: fields({ skills: [{ id: 's', name: 'S', description: 'd', tags: [] }] }),
      runtime: runtime(),
      violations: [{ field: 'skills[0].tags', description: 'is required and must not be empty' }],
    },
    {
      name: 'the second skill without id and description',
      fields: fields({ skills: [{ id: 'a', name: 'A', description: 'a', tags: ['x'] }, { name: 'B', tags: ['y'] } as never] }),
      runtime: runtime(),
      violations: [
        { field: 'skills[1].id', description: 'is required' },
        { field: 'skills[1].description', description: 'is required' },
      ],
    },
    {
      name: 'no interfaces',
      fields: fields(),
      runtime: runtime({ interfaces: [] }),
      violations: [{ field: 'supportedInterfaces', description: 'is required and must not be empty' }],
    },
    {
      name: 'an interface without protocolVersion',
      fields: fields(),
      runtime: runtime({ interfaces: [{ url: 'https://a', protocolBinding: 'JSONRPC' } as never] }),
      violations: [{ field: 'supportedInterfaces[0].protocolVersion', description: 'is required' }],
    },
    {
      name: 'empty default modes',
      fields: fields({ defaultInputModes: [], defaultOutputModes: [] }),
      runtime: runtime(),
      violations: [
        { field: 'defaultInputModes', description: 'is required and must not be empty' },
        { field: 'defaultOutputModes', description: 'is required and must not be empty' },
      ],
    },
    {
      name: 'a provider without organization',
      fields: fields({ provider: { url: 'https://example.com' } as never }),
      runtime: runtime(),
      violations: [{ field: 'provider.organization', description: 'is required' }],
    },
    {
      name: 'a security scheme with two members',
      fields: fields({
        securitySchemes: { both: { httpAuthSecurityScheme: { scheme: 'Bearer' }, mtlsSecurityScheme: {} } },
      }),
      runtime: runtime(),
      violations: [{ field: 'securitySchemes.both.mtlsSecurityScheme', description: expect.stringContaining('only one of') as unknown as string }],
    },
    {
      name: 'an OAuth flow without tokenUrl',
      fields: fields({
        securitySchemes: { oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { scopes: { 'a2a.read': 'read' } } as never } } } },
      }),
      runtime: runtime(),
      violations: [{ field: 'securitySchemes.oauth.oauth2SecurityScheme.flows.clientCredentials.tokenUrl', description: 'is required' }],
    },
  ])('$name', ({ fields: input, runtime: rt, violations }) => {
    expect(agentCardViolations(input, rt)).toEqual(violations);
  });

  it('lists every problem at once', () => {
    const found = agentCardViolations(
      fields({ name: '', version: '', skills: [{ id: 's', name: 'S', description: 'd', tags: [] }], defaultOutputModes: [] }),
      runtime({ interfaces: [] }),
    );
    expect(found.map((v) => v.field).sort()).toEqual(['defaultOutputModes', 'name', 'skills[0].tags', 'supportedInterfaces', 'version']);
  });
});

describe('serializeAgentCard and entityTag', () => {
  it('is compact JSON of the ProtoJSON card, in schema order', () => {
    const wire = serializeAgentCard(MINIMAL_CARD);
    expect(JSON.parse(wire)).toEqual(MINIMAL_CARD);
    expect(wire).not.toMatch(/\n|": /);
    expect(Object.keys(JSON.parse(wire) as object)[0]).toBe('name');
    expect(wire.startsWith('{"name":"Recipe Agent","description":"Helps with recipes","supportedInterfaces":[')).toBe(true);
  });

  it('is independent of the key order of its input', () => {
    const reversed = Object.fromEntries(Object.entries(MINIMAL_CARD).reverse()) as unknown as AgentCard;
    expect(serializeAgentCard(reversed)).toBe(serializeAgentCard(MINIMAL_CARD));
  });

  it('drops keys that are not in the schema', () => {
    const wire = serializeAgentCard({ ...MINIMAL_CARD, url: 'https://x', preferredTransport: 'JSONRPC' } as AgentCard);
    expect(wire).toBe(serializeAgentCard(MINIMAL_CARD));
  });

  it('entityTag is a stable, quoted strong tag of the body', () => {
    const body = serializeAgentCard(MINIMAL_CARD);
    const tag = entityTag(body);
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(entityTag(body)).toBe(tag);
    expect(entityTag(serializeAgentCard({ ...MINIMAL_CARD }))).toBe(tag);
    expect(entityTag(serializeAgentCard({ ...MINIMAL_CARD, version: '1.2.1' }))).not.toBe(tag);
    expect(entityTag('')).not.toBe(entityTag(' '));
  });
});

describe('ifNoneMatchHits', () => {
  it.each<{ header: string | undefined; etag: string; hit: boolean }>([
    { header: undefined, etag: '"abc"', hit: false },
    { header: '', etag: '"abc"', hit: false },
    { header: '"abc"', etag: '"abc"', hit: true },
    { header: 'W/"abc"', etag: '"abc"', hit: true },
    { header: '"abc"', etag: 'W/"abc"', hit: true },
    { header: '"x", "abc"', etag: '"abc"', hit: true },
    { header: '"x",W/"abc" , "y"', etag: '"abc"', hit: true },
    { header: '"x", "y"', etag: '"abc"', hit: false },
    { header: '*', etag: '"abc"', hit: true },
    { header: ' * ', etag: '"abc"', hit: true },
    { header: '"ABC"', etag: '"abc"', hit: false },
    { header: 'abc', etag: '"abc"', hit: false },
    { header: '"abcd"', etag: '"abc"', hit: false },
  ])('If-None-Match $header vs $etag → $hit', ({ header, etag, hit }) => {
    expect(ifNoneMatchHits(header, etag)).toBe(hit);
  });

  it('matches the tag entityTag produced', () => {
    const tag = entityTag(serializeAgentCard(MINIMAL_CARD));
    expect(ifNoneMatchHits(tag, tag)).toBe(true);
    expect(ifNoneMatchHits(`W/${tag}`, tag)).toBe(true);
  });
});

describe('mediaTypeAccepted', () => {
  it.each<{ mediaType: string; modes: string[]; accepted: boolean }>([
    { mediaType: 'text/plain', modes: ['text/plain'], accepted: true },
    { mediaType: 'text/plain', modes: ['text/plain', 'application/json'], accepted: true },
    { mediaType: 'application/json', modes: ['text/plain', 'application/json'], accepted: true },
    { mediaType: 'image/png', modes: ['text/plain', 'application/json'], accepted: false },
    { mediaType: 'image/png', modes: ['image/*'], accepted: true },
    { mediaType: 'image/png', modes: ['*/*'], accepted: true },
    { mediaType: 'text/plain', modes: ['image/*'], accepted: false },
    { mediaType: 'text/plain; charset=utf-8', modes: ['text/plain'], accepted: true },
    { mediaType: 'text/plain', modes: ['text/plain; charset=utf-8'], accepted: true },
    { mediaType: 'Text/Plain', modes: ['text/PLAIN'], accepted: true },
    { mediaType: ' application/json ', modes: ['application/json'], accepted: true },
    { mediaType: 'application/json', modes: ['application/jsonl'], accepted: false },
    { mediaType: 'application/json', modes: [], accepted: false },
  ])('$mediaType in $modes → $accepted', ({ mediaType, modes, accepted }) => {
    expect(mediaTypeAccepted(mediaType, modes)).toBe(accepted);
  });

  it('answers the same when the modes of one agent are asked again and again (they are parsed once)', () => {
    const modes = ['text/plain', 'image/*', 'application/json; charset=utf-8'];
    const asked = ['text/plain', 'image/png', 'TEXT/PLAIN', 'application/json', 'audio/mpeg', 'image/jpeg', 'text/html'];
    const first = asked.map((m) => mediaTypeAccepted(m, modes));
    expect(first).toEqual([true, true, true, true, false, true, false]);
    for (let round = 0; round < 3; round++) expect(asked.map((m) => mediaTypeAccepted(m, modes))).toEqual(first);
  });
});
