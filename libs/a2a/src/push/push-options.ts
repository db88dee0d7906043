/** The `push` options of the module: their defaults and their checks (every problem at once). */
import { types } from 'node:util';
import type * as jose from 'jose';
import { egressPolicyOf, type EgressPolicyOptions } from '../net/egress-policy.js';
import { isJwk } from '../protocol/card-signing.js';
import { isPlainObject } from '../protocol/json-value.js';
import { parseRetrySchedule, type RetryScheduleInput } from './retry-schedule.js';
import { parseEncryptionKey } from './secret-box.js';

/** Algorithms notifications are signed with: asymmetric only, so receivers verify with the served JWKS. @publicApi */
export type NotificationSigningAlgorithm = 'ES256' | 'RS256' | 'EdDSA';

export const NOTIFICATION_SIGNING_ALGORITHMS: readonly NotificationSigningAlgorithm[] = ['ES256', 'RS256', 'EdDSA'];

/** @publicApi */
export interface A2APushSigningOptions {
  /** The private key (`CryptoKey`, Node `KeyObject` or private JWK). Its public part is served in the module's JWKS. */
  key: jose.CryptoKey | jose.KeyObject | jose.JWK;
  /** Default: the JWK's `alg`. */
  alg?: NotificationSigningAlgorithm;
  /** Key id, in the JWT header and the JWKS. Default: the JWK's `kid`. Must differ from the card signing keys' ids. */
  kid?: string;
  /** The JWT `iss`. Default: the URL of the agent's card (its per-agent path). */
  issuer?: string;
  /** Lifetime of each JWT (`exp` − `iat`), in seconds. Default 300. */
  expiresInSeconds?: number;
}

/**
 * Push notifications (spec §3.1.7–3.1.10, §4.3): webhook configs stored in Redis, each event of a
 * task sent to each of its webhooks by a BullMQ queue, on a retry schedule. Setting `push` turns them
 * on (`capabilities.pushNotifications: true`); it requires `redis`.
 * @publicApi
 */
export interface A2APushOptions {
  /**
   * The delay before each attempt (N entries: at most N attempts); each delay varies by ±`jitter`.
   * A preset (`'default'`: 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; `'fast'`: 0, 1 s, 5 s, 30 s,
   * 2 min), a comma-separated string (`'0,200ms,1s,2s'`) or an array (`[0, '5s', 300000]`; a bare
   * number is milliseconds). Default `'default'`.
   */
  retrySchedule?: RetryScheduleInput;
  /** Spread of each delay, 0–1 (0.2: ±20 %). Default 0.2. */
  jitter?: number;
  /** Deadline of one attempt: connecting, sending and reading the answer together, in ms. Default 15000. */
  attemptTimeoutMs?: number;
  /** What is read of a receiver's answer at most, in bytes (the rest is dropped with the connection). Default 4096. */
  maxResponseBytes?: number;
  /** The longest `Retry-After` (429, 503) honoured, in ms; a longer one is cut to this. Default 3600000 (1 h). */
  retryAfterCapMs?: number;
  /**
   * Which webhook URLs may be registered and dialled (SSRF protection). Default: `https` only, and
   * no loopback, private, link-local, unique-local, CGNAT, multicast, reserved or metadata address.
   * `allowHttp` and `allowPrivate` are for development; `allowHosts` lists exceptions.
   */
  egress?: EgressPolicyOptions;
  /** Sign every notification with a JWT (header `X-A2A-Notification-Signature`); the public key is served in the JWKS. */
  signing?: A2APushSigningOptions;
  /**
   * 32 bytes (a Buffer, or base64 / hex text): `authentication.credentials` and `token` of every
   * config are stored encrypted with it (AES-256-GCM). Without it they are stored as given.
   */
  encryptionKey?: string | Uint8Array;
  /** BullMQ queue name. Default `a2a-push`. */
  queueName?: string;
  /** BullMQ key prefix. Default: the redis `keyPrefix` followed by `bull` (`a2a:bull`). */
  queuePrefix?: string;
  /** Deliveries in flight at once per instance. Default 16. */
  concurrency?: number;
  /** Configs one task may have. Default 20. */
  maxConfigsPerTask?: number;
  /** How many dead-letter records (deliveries that used up their schedule) are kept. Default 1000. */
  deadLetterLimit?: number;
  /** On shutdown, how long the worker may take to finish the deliveries in flight, in ms. Default: attemptTimeoutMs + 1000. */
  shutdownTimeoutMs?: number;
}

/** The push options with every default filled in. */
export interface ResolvedPushOptions {
  retrySchedule: number[];
  jitter: number;
  attemptTimeoutMs: number;
  maxResponseBytes: number;
  retryAfterCapMs: number;
  egress: EgressPolicyOptions;
  signing?: ResolvedPushSigning;
  encryptionKey?: Buffer;
  queueName: string;
  queuePrefix: string;
  concurrency: number;
  maxConfigsPerTask: number;
  deadLetterLimit: number;
  shutdownTimeoutMs: number;
}

export interface ResolvedPushSigning {
  key: jose.CryptoKey | jose.KeyObject | jose.JWK;
  alg: NotificationSigningAlgorithm;
  kid: string;
  issuer?: string;
  expiresInSeconds: number;
}

const isInt = (value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): boolean =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

