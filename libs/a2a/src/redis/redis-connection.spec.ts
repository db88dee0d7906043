import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Redis } from 'ioredis';
import { connectRedis } from './redis-connection.js';
import { REDIS_URL, connectClient, deleteKeys, uniquePrefix } from './testing/redis-test-support.js';

/** Socket writes (each a system call) the connection makes while `work` runs. */
async function socketWrites<T>(client: Redis, work: () => Promise<T>): Promise<{ writes: number; result: T }> {
  const socket = client.stream as unknown as { _write: (...args: unknown[]) => void; _writev: (...args: unknown[]) => void };
  const write = jest.spyOn(socket, '_write');
  const writev = jest.spyOn(socket, '_writev');
  try {
    const result = await work();
    return { writes: write.mock.calls.length + writev.mock.calls.length, result };
  } finally {
    write.mockRestore();
    writev.mockRestore();
  }
}

describe('connectRedis: the commands of one turn of the event loop in one socket write', () => {
  const prefix = uniquePrefix();
  let client: Redis;
  beforeAll(async () => {
    ({ client } = await connectRedis({ url: REDIS_URL }));
  });
  afterAll(async () => {
    await deleteKeys(client, prefix);
    client.disconnect();
  });

  it('sends 20 commands issued in one turn, some after awaiting others, in one write', async () => {
    const { writes, result } = await socketWrites(client, () =>
      Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          // a promise reaction of the same turn, as a task resumed by a reply issues its next command
          await Promise.resolve();
          return [await client.echo(`a${i}`), await Promise.all([client.echo(`b${i}`)])];
        }),
      ),
    );
    expect(result).toEqual(Array.from({ length: 10 }, (_, i) => [`a${i}`, [`b${i}`]]));
    // the ten first echoes together, then the ten second ones once the replies came
    expect(writes).toBe(2);
  });

  it('writes a lone command at the end of its turn, and every turn its own', async () => {
    const { writes, result } = await socketWrites(client, async () => {
      const answers: string[] = [];
      for (let i = 0; i < 3; i++) {
        answers.push(await client.echo(`alone ${i}`));
        await nextTurn();
      }
      return answers;
    });
    expect(result).toEqual(['alone 0', 'alone 1', 'alone 2']);
    expect(writes).toBe(3);
  });

  it('keeps the order of commands, a MULTI among them, and the answers to each', async () => {
    const key = `${prefix}order`;
    const [first, multi, last] = await Promise.all([
      client.rpush(key, 'one'),
      client.multi().rpush(key, 'two').lrange(key, 0, -1).exec(),
      client.rpush(key, 'three'),
    ]);
    expect(first).toBe(1);
    expect(multi).toEqual([
      [null, 2],
      [null, ['one', 'two']],
    ]);
    expect(last).toBe(3);
    expect(await client.lrange(key, 0, -1)).toEqual(['one', 'two', 'three']);
  });

  it("leaves the app's own client as it is: a write per command", async () => {
    const own = await connectClient();
    const { client: given } = await connectRedis({ client: own });
    try {
      const { writes } = await socketWrites(given, () => Promise.all(Array.from({ length: 5 }, (_, i) => given.echo(`${i}`))));
      expect(writes).toBe(5);
    } finally {
      own.disconnect();
    }
  });
});
