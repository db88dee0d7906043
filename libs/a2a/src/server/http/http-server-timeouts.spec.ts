import { describe, expect, it } from '@jest/globals';
import { resolveA2AOptions } from '../../a2a-options.js';
import { A2AConfigurationError } from '../../config/a2a-configuration.error.js';
import { HTTP_SERVER_DEFAULTS } from '../http-server-options.js';
import { checkingIntervalOf } from './http-server-timeouts.js';

const problemsOf = (httpServer: unknown): string[] => {
  try {
    resolveA2AOptions({ httpServer } as never);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(A2AConfigurationError);
    return [...(error as A2AConfigurationError).problems];
  }
};

describe('the httpServer option', () => {
  it('merges the defaults, or leaves the server alone with false', () => {
    expect(resolveA2AOptions({}).httpServer).toEqual({ headersTimeoutMs: 20_000, requestTimeoutMs: 60_000 });
    expect(resolveA2AOptions({ httpServer: { keepAliveTimeoutMs: 65_000 } }).httpServer).toEqual({ ...HTTP_SERVER_DEFAULTS, keepAliveTimeoutMs: 65_000 });
    expect(resolveA2AOptions({ httpServer: { requestTimeoutMs: 120_000 } }).httpServer).toEqual({ ...HTTP_SERVER_DEFAULTS, requestTimeoutMs: 120_000 });
    expect(resolveA2AOptions({ httpServer: false }).httpServer).toBe(false);
  });

  it.each([
    [{ headersTimeoutMs: 0 }, 'httpServer.headersTimeoutMs: must be an integer of at least 1 (milliseconds)'],
    [{ requestTimeoutMs: 60_000.5 }, 'httpServer.requestTimeoutMs: must be an integer of at least 1 (milliseconds)'],
    [{ keepAliveTimeoutMs: -1 }, 'httpServer.keepAliveTimeoutMs: must be an integer of at least 1 (milliseconds)'],
    [{ headersTimeoutMs: 30_000, requestTimeoutMs: 10_000 }, 'httpServer.headersTimeoutMs: must not exceed httpServer.requestTimeoutMs'],
    [true, 'httpServer: must be an object of timeouts, or false'],
  ])('refuses %j at start-up, naming the option', (httpServer, problem) => {
    expect(problemsOf(httpServer)).toEqual([problem]);
  });
});

describe('checkingIntervalOf', () => {
  it('checks for late clients often enough to cut them near their deadline, at most every second', () => {
    expect(checkingIntervalOf(HTTP_SERVER_DEFAULTS)).toBe(1000);
    expect(checkingIntervalOf({ ...HTTP_SERVER_DEFAULTS, headersTimeoutMs: 500, requestTimeoutMs: 1000 })).toBe(125);
    expect(checkingIntervalOf({ ...HTTP_SERVER_DEFAULTS, headersTimeoutMs: 1 })).toBe(100);
  });
});
