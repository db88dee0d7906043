/**
 * The options of `A2AModule.forRoot()` / `forRootAsync()`: each layer's own options put together,
 * checked once at start-up (every problem at once, the optional packages they need included), and
 * their defaults. Wiring, like the module: it may import every layer.
 */
import type { Type } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { A2AConfigurationError } from './config/a2a-configuration.error.js';
import { BooleanOption, Check, IntegerOption, Nested, StringOption, isHttpUrl, optionProblems } from './config/option-validation.js';
import { missingPackages, missingPackagesProblem } from './config/optional-package.js';
import { PeersOptionsDto, resolvePeersOptions, type A2ACredentialsOptions, type A2AOutboundOptions, type A2APeerOptions, type ResolvedPeersOptions } from './client/peers/peer-options.js';
import type { CredentialResolver } from './client/peers/credentials.js';
import type { ToolApproval } from './client/peers/tool-approval.js';
import { isPlainObject } from './protocol/json-value.js';
import { PushOptionsDto, resolvePushOptions, type A2APushOptions, type ResolvedPushOptions } from './push/push-options.js';
import type { A2APathOptions } from './server/a2a-paths.js';
import { HttpServerOption, withHttpServerDefaults, type A2AHttpServerOptions } from './server/http-server-options.js';
import {
  CardDto,
  LimitsDto,
  SERVER_DEFAULTS,
  ShutdownDto,
  SigningDto,
  StreamingDto,
  type A2ACardOptions,
  type A2ALimitOptions,
  type A2AServerExtras,
  type A2AShutdownOptions,
  type A2ASigningOptions,
  type A2AStreamingOptions,
  type ResolvedServerOptions,
} from './server/server-options.js';
import type { A2ARedisOptions } from './redis/redis-connection.js';
import type { TaskBackend } from './tasks/task-backend.js';

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
   * Bytes of stored tasks (their JSON, estimated) kept at most, in memory or on Redis (there counted
   * for every instance on the key prefix, snapshots and logs). Finished tasks give way first, oldest
   * first; when running and interrupted tasks fill it, a new message is refused with 429
   * RESOURCE_EXHAUSTED and `Retry-After`. Default 268435456 (256 MiB).
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
   * instances sharing that Redis (tasks, streams, cancel and reconnects work across them). Needs
   * the optional package `ioredis`.
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
   * `redis`, and the optional packages `bullmq` and `ioredis`.
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
  /**
   * Timeouts of the HTTP server the app runs on, which cut clients that trickle their headers or
   * body (they apply to every route of that server); on Express the server also makes its requests
   * and responses with the Express app's prototypes, which spares Express's per-request
   * `setPrototypeOf` (about half the CPU of a request). `false` leaves the server as you set it.
   */
  httpServer?: A2AHttpServerOptions | false;
  /**
   * Serve A2A 0.3 beside 1.0, on the same routes, for clients that still speak it: a request
   * without `A2A-Version` (or with `0.3`) is answered in 0.3 (its JSON-RPC methods, the REST routes
   * of `@a2a-js/sdk` 0.3 under `{rest}/v1`), the cards list 0.3 interfaces, and a card request
   * without `A2A-Version: 1.0` gets the hybrid card 0.3 clients read. Default false: such a request
   * is refused with VersionNotSupported.
   */
  v03?: boolean;
  /** Graceful shutdown: how long running tasks may take to finish after SIGTERM (`gracePeriodMs`). */
  shutdown?: A2AShutdownOptions;
}

/**
 * Fixed when the module is compiled, for `forRoot` and `forRootAsync` alike (Nest routes, guards
 * and providers are static).
 * @publicApi
 */
export interface A2AModuleExtras extends A2AServerExtras {
  isGlobal?: boolean;
  paths?: A2APathOptions;
  /** Your own `CredentialResolver` (e.g. backed by Nest's `ConfigService` or a vault), replacing the environment. */
  credentialResolver?: Type<CredentialResolver>;
  /** Your own `ToolApproval`, asked before every peer tool call; by default every call is approved. */
  toolApproval?: Type<ToolApproval>;
  /**
   * Peers whose `A2AClient` is injectable (`@InjectA2AClient(name)`), with `forRootAsync`, whose
   * peers are known only at run time. With `forRoot`, every peer's is.
   */
  clients?: string[];
}

