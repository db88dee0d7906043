/**
 * The inbound server's options: what the cards say, streaming, request limits, card signing. Their
 * checks are the DTOs below; the module's options (`A2AModuleOptions`) hold them.
 */
import type { CanActivate, Type } from '@nestjs/common';
import { Check, IntegerOption, Nested, isHttpUrl } from '../config/option-validation.js';
import type { CardSigner } from '../protocol/card-signing.js';
import { DEFAULT_DECODE_LIMITS } from '../protocol/codec.js';
import { isPlainObject } from '../protocol/json-value.js';
import type { AgentProvider } from '../protocol/types.js';
import { DEFAULT_MAX_CONTEXT_ID_LENGTH } from '../tasks/engine/task-manager.js';
import type { A2ACallerResolver } from './caller-resolver.js';
import type { ResolvedHttpServerOptions } from './http-server-options.js';

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
  /** Largest request body on the A2A routes, in bytes, whatever its content type and the app's own body parser. Default 1 MiB. */
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
  /** Characters of a message's `contextId` (the conversation it continues); a longer one is refused with InvalidParams. Default 128. */
  maxContextIdLength?: number;
}

/** What happens when the app shuts down (`app.close()`, or a signal with `enableShutdownHooks()`). @publicApi */
export interface A2AShutdownOptions {
  /**
   * On a shutdown by signal (SIGTERM …), how long the running tasks may take to finish, in
   * milliseconds, while the server takes no new connections, messages or streams; those still running
   * then are aborted and FAILED. `app.close()` called by code without a signal stops them at once.
   * Default 10000.
   */
  gracePeriodMs?: number;
}

/** @publicApi */
export interface A2ASigningOptions {
  /** `{ key, alg, kid, jku? }`: ES256, RS256, EdDSA or HS256 keys as JWK, KeyObject or CryptoKey. */
  keys: CardSigner[];
}

/** Route metadata the host's own guards read to let a route through, e.g. `{ key: IS_PUBLIC_KEY }`. @publicApi */
export interface A2APublicRouteMetadata {
  key: string | symbol;
  /** Default `true`. */
  value?: unknown;
}

/** Compile-time settings of the server (Nest guards and providers are static). @publicApi */
export interface A2AServerExtras {
  /**
   * Guards run on every A2A route but the public ones (Agent Card, JWKS), after the app's global
   * guards (`APP_GUARD`), which run there as on any route. Classes get their dependencies from
   * this module's scope: global modules, or the `imports` of `forRootAsync`.
   */
  guards?: Array<Type<CanActivate> | CanActivate>;
  /** How the host's guards recognise a public route; the card and JWKS routes carry it. */
  publicRouteMetadata?: A2APublicRouteMetadata | A2APublicRouteMetadata[];
  /** Your own caller resolver (a subclass of `A2ACallerResolver`), replacing the default. */
  callerResolver?: Type<A2ACallerResolver>;
}

/** The server's options with every default filled in: what the server's classes read of `A2A_OPTIONS`. */
export interface ResolvedServerOptions {
  readonly publicUrl?: string;
  readonly allowUnauthenticated: boolean;
  readonly signing: { readonly keys: CardSigner[] };
  readonly defaultAgent?: string;
  readonly card: Required<Pick<A2ACardOptions, 'version' | 'maxAgeSeconds'>> & Omit<A2ACardOptions, 'version' | 'maxAgeSeconds'>;
  readonly streaming: Required<A2AStreamingOptions>;
  readonly limits: Required<A2ALimitOptions>;
  /** Timeouts set on the HTTP server the app runs on; `false`: left as the host set them. */
  readonly httpServer: ResolvedHttpServerOptions | false;
  /** A2A 0.3 is served beside 1.0 (see `A2AModuleOptions.v03`). */
  readonly v03: boolean;
  readonly shutdown: Required<A2AShutdownOptions>;
}

export const SERVER_DEFAULTS: Pick<ResolvedServerOptions, 'card' | 'streaming' | 'limits' | 'shutdown'> = {
  card: { version: '1.0.0', maxAgeSeconds: 300 },
  streaming: { heartbeatMs: 15_000, maxStreams: 20_000, maxStreamsPerCaller: 1_000 },
  limits: { maxBodyBytes: 1024 * 1024, maxJsonDepth: 64, executorTimeoutMs: 600_000, maxContextIdLength: DEFAULT_MAX_CONTEXT_ID_LENGTH, ...DEFAULT_DECODE_LIMITS },
  shutdown: { gracePeriodMs: 10_000 },
};

const httpUrl = (): PropertyDecorator => Check(isHttpUrl, 'must be an absolute http or https URL');

class ProviderDto {
  @Check(isHttpUrl, 'must be an absolute http or https URL', { evenWhenMissing: true }) url?: unknown;
  @Check((value) => typeof value === 'string', 'must be a string', { evenWhenMissing: true }) organization?: unknown;
}

export class CardDto {
  @Nested(() => ProviderDto, 'must be { organization, url }') provider?: unknown;
  @Check((value) => typeof value === 'string', 'must be a string') version?: unknown;
  @httpUrl() documentationUrl?: unknown;
  @httpUrl() iconUrl?: unknown;
  @IntegerOption(0) maxAgeSeconds?: unknown;
}

export class StreamingDto {
  @IntegerOption(1000) heartbeatMs?: unknown;
  @IntegerOption(1) maxStreams?: unknown;
  @IntegerOption(1) maxStreamsPerCaller?: unknown;
}

export class LimitsDto {
  @IntegerOption(1024) maxBodyBytes?: unknown;
  @IntegerOption(4, 10_000) maxJsonDepth?: unknown;
  @IntegerOption(1) executorTimeoutMs?: unknown;
  @IntegerOption(1) maxPartsPerMessage?: unknown;
  @IntegerOption(1) maxPartBytes?: unknown;
  @IntegerOption(2) maxMetadataBytes?: unknown;
  @IntegerOption(1) maxListItems?: unknown;
  @IntegerOption(1, 4096) maxContextIdLength?: unknown;
}

export class ShutdownDto {
  @IntegerOption(0, 3_600_000, 'milliseconds') gracePeriodMs?: unknown;
}

/** Signing keys are key objects: checked here for shape, and by signing itself once at start-up. */
export class SigningDto {
  @Check((value) => Array.isArray(value) && value.every(isPlainObject), 'must be an array of { key, alg, kid }', { evenWhenMissing: true }) keys?: unknown;
}
