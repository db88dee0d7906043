import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { checkA2AOptions, optionalPackagesOf, resolveA2AOptions } from './a2a-options.js';

describe('module options', () => {
  it('names the optional packages each option needs (an app that hands over its own client has ioredis)', () => {
    expect(optionalPackagesOf({})).toEqual([]);
    expect(optionalPackagesOf({ redis: { url: 'redis://127.0.0.1:6379' }, push: {} })).toEqual([
      { option: 'redis', packages: ['ioredis'] },
      { option: 'push', packages: ['@nestjs/bullmq', 'bullmq', 'ioredis'] },
    ]);
    const client = new Redis({ lazyConnect: true });
    expect(optionalPackagesOf({ redis: { client } })).toEqual([]);
    client.disconnect();
  });

  it('with problems, gives the defaults alone (no Redis, no push, no peers) and defaultAgent, for the rest of the start-up check', async () => {
    const options = { defaultAgent: 'a', redis: { url: 'redis://127.0.0.1:6379', leaseMs: 1 }, push: {}, peers: [{ name: 'p', url: 'https://p.example.com' }] };
    const checked = await checkA2AOptions(options);
    expect(checked.problems).toEqual(['redis.leaseMs: must be an integer of at least 100']);
    expect(checked.options).toEqual(resolveA2AOptions({ defaultAgent: 'a' }));
    expect(checked.options).toMatchObject({ redis: undefined, push: undefined, peers: [] });
  });

  it('refuses unknown keys at every level, secret-looking ones as literal secrets, never quoting a value', async () => {
    const { problems } = await checkA2AOptions({ limit: {}, card: { maxAge: 1 }, apiToken: 'sk-SECRET' } as never);
    expect(problems).toEqual([
      'limit: unknown option',
      expect.stringMatching(/^apiToken: literal secrets are not accepted in the options/),
      'card.maxAge: unknown option',
    ]);
    expect(problems.join('\n')).not.toContain('SECRET');
  });

  it('takes the options of a valid configuration as given, with the defaults merged level by level', async () => {
    const checked = await checkA2AOptions({ limits: { maxBodyBytes: 2048 }, card: { version: '2.0.0' } });
    expect(checked.problems).toEqual([]);
    expect(checked.options.limits).toEqual({
      maxBodyBytes: 2048,
      maxJsonDepth: 64,
      executorTimeoutMs: 600_000,
      maxPartsPerMessage: 1000,
      maxPartBytes: 1024 * 1024,
      maxMetadataBytes: 64 * 1024,
      maxListItems: 100,
      maxContextIdLength: 128,
    });
    expect(checked.options.card).toEqual({ version: '2.0.0', maxAgeSeconds: 300 });
  });

  it('gives running tasks 10 s at shutdown unless told otherwise, and checks the grace period', async () => {
    expect((await checkA2AOptions({})).options.shutdown).toEqual({ gracePeriodMs: 10_000 });
    expect((await checkA2AOptions({ shutdown: { gracePeriodMs: 0 } })).options.shutdown).toEqual({ gracePeriodMs: 0 });
    const { problems } = await checkA2AOptions({ shutdown: { gracePeriodMs: -1, drain: true } } as never);
    expect(problems).toEqual(['shutdown.drain: unknown option', 'shutdown.gracePeriodMs: must be an integer from 0 to 3600000 (milliseconds)']);
  });
});