/**
 * The options with every default filled in, as `InjectA2AOptions()` gives them. Each layer reads
 * its part through a narrower type (`ResolvedServerOptions`, `ResolvedPeersOptions`).
 * @publicApi
 */
export interface ResolvedA2AOptions extends ResolvedServerOptions, ResolvedPeersOptions {
  readonly redis?: A2ARedisOptions;
  readonly taskBackend?: TaskBackend;
  /** Set exactly when push notifications are on. */
  readonly push?: ResolvedPushOptions;
  readonly tasks: Required<A2ATaskOptions>;
}

const TASK_DEFAULTS: Required<A2ATaskOptions> = {
  retentionMs: 3_600_000,
  maxTerminalTasks: 10_000,
  interruptedTtlMs: 86_400_000,
  maxStoredBytes: 256 * 1024 * 1024,
  maxStoredBytesPerCaller: 64 * 1024 * 1024,
};

class TasksDto {
  @IntegerOption(1000) retentionMs?: unknown;
  @IntegerOption(1) maxTerminalTasks?: unknown;
  @IntegerOption(1000) interruptedTtlMs?: unknown;
  @IntegerOption(1024) maxStoredBytes?: unknown;
  @IntegerOption(1024) maxStoredBytesPerCaller?: unknown;
}

/** The shape of a {@link TaskBackend}: its parts and its methods (what it does is for its contract suite to say). */
function isTaskBackend(value: unknown): boolean {
  const backend = value as Partial<TaskBackend> | null;
  return (
    typeof backend === 'object' &&
    backend !== null &&
    [backend.commit, backend.admit, backend.close].every((method) => typeof method === 'function') &&
    [backend.store, backend.log, backend.coordinator].every((part) => typeof part === 'object' && part !== null)
  );
}

const isRedisClient = (client: unknown): client is Redis => isPlainObject(client) && typeof (client as { duplicate?: unknown }).duplicate === 'function';

