import { describe, expect, it } from '@jest/globals';
import { EgressPolicy } from '../net/egress-policy.js';
import type { AgentCard, AgentInterface } from '../protocol/types.js';
import { NoCompatibleInterfaceError } from './client-errors.js';
import { selectInterface, v03FallbackInterface } from './interface-selection.js';

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
    ['skipping versions it does not speak', [entry('https://a.example/v01', 'JSONRPC', '0.1'), entry('https://a.example/v2', 'JSONRPC', '2.0'), entry('https://a.example/v1', 'JSONRPC', '1.0.1')], undefined, 'https://a.example/v1'],
    ['a 1.0 entry before an earlier 0.3 one', [entry('https://a.example/v03', 'JSONRPC', '0.3'), entry('https://a.example/v1', 'HTTP+JSON', '1.0')], undefined, 'https://a.example/v1'],
    ['a 1.0 entry before a 0.3 one of the preferred binding', [entry('https://a.example/v03', 'HTTP+JSON', '0.3'), entry('https://a.example/v1', 'JSONRPC', '1.0')], 'HTTP+JSON', 'https://a.example/v1'],
    ['a 0.3 entry when the card offers no 1.0 one (0.2 read as 0.3)', [entry('a.example:443', 'GRPC', '1.0'), entry('https://a.example/v02', 'JSONRPC', '0.2.9'), entry('https://a.example/v03', 'HTTP+JSON', '0.3')], 'HTTP+JSON', 'https://a.example/v03'],
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

  it('says at which version it talks', () => {
    expect(selectInterface(card(entry('https://a.example/rpc', 'JSONRPC', '1.0.2')), { policy }).protocolVersion).toBe('1.0');
    expect(selectInterface(card(entry('https://a.example/rpc', 'JSONRPC', '0.3.0')), { policy }).protocolVersion).toBe('0.3');
  });

  it('says clearly when nothing fits, listing what the card offers', () => {
    const attempt = () => selectInterface(card(entry('https://a.example/rpc', 'JSONRPC', '0.1'), entry('a.example:443', 'GRPC', '1.0')), { policy, cardUrl: 'https://a.example/.well-known/agent-card.json' });
    expect(attempt).toThrow(NoCompatibleInterfaceError);
    expect(attempt).toThrow('https://a.example/.well-known/agent-card.json: no interface this client can use; it speaks JSONRPC or HTTP+JSON at A2A 1.0 or 0.3, the card offers JSONRPC 0.1, GRPC 1.0');
  });

  it('reports the first refusal when every usable entry is refused', () => {
    expect(() => selectInterface(card(entry('http://a.example/rpc', 'JSONRPC'), entry('https://10.0.0.1/rest', 'HTTP+JSON')), { policy })).toThrow(
      expect.objectContaining({ name: 'EgressRefusedError', reason: 'scheme' }),
    );
  });
});

describe('v03FallbackInterface: where to speak 0.3 when a 1.0 call was answered as by a 0.3 agent', () => {
  const v1Rpc = entry('https://a.example/rpc', 'JSONRPC', '1.0');
  const v1Rest = entry('https://a.example/rest', 'HTTP+JSON', '1.0');

  it.each([
    ['the 0.3 entry of the same binding at the same URL', [v1Rpc, entry('https://a.example/old', 'JSONRPC', '0.3'), entry('https://a.example/rpc', 'JSONRPC', '0.3')], 'https://a.example/rpc', 'JSONRPC'],
    ['else of the same binding', [v1Rpc, entry('https://a.example/old-rest', 'HTTP+JSON', '0.3'), entry('https://a.example/old', 'JSONRPC', '0.3')], 'https://a.example/old', 'JSONRPC'],
    ['else any 0.3 entry', [v1Rpc, entry('https://a.example/old-rest', 'HTTP+JSON', '0.3')], 'https://a.example/old-rest', 'HTTP+JSON'],
    ['else the same entry, spoken at 0.3', [v1Rpc, v1Rest], 'https://a.example/rpc', 'JSONRPC'],
  ] as const)('%s', (_what, interfaces, url, binding) => {
    const agent = card(...interfaces);
    const fallback = v03FallbackInterface(agent, selectInterface(agent, { policy }), policy);
    expect(fallback).toMatchObject({ binding, protocolVersion: '0.3' });
    expect(fallback.url.href).toBe(url);
  });
});
