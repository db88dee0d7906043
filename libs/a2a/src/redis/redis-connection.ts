/** The module's Redis connection: made from a URL or options (fail-fast), or the app's own client. */
import type { Redis, RedisOptions } from 'ioredis';
import { A2AConfigurationError } from '../config/a2a-configuration.error.js';
import { errorLine } from '../config/error-line.js';

/** @publicApi */
export interface A2ARedisOptions {
  /** `redis://[user:password@]host:port/db`. */
  url?: string;
  /** ioredis options, over those of the URL. The fail-fast options are applied on top. */
  options?: RedisOptions;
  /**
   * An ioredis client of your own instead: used as given (connected, with
   * `REDIS_FAIL_FAST_OPTIONS`, no `keyPrefix`), never closed by the module.
   */
  client?: Redis;
  /** Prefix of every key the module writes. Default `a2a:`. */
  keyPrefix?: string;
  /**
   * A running task whose instance stops renewing its claim for this long is taken over and failed
   * (within one and a half times this after the instance stopped). Default 10000.
   */
  leaseMs?: number;
}

/**
 * ioredis options that make store commands fail fast while Redis is unreachable instead of waiting
 * for it (the ioredis defaults queue commands while disconnected and retry each one up to 20 times
 * across reconnects). Spread them into a client the app hands to the module or to `RedisTaskBackend`:
 *
 * - `enableOfflineQueue: false`: a command issued while disconnected fails at once. The client must
 *   then be connected before first use (`lazyConnect: true` + `await client.connect()`, or wait for
 *   its `ready` event).
 * - `maxRetriesPerRequest: 1`: a command in flight when the connection drops fails after one
 *   reconnect attempt (the scripts' version checks make a resent write harmless).
 * - `commandTimeout`: a server that accepts connections but does not answer fails the command too.
 * - `connectTimeout`: a connect attempt to a black-holed address gives up quickly.
 *
 * Never share this client with BullMQ, whose workers need `maxRetriesPerRequest: null`.
 * @publicApi
 */
export const REDIS_FAIL_FAST_OPTIONS = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 5_000,
  connectTimeout: 5_000,
} as const satisfies RedisOptions;

export interface RedisConnection {
  readonly client: Redis;
  /** Made by the module: closed by it. */
  readonly owned: boolean;
}

/** `redis://user:secret@host` → `redis://host`: a URL fit for an error message. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return '(an unparseable URL)';
  }
}

/**
 * Connects, or fails start-up at once with a message saying where and why (never the password).
 * ioredis is an optional peer dependency: it is loaded only here.
 * @throws A2AConfigurationError
 */
export async function connectRedis(options: A2ARedisOptions): Promise<RedisConnection> {
  if (options.client) return { client: options.client, owned: false };
  let Redis: typeof import('ioredis').Redis;
  try {
    ({ Redis } = await import('ioredis'));
  } catch {
    throw new A2AConfigurationError(['redis is configured but ioredis is not installed: npm install ioredis']);
  }
  const settings: RedisOptions = { ...options.options, ...REDIS_FAIL_FAST_OPTIONS, lazyConnect: true, connectionName: options.options?.connectionName ?? 'a2a', disconnectTimeout: 200 };
  const client = options.url ? new Redis(options.url, settings) : new Redis(settings);
  writeEachTurnAtOnce(client);
  await connectOrExplain(client, (reason) => `Redis at ${redisLocation(options)} is unreachable (${reason}): start it, or fix the redis options`);
  return { client, owned: true };
}

/**
 * The commands `client` is sent in one turn of the event loop go out in one socket write: its socket
 * is corked at the turn's first command and uncorked once the turn's I/O callbacks have run
 * (`setImmediate`). With many tasks in flight, the replies and answers of one turn resume dozens of
 * them, each sending a command or two (a commit, a cursor's move), and a write per command was a fifth
 * of the process's CPU and woke Redis as often; corked, ~20 commands leave in a write. Unlike ioredis's
 * `enableAutoPipelining` it builds no pipeline per batch, so a lone command costs a `setImmediate` and
 * no more. Order is kept: every command goes through the one socket in the order it was sent.
 */
function writeEachTurnAtOnce(client: Redis): void {
  const send = client.sendCommand.bind(client);
  let corked: Redis['stream'] | undefined;
  const uncork = () => {
    corked?.uncork();
    corked = undefined;
  };
  client.sendCommand = (command, stream) => {
    // a pipeline (`stream` given) writes its commands in one write already
    if (!stream && !corked && client.status === 'ready' && client.stream.writable) {
      corked = client.stream;
      corked.cork();
      setImmediate(uncork);
    }
    return send(command, stream);
  };
}

/** Where the options point, fit for a message: the redacted URL, or host:port. */
export function redisLocation(options: A2ARedisOptions): string {
  if (options.url) return redactRedisUrl(options.url);
  const settings = options.client?.options ?? options.options;
  return `${settings?.host ?? '127.0.0.1'}:${settings?.port ?? 6379}`;
}

/**
 * Connects a lazy client and pings it; when that fails, disconnects it and throws
 * `unreachable(reason)` (ECONNREFUSED, ENOTFOUND, NOAUTH…; never the password) as a configuration error.
 * Later errors surface on the commands that hit them; the client reconnects by itself when Redis comes back.
 * @throws A2AConfigurationError
 */
export async function connectOrExplain(client: Redis, unreachable: (reason: string) => string): Promise<void> {
  let lastError: NodeJS.ErrnoException | undefined;
  client.on('error', (error: NodeJS.ErrnoException) => (lastError = error));
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    // the connection error itself came as an 'error' event
    const reason = lastError?.code ?? errorLine(lastError ?? error, 80);
    throw new A2AConfigurationError([unreachable(reason)]);
  }
}
