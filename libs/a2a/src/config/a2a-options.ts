/** The options of `A2AModule.forRoot()` / `forRootAsync()`, their defaults and their validation. */
import { Type, plainToInstance } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, IsUrl, Max, Min, ValidateNested, validateSync, type ValidationError } from 'class-validator';
import type { CanActivate, Type as NestType } from '@nestjs/common';
import type { CardSigner } from '../protocol/card-signing.js';
import { DEFAULT_DECODE_LIMITS } from '../protocol/codec.js';
import type { A2ARedisOptions } from '../redis/redis-connection.js';
import type { TaskBackend } from '../tasks/task-backend.js';
import { DEFAULT_KEY_PREFIX } from '../redis/redis-keys.js';
import { resolvePushOptions, type A2APushOptions, type ResolvedPushOptions } from '../push/push-options.js';
import type { AgentProvider } from '../protocol/types.js';
import { A2AConfigurationError } from './a2a-configuration.error.js';
import {
  resolvePeersOptions,
  type A2ACredentialsOptions,
  type A2AOutboundOptions,
  type A2APeerOptions,
  type ResolvedPeersOptions,
} from '../client/peers/peer-options.js';
import type { CredentialResolver } from '../client/peers/credentials.js';
import type { ToolApproval } from '../client/peers/tool-approval.js';

/** @publicApi */
export interface A2ACardOptions {
  /** The organisation behind the agents, on every card unless an agent declares its own. */
  provider?: AgentProvider;
  /** The agents' version (not the protocol's), unless an agent declares its own. Default `1.0.0`. */
  version?: string;
  documentationUrl?: string;
  iconUrl?: string;
  /** `Cache-Control: max-age` of the served cards, in seconds. Default 300. */
  maxAgeSeconds?: number;
}

/** @publicApi */
export interface A2AStreamingOptions {
  /** Milliseconds between SSE comment lines that keep quiet streams open through proxies. Default 15000. */
  heartbeatMs?: number;
  /** Open SSE streams allowed at once. Default 20000. */
  maxStreams?: number;
  /**
   * Open SSE streams allowed at once per caller subject. Default 1000, so that one caller cannot
   * take every slot of `maxStreams`. Without authentication every caller shares one subject: raise
   * it to `maxStreams` there.
   */
  maxStreamsPerCaller?: number;
}

/** @publicApi */
export interface A2ALimitOptions {
  /** Largest request body, in bytes, whatever its content type. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Deepest JSON nesting of a request body. Default 64. */
  maxJsonDepth?: number;
  /** An executor running longer is aborted and its task FAILED. Default 600000 (10 min). */
  executorTimeoutMs?: number;
  /**
   * Parts of one message in a request. Default 1000. Checked while decoding, before the parts are
   * read, so a message of a million empty parts costs no more than its JSON parse.
   */
  maxPartsPerMessage?: number;
  /** Bytes of one part's content in a request (text as UTF-8, raw as its base64, URL, data as JSON). Default 1 MiB. */
  maxPartBytes?: number;
  /** Bytes of one `metadata` object in a request, as JSON. Default 64 KiB. */
  maxMetadataBytes?: number;
  /** Items of any other list in a request (`extensions`, `referenceTaskIds`, `acceptedOutputModes` …) and entries of a map. Default 100. */
  maxListItems?: number;
}

/** @publicApi */
export interface A2ATaskOptions {
  /** How long a finished task stays readable, in milliseconds. Default 3600000 (1 h). */
  retentionMs?: number;
  /** How many finished tasks the in-memory store keeps at most. Default 10000. */
  maxTerminalTasks?: number;
  /**
   * How long an interrupted task (INPUT_REQUIRED, AUTH_REQUIRED) is kept without a new message, in
   * milliseconds, counted from when it was interrupted; then it is dropped. Default 86400000 (24 h).
   */
  interruptedTtlMs?: number;
  /**
   * Bytes of stored tasks (their JSON, estimated) the in-memory store keeps at most. Finished tasks
   * give way first, oldest first; when running and interrupted tasks fill it, a new message is
   * refused with 429 RESOURCE_EXHAUSTED and `Retry-After`. Default 268435456 (256 MiB).
   */
  maxStoredBytes?: number;
  /** The same budget per caller (tenant and subject). Default 67108864 (64 MiB). */
  maxStoredBytesPerCaller?: number;
}

