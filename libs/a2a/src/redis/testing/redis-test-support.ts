/**
 * Real-Redis helpers for the Redis backend specs: `REDIS_URL` (default redis://127.0.0.1:6379) picks
 * the server; every spec works under a key prefix of its own and deletes only keys under it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from '@jest/globals';
import { Redis, type RedisOptions } from 'ioredis';
import { REDIS_FAIL_FAST_OPTIONS } from '../redis-connection.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix no other run uses. */
export function uniquePrefix(): string {
  return `a2a-test:${randomUUID()}:`;
}

/**
 * A spec's own key prefix and Redis connection: connected before its tests run (so `client` is there
 * inside them), and afterwards the keys under the prefix deleted and the connection closed.
 */
export function redisOfSpec(): { readonly prefix: string; readonly client: Redis } {
  const spec = { prefix: uniquePrefix(), client: undefined as unknown as Redis };
  beforeAll(async () => {
    spec.client = await connectClient();
  });
  afterAll(async () => {
    await deleteKeys(spec.client, spec.prefix);
    await spec.client.quit();
  });
  return spec;
}

/** A connected fail-fast client, named so that CLIENT LIST can find it. */
export async function connectClient(connectionName = `a2a-test-${randomUUID()}`, overrides: RedisOptions = {}): Promise<Redis> {
  const client = new Redis(REDIS_URL, { ...REDIS_FAIL_FAST_OPTIONS, connectionName, lazyConnect: true, ...overrides });
  await client.connect();
  return client;
}

/**
 * A client of a Redis that is not there: 127.0.0.1:1 refuses every connection. It keeps trying to
 * reconnect, as an app's client would while Redis is down.
 */
export function unreachableClient(): Redis {
  const client = new Redis({ ...REDIS_FAIL_FAST_OPTIONS, host: '127.0.0.1', port: 1, connectionName: 'a2a-test-unreachable', disconnectTimeout: 100 });
  client.on('error', () => undefined);
  return client;
}

/** Deletes every key under `prefix` (and nothing else). */
export async function deleteKeys(client: Redis, prefix: string): Promise<void> {
  const keys = await keysUnder(client, prefix);
  for (let i = 0; i < keys.length; i += 1000) await client.del(...keys.slice(i, i + 1000));
}

/** {@link deleteKeys} on a connection of its own: for an afterAll that holds no client. */
export async function deleteKeysUnder(prefix: string): Promise<void> {
  const client = await connectClient();
  try {
    await deleteKeys(client, prefix);
  } finally {
    client.disconnect();
  }
}

/** Keys under `prefix`, sorted. */
export async function keysUnder(client: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', 1000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found.sort();
}

/** Connections whose name starts with `name`, from CLIENT LIST. */
export async function connectionsNamed(client: Redis, name: string): Promise<Array<{ id: number; name: string; cmd: string; flags: string }>> {
  const list = String(await client.client('LIST'));
  return list
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => Object.fromEntries(line.trim().split(' ').map((field) => field.split('=', 2) as [string, string])))
    .filter((fields) => fields.name?.startsWith(name))
    .map((fields) => ({ id: Number(fields.id), name: fields.name, cmd: fields.cmd, flags: fields.flags }));
}

function escapeGlob(value: string): string {
  return value.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
