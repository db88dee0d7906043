import 'reflect-metadata';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { generateKeyPair, type CryptoKey } from 'jose';
import { A2AConfigurationError } from '../config/a2a-configuration.error.js';
import { resolveA2AOptions, type A2AModuleOptions } from '../a2a-options.js';
import { configRetentionMs } from './push-options.js';

const redis = { url: 'redis://127.0.0.1:6379' };
let privateKey: CryptoKey;

beforeAll(async () => {
  ({ privateKey } = await generateKeyPair('ES256'));
});

function problemsOf(options: A2AModuleOptions): readonly string[] {
  try {
    resolveA2AOptions(options);
  } catch (error) {
    if (error instanceof A2AConfigurationError) return error.problems;
    throw error;
  }
  return [];
}

describe('push options', () => {
  it('push is off without the option, on with it', () => {
    expect(resolveA2AOptions({ redis }).push).toBeUndefined();
    expect(resolveA2AOptions({ redis, push: {} }).push).toBeDefined();
  });

  it('fills in the defaults', () => {
    expect(resolveA2AOptions({ redis, push: {} }).push).toEqual({
      retrySchedule: [0, 5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      jitter: 0.2,
      attemptTimeoutMs: 15_000,
      maxResponseBytes: 4096,
      retryAfterCapMs: 3_600_000,
      egress: {},
      signing: undefined,
      encryptionKey: undefined,
      queuePrefix: undefined,
      concurrency: 16,
      maxInFlightPerHost: 4,
      maxInFlightPerCaller: 8,
      maxConfigsPerTask: 20,
      deadLetterLimit: 1000,
      shutdownTimeoutMs: 16_000,
    });
  });

  it('derives the per-host and per-caller limits from the concurrency unless given', () => {
    expect(resolveA2AOptions({ redis, push: { concurrency: 3 } }).push).toMatchObject({ maxInFlightPerHost: 1, maxInFlightPerCaller: 2 });
    expect(resolveA2AOptions({ redis, push: { concurrency: 3, maxInFlightPerHost: 3, maxInFlightPerCaller: 1 } }).push).toMatchObject({ maxInFlightPerHost: 3, maxInFlightPerCaller: 1 });
    expect(problemsOf({ redis, push: { maxInFlightPerHost: 0, maxInFlightPerCaller: 1.5 } })).toHaveLength(2);
  });

  it('keeps a given queue prefix (the default depends on the connection: see push-queue.module)', () => {
    expect(resolveA2AOptions({ redis, push: { queuePrefix: 'app1:bull' } }).push?.queuePrefix).toBe('app1:bull');
  });

  it('needs redis', () => {
    expect(problemsOf({ push: {} })).toEqual(['push: needs redis (configs and the delivery queue live in Redis): set redis, or remove push']);
  });

  it('lists every problem at once, never echoing a secret', () => {
    const problems = problemsOf({
      redis,
      push: {
        retrySchedule: '0,later',
        jitter: 2,
        attemptTimeoutMs: 5,
        maxResponseBytes: -1,
        ...{ queueName: 'a2a-push' },
        concurrency: 0,
        encryptionKey: 'not-a-key-SECRETVALUE',
        egress: { allowHosts: ['not a host/'], allowPorts: [0] },
        signing: { key: privateKey, alg: 'HS256' as never, kid: '' },
      },
    });
    expect(problems).toEqual([
      'push.retrySchedule[1]: "later" is not a delay (a number of ms, or a number with ms, s, m or h)',
      'push.jitter: must be a number from 0 to 1',
      'push.attemptTimeoutMs: must be an integer from 100 to 300000 (ms)',
      'push.maxResponseBytes: must be an integer from 0 to 1048576',
      'push.queueName: the queue is always named a2a-push (A2A_PUSH_QUEUE_NAME, which @InjectQueue names): remove queueName, and give each app that shares a Redis its own queuePrefix',
      'push.concurrency: must be an integer from 1 to 1000',
      'push.encryptionKey: must be 32 bytes (a Buffer, or 32 bytes as base64 or hex text)',
      'push.egress: allowHosts: "not a host/" is neither a host name, an IP address nor a CIDR range',
      'push.egress: allowPorts: 0 is not a TCP port (1-65535)',
      'push.signing.alg: must be one of ES256, RS256, EdDSA (receivers verify with the public key served in the JWKS)',
      'push.signing.kid: is required (it names the key in the JWT header and the JWKS)',
    ]);
    expect(problems.join('\n')).not.toContain('SECRETVALUE');
  });

  it('refuses a push signing kid that a card signing key already uses', () => {
    const problems = problemsOf({
      redis,
      signing: { keys: [{ key: privateKey, alg: 'ES256', kid: 'k1' }] },
      push: { signing: { key: privateKey, alg: 'ES256', kid: 'k1' } },
    });
    expect(problems).toEqual(['push.signing.kid: "k1" is also the kid of a card signing key; the JWKS needs one key per kid']);
  });

  it('keeps a finished task\'s configs for its retention plus the whole schedule', () => {
    const push = resolveA2AOptions({ redis, push: { retrySchedule: '0,1s,2s', jitter: 0.5, retryAfterCapMs: 10_000, attemptTimeoutMs: 1000 } }).push!;
    expect(configRetentionMs(push, 60_000)).toBe(60_000 + 4500 + 10_000 + 3000);
  });
});