/** @publicApi */
export interface A2AModuleOptions {
  /**
   * The URL clients reach this app at (scheme, host, port, any path prefix of a proxy): the base of
   * every URL on the Agent Cards. Default: the address the server listens on.
   */
  publicUrl?: string;
  /** The agent served at the root paths when several are published. Default: the only one. */
  defaultAgent?: string;
  card?: A2ACardOptions;
  streaming?: A2AStreamingOptions;
  limits?: A2ALimitOptions;
  tasks?: A2ATaskOptions;
  /**
   * Signs every served Agent Card (JWS over RFC 8785 JSON, spec §8.4) with these keys, one
   * signature each (key rotation); their public keys are served as a JWKS at `paths.jwks`, named
   * by each signature's `jku` unless a signer gives its own.
   */
  signing?: A2ASigningOptions;
  /**
   * Keep tasks and their event logs in Redis instead of memory: one agent then runs on several
   * instances sharing that Redis (tasks, streams, cancel and reconnects work across them).
   */
  redis?: A2ARedisOptions;
  /**
   * Where tasks live, when neither memory nor the module's Redis backend will do: your own
   * {@link TaskBackend} (store, event log, coordinator, atomic commit). The module closes it at
   * shutdown. With it, `redis` (if set) serves push notifications only; `tasks.*` do not apply.
   */
  taskBackend?: TaskBackend;
  /**
   * Push notifications: webhook configs in Redis, deliveries through a BullMQ queue on a retry
   * schedule, every webhook URL checked by an egress (SSRF) policy. Setting it (`{}` for the
   * defaults) turns push on and the cards say `capabilities.pushNotifications: true`; it requires
   * `redis`, and the optional peers `bullmq` and `ioredis`.
   */
  push?: A2APushOptions;
  /**
   * Remote agents whose skills become tools (`PeerToolProvider`): one tool per allowed skill,
   * named `{peer}__{skill}`. Credentials are named, never given (`credential: 'research-token'`).
   */
  peers?: A2APeerOptions[];
  /** How the default `CredentialResolver` finds a credential's secret (`envPrefix`). */
  credentials?: A2ACredentialsOptions;
  /** Network settings of the calls to peers: egress policy, timeouts, card cache, retries, breakers. */
  outbound?: A2AOutboundOptions;
  /**
   * Start even when the server listens beyond loopback with no guard in front of the A2A routes.
   * Default false: such a start-up fails, since every caller would share one identity.
   */
  allowUnauthenticated?: boolean;
}

/** @publicApi */
export interface A2ASigningOptions {
  /** `{ key, alg, kid, jku? }`: ES256, RS256, EdDSA or HS256 keys as JWK, KeyObject or CryptoKey. */
  keys: CardSigner[];
}

/** @publicApi */
export interface A2APathOptions {
  /** Path of the JSON-RPC binding of the default agent, or `false` to not mount it. Default `/a2a/jsonrpc`. */
  jsonRpc?: string | false;
  /** Path of the HTTP+JSON binding of the default agent, or `false` to not mount it. Default `/a2a/rest`. */
  rest?: string | false;
  /** Per-agent prefix: agent `x` is at `{agents}/x/.well-known/agent-card.json` and `{agents}/x{jsonRpc}`. Default `/agents`. */
  agents?: string;
  /** Where the public keys of the card signatures are served (with `signing`). Default `/.well-known/jwks.json`. */
  jwks?: string;
}

/** Route metadata the host's own guards read to let a route through, e.g. `{ key: IS_PUBLIC_KEY }`. @publicApi */
export interface A2APublicRouteMetadata {
  key: string | symbol;
  /** Default `true`. */
  value?: unknown;
}

/**
 * Fixed when the module is compiled, for `forRoot` and `forRootAsync` alike (Nest routes, guards
 * and providers are static).
 * @publicApi
 */
export interface A2AModuleExtras {
  isGlobal?: boolean;
  paths?: A2APathOptions;
  /**
   * Guards run on every A2A route but the public ones (Agent Card, JWKS), after the app's global
   * guards (`APP_GUARD`), which run there as on any route. Classes get their dependencies from
   * this module's scope: global modules, or the `imports` of `forRootAsync`.
   */
  guards?: Array<NestType<CanActivate> | CanActivate>;
  /** How the host's guards recognise a public route; the card and JWKS routes carry it. */
  publicRouteMetadata?: A2APublicRouteMetadata | A2APublicRouteMetadata[];
  /** Your own caller resolver (a subclass of `A2ACallerResolver`), replacing the default. */
  callerResolver?: NestType<A2ACallerResolverLike>;
  /** Your own `CredentialResolver` (e.g. backed by Nest's `ConfigService` or a vault), replacing the environment. */
  credentialResolver?: NestType<CredentialResolver>;
  /** Your own `ToolApproval`, asked before every peer tool call; by default every call is approved. */
  toolApproval?: NestType<ToolApproval>;
}

/** The shape of a caller resolver (see `A2ACallerResolver`). */
export interface A2ACallerResolverLike {
  resolve(req: unknown, requested: { tenant?: string }): A2ACallerLike | Promise<A2ACallerLike>;
}
interface A2ACallerLike {
  subject: string;
  tenant?: string;
  user?: unknown;
}

