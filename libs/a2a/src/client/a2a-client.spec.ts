import { describe, expect, it } from '@jest/globals';
import { A2AClient } from './a2a-client.js';
import { AgentCardResolver } from './card-resolver.js';
import { InvalidClientOptionsError } from './client-errors.js';

describe('A2AClient options', () => {
  it('lists every problem at once', () => {
    const attempt = () =>
      new A2AClient({
        timeoutMs: -1,
        streamIdleTimeoutMs: Number.NaN,
        preferredBinding: 'GRPC' as never,
        egress: { allowHosts: ['not a host/x'], dnsTimeoutMs: 0 },
        retry: { maxRetries: 99 },
        verify: {},
      });
    expect(attempt).toThrow(InvalidClientOptionsError);
    let problems: readonly string[] = [];
    try {
      attempt();
    } catch (error) {
      problems = (error as InvalidClientOptionsError).problems;
    }
    expect(problems).toEqual([
      expect.stringContaining('egress: dnsTimeoutMs'),
      expect.stringContaining('egress: allowHosts'),
      'retry.maxRetries must be an integer from 0 to 10 (got 99)',
      'give exactly one of cardUrl and card',
      'timeoutMs must be a positive number of milliseconds (got -1)',
      'streamIdleTimeoutMs must be a positive number of milliseconds (got NaN)',
      'preferredBinding must be one of JSONRPC, HTTP+JSON (got GRPC)',
      'verify needs keys or a jwksUrl',
    ]);
  });

  it('refuses a given card that is not a valid card', () => {
    expect(() => new A2AClient({ card: { name: 'x' } as never })).toThrow(/card: not a valid A2A Agent Card \(description is required/);
  });

  it('the resolver checks its own options and the network ones together', () => {
    expect(() => new AgentCardResolver({ defaultTtlMs: -5, connectTimeoutMs: 0 })).toThrow(
      'invalid A2A client options:\n  - connectTimeoutMs must be a positive number (got 0)\n  - defaultTtlMs must be a number of milliseconds (got -5)',
    );
  });
});