function resolveSigning(signing: A2APushSigningOptions, problems: string[]): ResolvedPushSigning | undefined {
  const before = problems.length;
  const key = signing.key as unknown;
  const jwk = isJwk(key) ? key : undefined;
  const alg = signing.alg ?? (jwk?.alg as NotificationSigningAlgorithm | undefined);
  const kid = signing.kid ?? jwk?.kid;
  if (key === undefined || key === null || (!jwk && !types.isKeyObject(key) && !types.isCryptoKey(key))) {
    problems.push('push.signing.key: must be a private key (CryptoKey, KeyObject or JWK)');
  }
  if (!alg || !NOTIFICATION_SIGNING_ALGORITHMS.includes(alg)) {
    problems.push(`push.signing.alg: must be one of ${NOTIFICATION_SIGNING_ALGORITHMS.join(', ')} (receivers verify with the public key served in the JWKS)`);
  }
  if (typeof kid !== 'string' || kid === '') problems.push('push.signing.kid: is required (it names the key in the JWT header and the JWKS)');
  if (signing.issuer !== undefined && (typeof signing.issuer !== 'string' || signing.issuer === '')) problems.push('push.signing.issuer: must be a non-empty string');
  if (signing.expiresInSeconds !== undefined && !isInt(signing.expiresInSeconds, 1, 86_400)) {
    problems.push('push.signing.expiresInSeconds: must be an integer from 1 to 86400');
  }
  if (problems.length > before) return undefined;
  return { key: signing.key, alg: alg!, kid: kid!, issuer: signing.issuer, expiresInSeconds: signing.expiresInSeconds ?? 300 };
}

/**
 * Checks the push options (each problem goes to `problems`) and fills in the defaults.
 * `keyPrefix`: the module's Redis key prefix, the default queue prefix's start.
 */
export function resolvePushOptions(push: A2APushOptions, keyPrefix: string, problems: string[]): ResolvedPushOptions | undefined {
  const before = problems.length;
  if (!isPlainObject(push as unknown)) {
    problems.push('push: must be an object (use {} for the defaults)');
    return undefined;
  }
  const retrySchedule = parseRetrySchedule(push.retrySchedule, problems);
  const check = (name: keyof A2APushOptions, ok: boolean, text: string) => {
    if (push[name] !== undefined && !ok) problems.push(`push.${name}: ${text}`);
  };
  check('jitter', typeof push.jitter === 'number' && push.jitter >= 0 && push.jitter <= 1, 'must be a number from 0 to 1');
  check('attemptTimeoutMs', isInt(push.attemptTimeoutMs, 100, 300_000), 'must be an integer from 100 to 300000 (ms)');
  check('maxResponseBytes', isInt(push.maxResponseBytes, 0, 1_048_576), 'must be an integer from 0 to 1048576');
  check('retryAfterCapMs', isInt(push.retryAfterCapMs, 0, 7 * 86_400_000), 'must be an integer from 0 to 604800000 (ms)');
  check('queueName', typeof push.queueName === 'string' && /^[A-Za-z0-9._-]{1,100}$/.test(push.queueName), 'must be letters, digits, . _ - (no colon)');
  check('queuePrefix', typeof push.queuePrefix === 'string' && push.queuePrefix !== '', 'must be a non-empty string');
  check('concurrency', isInt(push.concurrency, 1, 1000), 'must be an integer from 1 to 1000');
  check('maxConfigsPerTask', isInt(push.maxConfigsPerTask, 1, 1000), 'must be an integer from 1 to 1000');
  check('deadLetterLimit', isInt(push.deadLetterLimit, 0, 1_000_000), 'must be an integer from 0 to 1000000');
  check('shutdownTimeoutMs', isInt(push.shutdownTimeoutMs, 0, 600_000), 'must be an integer from 0 to 600000 (ms)');
  let encryptionKey: Buffer | undefined;
  if (push.encryptionKey !== undefined) {
    encryptionKey = parseEncryptionKey(push.encryptionKey);
    // the message never echoes the value: it is a secret
    if (!encryptionKey) problems.push('push.encryptionKey: must be 32 bytes (a Buffer, or 32 bytes as base64 or hex text)');
  }
  const egress: unknown = push.egress ?? {};
  if (!isPlainObject(egress)) problems.push('push.egress: must be an object of egress policy options');
  else egressPolicyOf(egress, 'push.egress', problems);
  const signingGiven = push.signing as unknown;
  const signing = signingGiven === undefined ? undefined : isPlainObject(signingGiven) ? resolveSigning(push.signing!, problems) : undefined;
  if (signingGiven !== undefined && !isPlainObject(signingGiven)) problems.push('push.signing: must be { key, alg, kid, issuer? }');
  if (problems.length > before) return undefined;
  const attemptTimeoutMs = push.attemptTimeoutMs ?? 15_000;
  return {
    retrySchedule,
    jitter: push.jitter ?? 0.2,
    attemptTimeoutMs,
    maxResponseBytes: push.maxResponseBytes ?? 4096,
    retryAfterCapMs: push.retryAfterCapMs ?? 3_600_000,
    egress: egress as EgressPolicyOptions,
    signing,
    encryptionKey,
    queueName: push.queueName ?? 'a2a-push',
    queuePrefix: push.queuePrefix ?? `${keyPrefix}bull`,
    concurrency: push.concurrency ?? 16,
    maxConfigsPerTask: push.maxConfigsPerTask ?? 20,
    deadLetterLimit: push.deadLetterLimit ?? 1000,
    shutdownTimeoutMs: push.shutdownTimeoutMs ?? attemptTimeoutMs + 1000,
  };
}

/**
 * How long a finished task's configs are kept: the task's own retention, plus the whole schedule
 * (with jitter) and the longest Retry-After, so the retries of its last notifications still find
 * their config.
 */
export function configRetentionMs(push: ResolvedPushOptions, taskRetentionMs: number): number {
  const schedule = push.retrySchedule.reduce((sum, ms) => sum + ms, 0);
  return taskRetentionMs + Math.ceil(schedule * (1 + push.jitter)) + push.retryAfterCapMs + push.retrySchedule.length * push.attemptTimeoutMs;
}
