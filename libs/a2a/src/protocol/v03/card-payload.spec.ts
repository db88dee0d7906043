import { describe, expect, it } from '@jest/globals';
import { pythonJsonDumps, v03CardPayloads, v03CardView, V03CardViewError } from './card-payload.js';
import { V03_CANONICAL_CARD, V03_CANONICAL_PAYLOAD, V03_CANONICAL_PAYLOAD_0321 } from './testing/card-canonical-fixture.js';

describe('v03CardPayloads: what a2a-python 0.3 signs and verifies', () => {
  it('gives the bytes the real a2a-python computes, for 0.3.24+ and for 0.3.21–0.3.23', () => {
    expect(v03CardPayloads(JSON.parse(JSON.stringify(V03_CANONICAL_CARD)) as Record<string, unknown>)).toEqual([V03_CANONICAL_PAYLOAD, V03_CANONICAL_PAYLOAD_0321]);
  });

  it('gives one payload when the card holds no false and no 0', () => {
    const card = { name: 'a', description: 'd', url: 'https://a.example.com', version: '1', capabilities: { streaming: true }, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [] };
    expect(v03CardPayloads(card)).toEqual(['{"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"description":"d","name":"a","url":"https://a.example.com","version":"1"}']);
  });

  it('reads the 0.3 members only: the 1.0 ones, defaults, nulls and a scheme type are not in the view', () => {
    const view = v03CardView({
      name: 'a',
      supportedInterfaces: [{ url: 'u', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      protocolVersion: '0.3.0',
      preferredTransport: 'JSONRPC',
      iconUrl: null,
      capabilities: { extendedAgentCard: true, streaming: false },
      securitySchemes: { k: { type: 'apiKey', in: 'header', name: 'X', apiKeySecurityScheme: { location: 'header', name: 'X' } } },
      skills: [{ id: 's', securityRequirements: [], security: [{ k: [] }] }],
    });
    expect(view).toEqual({ name: 'a', capabilities: { streaming: false }, securitySchemes: { k: { in: 'header', name: 'X' } }, skills: [{ id: 's', security: [{ k: [] }] }] });
  });

  it('refuses a card the 0.3 model could not read', () => {
    expect(() => v03CardView({ skills: {} })).toThrow(V03CardViewError);
    expect(() => v03CardView({ securitySchemes: { k: { location: 'header' } } })).toThrow(/card.securitySchemes.k: a 0.3 security scheme needs its type/);
  });
});

describe('pythonJsonDumps: json.dumps(sort_keys=True, separators=(",", ":"))', () => {
  it.each([
    // each expected string is what CPython 3.11 printed for the value as JSON.stringify writes it
    [{ b: 1, a: [1.5, 1e-7, 1e21, 0.0001, -2.5e-8, 100, 'é✓𝄞\u007f\n"\\/\u0001'], '\ue000': 1, '𝄞': 2 }, '{"a":[1.5,1e-07,1e+21,0.0001,-2.5e-08,100,"\\u00e9\\u2713\\ud834\\udd1e\\u007f\\n\\"\\\\/\\u0001"],"b":1,"\\ue000":1,"\\ud834\\udd1e":2}'],
    [
      [true, false, null, 0, -0, 10000000000000000, 123.456e10, 0.1 + 0.2, 5e-324, 1.7976931348623157e308, 123456.789e3],
      '[true,false,null,0,0,10000000000000000,1234560000000,0.30000000000000004,5e-324,1.7976931348623157e+308,123456789]',
    ],
  ])('%j', (value, expected) => {
    expect(pythonJsonDumps(value)).toBe(expected);
  });
});
