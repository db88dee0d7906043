/** Dead-letter records on a real Redis, under a key prefix of this spec's own. */
import { describe, expect, it } from '@jest/globals';
import { redisOfSpec } from '../redis/testing/redis-test-support.js';
import { RedisPushDeadLetters, type PushDeadLetter } from './push-dead-letters.js';

const redis = redisOfSpec();
const NOW = Date.parse('2026-03-01T12:00:00Z');
const HOUR = 3_600_000;

function letter(webhookId: string, failedAt: number): PushDeadLetter {
  return {
    webhookId,
    scope: { agent: 'echo', tenant: '', subject: 'alice' },
    taskId: 't',
    seq: 1,
    configId: 'c',
    url: 'https://hooks.example.com/h',
    attempts: 3,
    lastError: 'HTTP 500',
    failedAt: new Date(failedAt).toISOString(),
  };
}

describe('RedisPushDeadLetters', () => {
  it('keeps records as long as tasks: older ones go as new ones come, and the list expires with its newest', async () => {
    const letters = new RedisPushDeadLetters(redis.client, { keyPrefix: `${redis.prefix}a:`, limit: 10, retentionMs: HOUR, now: () => NOW });
    await letters.record(letter('old', NOW - 2 * HOUR));
    await letters.record(letter('recent', NOW - HOUR / 2));
    await letters.record(letter('new', NOW));
    expect((await letters.list()).map((l) => l.webhookId)).toEqual(['new', 'recent']);
    const ttl = await redis.client.pttl(`${redis.prefix}a:push:dead`);
    expect(ttl).toBeGreaterThan(HOUR - 60_000);
    expect(ttl).toBeLessThanOrEqual(HOUR);
  });

  it('keeps at most `limit` records, and finds and removes one by webhook-id', async () => {
    const letters = new RedisPushDeadLetters(redis.client, { keyPrefix: `${redis.prefix}b:`, limit: 2, retentionMs: HOUR, now: () => NOW });
    for (const id of ['one', 'two', 'three']) await letters.record(letter(id, NOW));
    expect((await letters.list()).map((l) => l.webhookId)).toEqual(['three', 'two']);
    expect(await letters.get('two')).toEqual(letter('two', NOW));
    expect(await letters.get('one')).toBeUndefined();
    expect(await letters.remove('two')).toBe(true);
    expect(await letters.remove('two')).toBe(false);
    expect((await letters.list()).map((l) => l.webhookId)).toEqual(['three']);
  });
});