/** Options with every default filled in. */
export interface ResolvedA2AOptions {
  publicUrl?: string;
  allowUnauthenticated: boolean;
  signing: { keys: CardSigner[] };
  redis?: A2ARedisOptions;
  taskBackend?: TaskBackend;
  /** Set exactly when push notifications are on. */
  push?: ResolvedPushOptions;
  /** Peers, credentials and the outbound network settings. */
  outbound: ResolvedPeersOptions;
  defaultAgent?: string;
  card: Required<Pick<A2ACardOptions, 'version' | 'maxAgeSeconds'>> & Omit<A2ACardOptions, 'version' | 'maxAgeSeconds'>;
  streaming: Required<A2AStreamingOptions>;
  limits: Required<A2ALimitOptions>;
  tasks: Required<A2ATaskOptions>;
}

export interface ResolvedA2APaths {
  jsonRpc: string | false;
  rest: string | false;
  agents: string;
  jwks: string;
}

const DEFAULTS: Omit<ResolvedA2AOptions, 'publicUrl' | 'defaultAgent' | 'allowUnauthenticated' | 'signing' | 'push' | 'outbound' | 'taskBackend'> = {
  card: { version: '1.0.0', maxAgeSeconds: 300 },
  streaming: { heartbeatMs: 15_000, maxStreams: 20_000, maxStreamsPerCaller: 1_000 },
  limits: { maxBodyBytes: 1024 * 1024, maxJsonDepth: 64, executorTimeoutMs: 600_000, ...DEFAULT_DECODE_LIMITS },
  tasks: {
    retentionMs: 3_600_000,
    maxTerminalTasks: 10_000,
    interruptedTtlMs: 86_400_000,
    maxStoredBytes: 256 * 1024 * 1024,
    maxStoredBytesPerCaller: 64 * 1024 * 1024,
  },
};

// ---- validation (class-validator), run once at start-up ----

const urlOptions = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

class ProviderDto {
  @IsUrl(urlOptions) url!: string;
  @IsString() organization!: string;
}

class CardDto {
  @IsOptional() @ValidateNested() @Type(() => ProviderDto) provider?: ProviderDto;
  @IsOptional() @IsString() version?: string;
  @IsOptional() @IsUrl(urlOptions) documentationUrl?: string;
  @IsOptional() @IsUrl(urlOptions) iconUrl?: string;
  @IsOptional() @IsInt() @Min(0) maxAgeSeconds?: number;
}

class StreamingDto {
  @IsOptional() @IsInt() @Min(1000) heartbeatMs?: number;
  @IsOptional() @IsInt() @Min(1) maxStreams?: number;
  @IsOptional() @IsInt() @Min(1) maxStreamsPerCaller?: number;
}

class LimitsDto {
  @IsOptional() @IsInt() @Min(1024) maxBodyBytes?: number;
  @IsOptional() @IsInt() @Min(4) @Max(10_000) maxJsonDepth?: number;
  @IsOptional() @IsInt() @Min(1) executorTimeoutMs?: number;
  @IsOptional() @IsInt() @Min(1) maxPartsPerMessage?: number;
  @IsOptional() @IsInt() @Min(1) maxPartBytes?: number;
  @IsOptional() @IsInt() @Min(2) maxMetadataBytes?: number;
  @IsOptional() @IsInt() @Min(1) maxListItems?: number;
}

class TasksDto {
  @IsOptional() @IsInt() @Min(1000) retentionMs?: number;
  @IsOptional() @IsInt() @Min(1) maxTerminalTasks?: number;
  @IsOptional() @IsInt() @Min(1000) interruptedTtlMs?: number;
  @IsOptional() @IsInt() @Min(1024) maxStoredBytes?: number;
  @IsOptional() @IsInt() @Min(1024) maxStoredBytesPerCaller?: number;
}

class OptionsDto {
  @IsOptional() @IsUrl(urlOptions) publicUrl?: string;
  @IsOptional() @IsString() defaultAgent?: string;
  @IsOptional() @IsBoolean() allowUnauthenticated?: boolean;
  @IsOptional() @ValidateNested() @Type(() => CardDto) card?: CardDto;
  @IsOptional() @ValidateNested() @Type(() => StreamingDto) streaming?: StreamingDto;
  @IsOptional() @ValidateNested() @Type(() => LimitsDto) limits?: LimitsDto;
  @IsOptional() @ValidateNested() @Type(() => TasksDto) tasks?: TasksDto;
}


function flatten(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((e) => {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    // constraint texts name the property, never its value (an option may be a secret)
    const own = Object.values(e.constraints ?? {}).map((text) => `${path}: ${text}`);
    return [...own, ...flatten(e.children ?? [], path)];
  });
}

