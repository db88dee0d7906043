import { describe, expect, it, jest } from '@jest/globals';
import type { Redis } from 'ioredis';
import { connectRedis } from './redis-connection.js';
import { REDIS_URL } from './testing/redis-test-support.js';

/** Socket writes made while `count` commands issued in one tick are answered. */
async function writesFor(client: Redis, count: number): Promise<number> {
  const write = jest.spyOn(client.stream, 'write');
  try {
    const answers = await Promise.all(Array.from({ length: count }, (_, i) => client.echo(`c${i}`)));
    expect(answers).toEqual(Array.from({ length: count }, (_, i) => `c${i}`));
    return write.mock.calls.length;
  } finally {
    write.mockRestore();
  }
}

describe('connectRedis', () => {
  it('makes a connection that sends the commands of one tick in one socket write (auto-pipelining)', async () => {
    const { client, owned } = await connectRedis({ url: REDIS_URL });
    try {
      expect(owned).toBe(true);
      expect(await writesFor(client, 20)).toBe(1);
    } finally {
      client.disconnect();
    }
  });

  it("keeps the app's own choice: auto-pipelining off in its options, one write per command", async () => {
    const { client } = await connectRedis({ url: REDIS_URL, options: { enableAutoPipelining: false } });
    try {
      expect(await writesFor(client, 20)).toBe(20);
    } finally {
      client.disconnect();
    }
  });
});
