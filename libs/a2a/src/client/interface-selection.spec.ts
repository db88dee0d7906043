import { describe, expect, it } from '@jest/globals';
import { EgressPolicy } from '../net/egress-policy.js';
import type { AgentCard, AgentInterface } from '../protocol/types.js';
import { NoCompatibleInterfaceError } from './client-errors.js';
import { selectInterface } from './interface-selection.js';

const policy = new EgressPolicy();
const entry = (url: string, protocolBinding: string, protocolVersion = '1.0', tenant?: string): AgentInterface => ({
  url,
  protocolBinding,
  protocolVersion,
  ...(tenant === undefined ? {} : { tenant }),
});
const card = (...supportedInterfaces: AgentInterface[]): AgentCard => ({
  name: 'a',
  description: 'd',
  version: '1',
  supportedInterfaces,
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

describe('selectInterface (spec §8.3)', () => {
  it.each([
    ['the first entry the client speaks', [entry('https://a.example/grpc', 'GRPC'), entry('https://a.example/rest', 'HTTP+JSON'), entry('https://a.example/rpc', 'JSONRPC')], undefined, 'https://a.example/rest'],
    ['skipping versions it does not speak', [entry('https://a.example/v03', 'JSONRPC', '0.3'), entry('https://a.example/v2', 'JSONRPC', '2.0'), entry('https://a.example/v1', 'JSONRPC', '1.0.1')], undefined, 'https://a.example/v1'],
    ['the preferred binding over an earlier entry', [entry('https://a.example/rpc', 'JSONRPC'), entry('https://a.example/rest', 'HTTP+JSON')], 'HTTP+JSON', 'https://a.example/rest'],
    ['the first entry when the preferred binding is not offered', [entry('https://a.example/rpc', 'JSONRPC')], 'HTTP+JSON', 'https://a.example/rpc'],
    ['binding names in any case', [entry('https://a.example/rest', 'http+json')], undefined, 'https://a.example/rest'],
    ['the next entry when the egress policy refuses one', [entry('http://a.example/plain', 'JSONRPC'), entry('https://a.example/tls', 'JSONRPC')], undefined, 'https://a.example/tls'],
  ] as const)('picks %s', (_what, interfaces, preferredBinding, url) => {
    const selected = selectInterface(card(...interfaces), { policy, ...(preferredBinding ? { preferredBinding } : {}) });
    expect(selected.url.href).toBe(url);
  });

  it('keeps the entry (and its tenant) as published', () => {
    const selected = selectInterface(card(entry('https://a.example/rpc', 'JSONRPC', '1.0', 'acme')), { policy });
    expect(selected).toMatchObject({ binding: 'JSONRPC', interface: { tenant: 'acme' } });
  });

  it('says clearly when nothing fits, listing what the card offers', () => {
    const attempt = () => selectInterface(card(entry('https://a.example/rpc', 'JSONRPC', '0.3'), entry('a.example:443', 'GRPC', '1.0')), { policy, cardUrl: 'https://a.example/.well-known/agent-card.json' });
    expect(attempt).toThrow(NoCompatibleInterfaceError);
    expect(attempt).toThrow('https://a.example/.well-known/agent-card.json: no interface this client can use; it speaks JSONRPC or HTTP+JSON at A2A 1.0, the card offers JSONRPC 0.3, GRPC 1.0');
  });

  it('reports the first refusal when every usable entry is refused', () => {
    expect(() => selectInterface(card(entry('http://a.example/rpc', 'JSONRPC'), entry('https://10.0.0.1/rest', 'HTTP+JSON')), { policy })).toThrow(
      expect.objectContaining({ name: 'EgressRefusedError', reason: 'scheme' }),
    );
  });
});
