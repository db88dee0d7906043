import { describe, expect, it } from '@jest/globals';
import { EgressRefusedError, EgressRequestError } from '../net/egress-errors.js';
import { InternalError, ResourceExhaustedError, TaskNotFoundError, UnavailableError } from '../protocol/errors.js';
import { CallControl } from './call-control.js';
import { A2AHttpError, A2ATimeoutError, CircuitOpenError } from './client-errors.js';
import { errorFromStatus } from './error-mapping.js';
import { A2ACircuitBreakers, DEFAULT_RETRY, countsAgainstPeer, isTransient, runResilient } from './resilience.js';

const status = (code: number, headers: Record<string, string> = {}) => errorFromStatus({ statusCode: code, headers, target: 't' });

describe('which failures are transient (retried) and which count against the peer (breaker)', () => {
  it.each([
    ['a refused connection', new EgressRequestError('t', 'ECONNREFUSED', null), true, true],
    ['a connect timeout', new A2ATimeoutError('connect', 't', 1), true, true],
    ['the overall deadline', new A2ATimeoutError('deadline', 't', 1), false, true],
    ['HTTP 502', status(502), true, true],
    ['HTTP 503', status(503), true, true],
    ['HTTP 504', status(504), true, true],
    ['HTTP 429', status(429), true, false],
    ['HTTP 500', status(500), false, true],
    ['UnavailableError', new UnavailableError(), true, true],
    ['ResourceExhaustedError', new ResourceExhaustedError(), true, false],
    ['InternalError', new InternalError(), false, true],
    ['TaskNotFound', new TaskNotFoundError(), false, false],
    ['an egress refusal', new EgressRefusedError('private', 'no'), false, false],
    ['an open breaker', new CircuitOpenError('o', 1), false, false],
    ['a redirect', status(302), false, false],
  ])('%s', (_what, error, transient, counts) => {
    expect(isTransient(error, DEFAULT_RETRY, Infinity)).toBe(transient);
    expect(countsAgainstPeer(error)).toBe(counts);
  });

  it('a Retry-After beyond the cap or the time left is not waited for', () => {
    expect(isTransient(status(429, { 'retry-after': '5' }), DEFAULT_RETRY, Infinity)).toBe(true);
    expect(isTransient(status(429, { 'retry-after': '11' }), DEFAULT_RETRY, Infinity)).toBe(false);
    expect(isTransient(status(503, { 'retry-after': '5' }), DEFAULT_RETRY, 4_000)).toBe(false);
  });
});

describe('runResilient', () => {
  const call = <T>(attempt: () => Promise<T>, extra: Partial<Parameters<typeof runResilient<T>>[0]> = {}) =>
    runResilient({ origin: 'https://peer.example', retryable: true, control: new CallControl(), breakers: undefined, retry: { ...DEFAULT_RETRY, initialDelayMs: 1, maxDelayMs: 2 }, attempt, ...extra });

  it('retries transient failures up to maxRetries, then gives up with the last error', async () => {
    let attempts = 0;
    await expect(call(async () => { attempts++; throw status(503); })).rejects.toBeInstanceOf(A2AHttpError);
    expect(attempts).toBe(3);
  });

  it('does not retry what is not retryable', async () => {
    let attempts = 0;
    await expect(call(async () => { attempts++; throw status(503); }, { retryable: false })).rejects.toBeInstanceOf(A2AHttpError);
    await expect(call(async () => { attempts++; throw new TaskNotFoundError(); })).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(attempts).toBe(2);
  });

  it('stops retrying once the call is aborted (the caller then reports the abort reason)', async () => {
    const control = new CallControl();
    let attempts = 0;
    const reason = new Error('caller gave up');
    const error = await call(async () => { attempts++; control.abort(reason); throw status(503); }, { control }).catch((e: unknown) => e);
    expect(attempts).toBe(1);
    expect(control.failure(error)).toBe(reason);
  });

  it('an open breaker fails fast with CircuitOpenError; A2A answers keep it closed', async () => {
    const breakers = new A2ACircuitBreakers({ failureThreshold: 2, halfOpenAfterMs: 60_000 });
    for (let i = 0; i < 3; i++) await expect(call(async () => { throw new TaskNotFoundError(); }, { breakers })).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(breakers.state('https://peer.example')).toBe('closed');
    await expect(call(async () => { throw status(500); }, { breakers, retryable: false })).rejects.toBeInstanceOf(A2AHttpError);
    await expect(call(async () => { throw status(500); }, { breakers, retryable: false })).rejects.toBeInstanceOf(A2AHttpError);
    expect(breakers.state('https://peer.example')).toBe('open');
    let attempts = 0;
    await expect(call(async () => { attempts++; return 1; }, { breakers })).rejects.toBeInstanceOf(CircuitOpenError);
    expect(attempts).toBe(0);
  });
});

describe('an abort during a backoff delay', () => {
  it('is reported at once, and no further attempt is sent', async () => {
    const control = new CallControl();
    let attempts = 0;
    const started = Date.now();
    const pending = runResilient({
      origin: 'https://peer.example',
      retryable: true,
      control,
      breakers: undefined,
      retry: { ...DEFAULT_RETRY, maxRetryAfterMs: 60_000 },
      attempt: async () => {
        attempts++;
        throw status(503, { 'retry-after': '3' });
      },
    });
    setTimeout(() => control.abort(new Error('stop')), 50);
    await expect(pending).rejects.toThrow('stop');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(attempts).toBe(1);
  });
});