class RedisDto {
  @StringOption('must be a redis:// or rediss:// URL', /^rediss?:\/\//) url?: unknown;
  @Check(isPlainObject, 'must be ioredis options') options?: unknown;
  @Check(isRedisClient, 'must be an ioredis client') client?: unknown;
  @Check((prefix) => typeof prefix === 'string', 'must be a string') keyPrefix?: unknown;
  @IntegerOption(100) leaseMs?: unknown;
}

/**
 * The checks of the module's options. The outbound ones come from `PeersOptionsDto`, whose
 * checks class-validator runs after these: their problems are listed last.
 */
class ModuleOptionsDto extends PeersOptionsDto {
  @Check(isHttpUrl, 'must be an absolute http or https URL') publicUrl?: unknown;
  @StringOption('must be the name of a published agent') defaultAgent?: unknown;
  @BooleanOption() allowUnauthenticated?: unknown;
  @BooleanOption() v03?: unknown;
  @Nested(() => CardDto, 'must be an object') card?: unknown;
  @Nested(() => StreamingDto, 'must be an object') streaming?: unknown;
  @Nested(() => LimitsDto, 'must be an object') limits?: unknown;
  @Nested(() => TasksDto, 'must be an object') tasks?: unknown;
  @Nested(() => SigningDto, 'must be { keys: [{ key, alg, kid }] }') signing?: unknown;
  @HttpServerOption() httpServer?: unknown;
  @Nested(() => ShutdownDto, 'must be an object') shutdown?: unknown;
  @Check((redis) => isPlainObject(redis) && (redis.url !== undefined || redis.options !== undefined || redis.client !== undefined), 'give a url, ioredis options or a client')
  @Nested(() => RedisDto, 'must be { url } or { options } or { client }')
  redis?: unknown;
  @Check(isTaskBackend, 'must be a TaskBackend (store, log, coordinator, commit(), admit(), close())') taskBackend?: unknown;
  @Check((_, options) => options.redis !== undefined, 'needs redis (configs and the delivery queue live in Redis): set redis, or remove push')
  @Nested(() => PushOptionsDto, 'must be an object (use {} for the defaults)')
  push?: unknown;
}

/** The optional packages the options need, and the option that needs them. */
export function optionalPackagesOf(options: A2AModuleOptions): Array<{ option: string; packages: string[] }> {
  const needs: Array<{ option: string; packages: string[] }> = [];
  // an app's own client proves ioredis is there
  if (isPlainObject(options.redis) && options.redis.client === undefined) needs.push({ option: 'redis', packages: ['ioredis'] });
  if (isPlainObject(options.push)) needs.push({ option: 'push', packages: ['@nestjs/bullmq', 'bullmq', 'ioredis'] });
  return needs;
}

/** The outcome of {@link checkA2AOptions}. */
export interface CheckedA2AOptions {
  /**
   * The options with every default filled in. With problems, the defaults alone (tasks in memory,
   * no Redis, no push, no peers) and `defaultAgent`: enough for the rest of the start-up check (the
   * agents) to run, never served.
   */
  readonly options: ResolvedA2AOptions;
  readonly problems: readonly string[];
}

/**
 * Checks the options (every problem at once, never quoting a value) and that the optional
 * packages they need are installed, then merges the defaults level by level.
 */
export async function checkA2AOptions(options: A2AModuleOptions = {}, compiled: { pushQueue?: boolean } = {}): Promise<CheckedA2AOptions> {
  const problems = optionProblems(ModuleOptionsDto, options ?? {});
  // forRootAsync says beforehand whether its options will have push: the queue is registered when the module is compiled
  const push = isPlainObject(options) && options.push !== undefined;
  if (compiled.pushQueue !== undefined && push !== compiled.pushQueue) {
    problems.push(
      push
        ? 'push: set in the options forRootAsync made, which was not told: add `push: true` to forRootAsync({ ... }), beside useFactory'
        : 'push: forRootAsync was given `push: true`, but its options have no push: set push (`{}` for the defaults), or remove `push: true`',
    );
  }
  for (const { option, packages } of optionalPackagesOf(options ?? {})) {
    const missing = await missingPackages(packages);
    if (missing.length > 0) problems.push(missingPackagesProblem(option, missing));
  }
  const checkable = problems.length === 0 ? options : { defaultAgent: typeof options?.defaultAgent === 'string' ? options.defaultAgent : undefined };
  return { options: withDefaults(checkable), problems };
}

/**
 * Checks the options (every problem at once) and merges the defaults level by level; the optional
 * packages are not looked for (see {@link checkA2AOptions}).
 * @throws A2AConfigurationError
 */
export function resolveA2AOptions(options: A2AModuleOptions = {}): ResolvedA2AOptions {
  const problems = optionProblems(ModuleOptionsDto, options ?? {});
  if (problems.length > 0) throw new A2AConfigurationError(problems);
  return withDefaults(options);
}

function withDefaults(options: A2AModuleOptions): ResolvedA2AOptions {
  return {
    publicUrl: options.publicUrl?.replace(/\/+$/, ''),
    allowUnauthenticated: options.allowUnauthenticated === true,
    signing: { keys: options.signing?.keys ?? [] },
    defaultAgent: options.defaultAgent,
    card: { ...SERVER_DEFAULTS.card, ...options.card },
    streaming: { ...SERVER_DEFAULTS.streaming, ...options.streaming },
    limits: { ...SERVER_DEFAULTS.limits, ...options.limits },
    httpServer: withHttpServerDefaults(options.httpServer),
    v03: options.v03 === true,
    shutdown: { ...SERVER_DEFAULTS.shutdown, ...options.shutdown },
    tasks: { ...TASK_DEFAULTS, ...options.tasks },
    redis: options.redis,
    taskBackend: options.taskBackend,
    push: options.push === undefined ? undefined : resolvePushOptions(options.push),
    ...resolvePeersOptions(options),
  };
}