const PATH_PATTERN = /^\/[A-Za-z0-9._~\-/]*$/;

function pathProblems(paths: A2APathOptions): string[] {
  const problems: string[] = [];
  for (const key of ['jsonRpc', 'rest', 'agents', 'jwks'] as const) {
    const value = paths[key];
    if (value === undefined || value === false) continue;
    if (typeof value !== 'string' || !PATH_PATTERN.test(value) || value.endsWith('/') && value !== '/') {
      problems.push(`paths.${key}: must be a path such as "/a2a/${key.toLowerCase()}" (letters, digits, - . _ ~ /; no trailing slash)`);
    }
  }
  if (paths.agents === '/') problems.push('paths.agents: must not be "/"');
  if (paths.jsonRpc === false && paths.rest === false) problems.push('paths: at least one binding (jsonRpc or rest) must be mounted');
  return problems;
}

/**
 * Validates options (all problems at once) and merges defaults level by level.
 * @throws A2AConfigurationError
 */
export function resolveA2AOptions(options: A2AModuleOptions): ResolvedA2AOptions {
  // signing keys are key objects, not plain data: checked here for shape, and by signing itself at start-up
  const { signing, redis, taskBackend, push, peers, credentials, outbound, ...plain } = options ?? {};
  const problems = flatten(validateSync(plainToInstance(OptionsDto, plain), { forbidUnknownValues: false }));
  if (signing !== undefined && !Array.isArray(signing?.keys)) problems.push('signing.keys: must be an array of { key, alg, kid }');
  if (redis !== undefined && !redis.url && !redis.options && !redis.client) problems.push('redis: give a url, ioredis options or a client');
  if (redis?.leaseMs !== undefined && (!Number.isInteger(redis.leaseMs) || redis.leaseMs < 100)) problems.push('redis.leaseMs: must be an integer of at least 100');
  if (taskBackend !== undefined && !isTaskBackend(taskBackend)) problems.push('taskBackend: must be a TaskBackend (store, log, coordinator, commit(), admit(), close())');
  if (push !== undefined && redis === undefined) {
    problems.push('push: needs redis (configs and the delivery queue live in Redis): set redis, or remove push');
  }
  // push signing keys are key objects: checked for shape here, by signing once at start-up
  const resolvedPush = push === undefined ? undefined : resolvePushOptions(push, redis?.keyPrefix ?? DEFAULT_KEY_PREFIX, problems);
  // one JWKS serves both kinds of keys: a kid must name one key
  const pushKid = resolvedPush?.signing?.kid;
  if (pushKid !== undefined && Array.isArray(signing?.keys) && signing.keys.some((k) => (k.kid ?? (k.key as { kid?: unknown })?.kid) === pushKid)) {
    problems.push(`push.signing.kid: "${pushKid}" is also the kid of a card signing key; the JWKS needs one key per kid`);
  }
  // peers, credentials and outbound settings: checked without dialling anything, never quoting a value
  const resolvedOutbound = resolvePeersOptions({ peers, credentials, outbound }, problems);
  if (problems.length > 0) throw new A2AConfigurationError(problems);
  return {
    publicUrl: options.publicUrl?.replace(/\/+$/, ''),
    allowUnauthenticated: options.allowUnauthenticated === true,
    signing: { keys: options.signing?.keys ?? [] },
    redis: options.redis,
    taskBackend,
    push: resolvedPush,
    outbound: resolvedOutbound,
    defaultAgent: options.defaultAgent,
    card: { ...DEFAULTS.card, ...options.card },
    streaming: { ...DEFAULTS.streaming, ...options.streaming },
    limits: { ...DEFAULTS.limits, ...options.limits },
    tasks: { ...DEFAULTS.tasks, ...options.tasks },
  };
}

function isTaskBackend(value: unknown): value is TaskBackend {
  const backend = value as Partial<TaskBackend> | null;
  return typeof backend === 'object' && backend !== null && [backend.commit, backend.admit, backend.close].every((method) => typeof method === 'function') &&
    [backend.store, backend.log, backend.coordinator].every((part) => typeof part === 'object' && part !== null);
}

/** @throws A2AConfigurationError */
export function resolveA2APaths(paths: A2APathOptions = {}): ResolvedA2APaths {
  const problems = pathProblems(paths);
  if (problems.length > 0) throw new A2AConfigurationError(problems);
  return {
    jsonRpc: paths.jsonRpc === undefined ? '/a2a/jsonrpc' : paths.jsonRpc,
    rest: paths.rest === undefined ? '/a2a/rest' : paths.rest,
    agents: paths.agents ?? '/agents',
    jwks: paths.jwks ?? '/.well-known/jwks.json',
  };
}
