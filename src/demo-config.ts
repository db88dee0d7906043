/** The demo's environment (README, "The demo agent"). */
export interface DemoConfig {
  /** PLATFORM: the HTTP platform the demo runs on, `express` (the default) or `fastify`. */
  platform: DemoPlatform;
  port: number;
  host: string;
  /** Unset: the library derives it from the bound address (http://127.0.0.1:$PORT by default). */
  publicUrl?: string;
  allowUnauthenticated: boolean;
  /** `alice:key1,bob:key2`: turns on the demo's API-key guard. */
  apiKeys?: string;
  /** DEMO_SIGN_CARD=1: sign the card with a key made at start-up. */
  signCard: boolean;
  /** REDIS_URL (`redis://127.0.0.1:6379/3`, database included): tasks and event logs in Redis, push notifications on. */
  redisUrl?: string;
  /** A2A_REDIS_PREFIX: the prefix of every Redis key (default `a2a:`), so several demos (or test runs) share one database. */
  redisPrefix?: string;
  /** A2A_ALLOW_PRIVATE_WEBHOOKS=1: webhooks may target loopback and private addresses, over http too (local tests only). */
  allowPrivateWebhooks: boolean;
  /** A2A_PUSH_RETRY_SCHEDULE: comma-separated delays before each attempt (`0,200ms,1s,2s`). */
  pushRetrySchedule?: string;
  /** A2A_LEASE_MS: the lease of a running turn on Redis (failover tests shorten it). */
  leaseMs?: number;
  /** A2A_PUSH_ENCRYPTION_KEY: 32 bytes as base64 or hex; webhook credentials are then encrypted in Redis. */
  pushEncryptionKey?: string;
  /** DEMO_PEERS (`name=url,...`): the peers of the `support` agent; default the demo's own `echo` agent. */
  peers: DemoPeer[];
  /** A2A 0.3 served beside 1.0 (the module's `v03`); `A2A_V03=0` turns it off. */
  v03: boolean;
  /** A2A_RATE_LIMIT: requests per minute per caller (`@nestjs/throttler`); unset, no limit. */
  rateLimit?: number;
  /** A2A_SHUTDOWN_GRACE_MS: how long running tasks may take to finish after SIGTERM (the module's `shutdown.gracePeriodMs`). */
  shutdownGraceMs?: number;
}

export const DEMO_PLATFORMS = ['express', 'fastify'] as const;
export type DemoPlatform = (typeof DEMO_PLATFORMS)[number];

/** `PLATFORM`, checked: an unknown value fails start-up rather than silently running on Express. */
export function parseDemoPlatform(value: string | undefined): DemoPlatform {
  const platform = (value || 'express').toLowerCase();
  if (!(DEMO_PLATFORMS as readonly string[]).includes(platform)) throw new Error(`PLATFORM must be one of ${DEMO_PLATFORMS.join(', ')}`);
  return platform as DemoPlatform;
}

/** A peer of the `support` agent. */
export interface DemoPeer {
  name: string;
  url: string;
}

/**
 * `research=https://research.example.com,echo=http://127.0.0.1:3000`. An entry without `=` is kept
 * with an empty URL, so start-up names it rather than skipping it. Unset: the demo's own `echo`.
 */
export function parseDemoPeers(value: string | undefined, port: number): DemoPeer[] {
  if (value === undefined) return [{ name: 'echo', url: `http://127.0.0.1:${port}` }];
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const eq = entry.indexOf('=');
      return eq === -1 ? { name: entry, url: '' } : { name: entry.slice(0, eq).trim(), url: entry.slice(eq + 1).trim() };
    });
}

export function demoConfig(env: NodeJS.ProcessEnv = process.env): DemoConfig {
  const port = Number(env.PORT ?? 3000);
  return {
    platform: parseDemoPlatform(env.PLATFORM),
    port,
    host: env.HOST ?? '127.0.0.1',
    publicUrl: env.PUBLIC_URL || undefined,
    allowUnauthenticated: env.A2A_ALLOW_UNAUTHENTICATED === '1',
    apiKeys: env.DEMO_API_KEYS || undefined,
    signCard: env.DEMO_SIGN_CARD === '1',
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.A2A_REDIS_PREFIX || undefined,
    allowPrivateWebhooks: env.A2A_ALLOW_PRIVATE_WEBHOOKS === '1',
    pushRetrySchedule: env.A2A_PUSH_RETRY_SCHEDULE || undefined,
    pushEncryptionKey: env.A2A_PUSH_ENCRYPTION_KEY || undefined,
    leaseMs: env.A2A_LEASE_MS ? Number(env.A2A_LEASE_MS) : undefined,
    peers: parseDemoPeers(env.DEMO_PEERS, port),
    v03: env.A2A_V03 !== '0',
    rateLimit: positiveInteger(env, 'A2A_RATE_LIMIT'),
    shutdownGraceMs: positiveInteger(env, 'A2A_SHUTDOWN_GRACE_MS'),
  };
}

/** An optional positive integer variable; anything else fails start-up naming it. */
function positiveInteger(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  if (!/^[1-9]\d*$/.test(value)) throw new Error(`${name} must be a positive integer`);
  return Number(value);
}
