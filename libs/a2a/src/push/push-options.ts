/** The `push` options of the module: their checks (a DTO: every problem at once) and their defaults. */
import { types } from 'node:util';
import type * as jose from 'jose';
import { Check, IntegerOption, Nested, NumberOption, StringOption, parentOf } from '../config/option-validation.js';
import { EgressOption, type EgressPolicyOptions } from '../net/egress-policy.js';
import { isJwk } from '../protocol/card-signing.js';
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
  /**
   * BullMQ key prefix of the queue (`A2A_PUSH_QUEUE_NAME`, always `a2a-push`). Default: on the
   * module's Redis, the redis `keyPrefix` followed by `bull` (`a2a:bull`); on the app's own
   * `BullModule.forRoot` connection, that configuration's `prefix` (BullMQ's default `bull`).
   */
  queuePrefix?: string;
  /** Deliveries in flight at once per instance. Default 16. */
  concurrency?: number;
  /**
   * Deliveries in flight at once to one receiver host (`host:port`), per instance; a host that let an
   * attempt run into its deadline gets one at a time until it answers again. Default: a quarter of
   * `concurrency` (at least 1).
   */
  maxInFlightPerHost?: number;
  /** Deliveries in flight at once for one caller (tenant and subject), per instance. Default: half of `concurrency` (at least 1). */
  maxInFlightPerCaller?: number;
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
  /** Only when given (see `A2APushOptions.queuePrefix` for the defaults). */
  queuePrefix?: string;
  concurrency: number;
  maxInFlightPerHost: number;
  maxInFlightPerCaller: number;
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

const isKey = (key: unknown) => isJwk(key) || types.isKeyObject(key) || types.isCryptoKey(key);
/** The algorithm and key id a signing option means: given, or the JWK's own. */
const algOf = (signing: Partial<A2APushSigningOptions>) => signing.alg ?? (isJwk(signing.key) ? (signing.key.alg as NotificationSigningAlgorithm | undefined) : undefined);
const kidOf = (signing: Partial<A2APushSigningOptions>) => signing.kid ?? (isJwk(signing.key) ? signing.key.kid : undefined);

/** The kids of the card signing keys beside these push options (one JWKS serves both). */
function cardKids(push: object | undefined): unknown[] {
  const keys = (push && parentOf<{ signing?: { keys?: unknown } }>(push)?.signing?.keys) ?? [];
  return Array.isArray(keys) ? keys.map((k: { kid?: unknown; key?: { kid?: unknown } }) => k?.kid ?? k?.key?.kid) : [];
}

class PushSigningDto {
  @Check(isKey, 'must be a private key (CryptoKey, KeyObject or JWK)', { evenWhenMissing: true }) key?: unknown;
  @Check(
    (_, signing) => NOTIFICATION_SIGNING_ALGORITHMS.includes(algOf(signing) as NotificationSigningAlgorithm),
    `must be one of ${NOTIFICATION_SIGNING_ALGORITHMS.join(', ')} (receivers verify with the public key served in the JWKS)`,
    { evenWhenMissing: true },
  )
  alg?: unknown;
  @Check((_, signing) => kidOf(signing) === undefined || !cardKids(parentOf(signing)).includes(kidOf(signing)), (_, signing) => `"${String(kidOf(signing))}" is also the kid of a card signing key; the JWKS needs one key per kid`, {
    evenWhenMissing: true,
  })
  @Check((_, signing) => typeof kidOf(signing) === 'string' && kidOf(signing) !== '', 'is required (it names the key in the JWT header and the JWKS)', { evenWhenMissing: true })
  kid?: unknown;
  @StringOption('must be a non-empty string') issuer?: unknown;
  @IntegerOption(1, 86_400) expiresInSeconds?: unknown;
}

/** The checks of `push`: every problem at once, never a secret's value. */
export class PushOptionsDto {
  @Check((value) => retryScheduleProblems(value).length === 0, (value) => retryScheduleProblems(value).join('\n')) retrySchedule?: unknown;
  @NumberOption(0, 1) jitter?: unknown;
  @IntegerOption(100, 300_000, 'ms') attemptTimeoutMs?: unknown;
  @IntegerOption(0, 1_048_576) maxResponseBytes?: unknown;
  @IntegerOption(0, 7 * 86_400_000, 'ms') retryAfterCapMs?: unknown;
  @Check(() => false, 'the queue is always named a2a-push (A2A_PUSH_QUEUE_NAME, which @InjectQueue names): remove queueName, and give each app that shares a Redis its own queuePrefix')
  queueName?: unknown;
  @StringOption('must be a non-empty string') queuePrefix?: unknown;
  @IntegerOption(1, 1000) concurrency?: unknown;
  @IntegerOption(1, 1000) maxInFlightPerHost?: unknown;
  @IntegerOption(1, 1000) maxInFlightPerCaller?: unknown;
  @IntegerOption(1, 1000) maxConfigsPerTask?: unknown;
  @IntegerOption(0, 1_000_000) deadLetterLimit?: unknown;
  @IntegerOption(0, 600_000, 'ms') shutdownTimeoutMs?: unknown;
  // the message never echoes the value: it is a secret
  @Check((value) => parseEncryptionKey(value) !== undefined, 'must be 32 bytes (a Buffer, or 32 bytes as base64 or hex text)') encryptionKey?: unknown;
  @EgressOption('must be an object of egress policy options') egress?: unknown;
  @Nested(() => PushSigningDto, 'must be { key, alg, kid, issuer? }') signing?: unknown;
}

function retryScheduleProblems(input: unknown): string[] {
  const problems: string[] = [];
  parseRetrySchedule(input as RetryScheduleInput, problems, '');
  return problems.map((problem) => problem.replace(/^: /, ''));
}

/** The push options with every default filled in. The options must have passed {@link PushOptionsDto}. */
export function resolvePushOptions(push: A2APushOptions): ResolvedPushOptions {
  const attemptTimeoutMs = push.attemptTimeoutMs ?? 15_000;
  const concurrency = push.concurrency ?? 16;
  const signing = push.signing;
  return {
    retrySchedule: parseRetrySchedule(push.retrySchedule, []),
    jitter: push.jitter ?? 0.2,
    attemptTimeoutMs,
    maxResponseBytes: push.maxResponseBytes ?? 4096,
    retryAfterCapMs: push.retryAfterCapMs ?? 3_600_000,
    egress: push.egress ?? {},
    signing: signing && { key: signing.key, alg: algOf(signing)!, kid: kidOf(signing)!, issuer: signing.issuer, expiresInSeconds: signing.expiresInSeconds ?? 300 },
    encryptionKey: push.encryptionKey === undefined ? undefined : parseEncryptionKey(push.encryptionKey),
    queuePrefix: push.queuePrefix,
    concurrency,
    maxInFlightPerHost: push.maxInFlightPerHost ?? Math.max(1, Math.ceil(concurrency / 4)),
    maxInFlightPerCaller: push.maxInFlightPerCaller ?? Math.max(1, Math.ceil(concurrency / 2)),
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
