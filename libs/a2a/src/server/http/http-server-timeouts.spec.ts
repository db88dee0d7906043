import { describe, expect, it } from '@jest/globals';
import { A2AConfigurationError } from '../../config/a2a-configuration.error.js';
import { resolveA2AOptions } from '../../config/a2a-options.js';
import { HTTP_SERVER_DEFAULTS, checkingIntervalOf, resolveHttpServerOptions } from './http-server-timeouts.js';

describe('resolveHttpServerOptions', () => {
  it('merges the defaults, or leaves the server alone with false', () => {
    expect(resolveHttpServerOptions(undefined, [])).toEqual({ headersTimeoutMs: 20_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000 });
    expect(resolveHttpServerOptions({ requestTimeoutMs: 120_000 }, [])).toEqual({ ...HTTP_SERVER_DEFAULTS, requestTimeoutMs: 120_000 });
    expect(resolveHttpServerOptions(false, [])).toBe(false);
  });

  it.each([
    [{ headersTimeoutMs: 0 }, 'httpServer.headersTimeoutMs: must be a positive integer (milliseconds)'],
    [{ requestTimeoutMs: 60_000.5 }, 'httpServer.requestTimeoutMs: must be a positive integer (milliseconds)'],
    [{ keepAliveTimeoutMs: -1 }, 'httpServer.keepAliveTimeoutMs: must be a positive integer (milliseconds)'],
    [{ headersTimeoutMs: 30_000, requestTimeoutMs: 10_000 }, 'httpServer.headersTimeoutMs: must not exceed httpServer.requestTimeoutMs'],
  ])('refuses %j', (options, problem) => {
    const problems: string[] = [];
    resolveHttpServerOptions(options, problems);
    expect(problems).toEqual([problem]);
  });

  it('is part of the module options, its problems listed with the others', () => {
    expect(() => resolveA2AOptions({ httpServer: { headersTimeoutMs: 0, keepAliveTimeoutMs: 0 } })).toThrow(A2AConfigurationError);
    expect(resolveA2AOptions({}).httpServer).toEqual(HTTP_SERVER_DEFAULTS);
  });
});

describe('checkingIntervalOf', () => {
  it('checks for late clients often enough to cut them near their deadline, at most every second', () => {
    expect(checkingIntervalOf(HTTP_SERVER_DEFAULTS)).toBe(1000);
    expect(checkingIntervalOf({ ...HTTP_SERVER_DEFAULTS, headersTimeoutMs: 500, requestTimeoutMs: 1000 })).toBe(125);
    expect(checkingIntervalOf({ ...HTTP_SERVER_DEFAULTS, headersTimeoutMs: 1 })).toBe(100);
  });
});
