/**
 * Agent Card discovery (spec §8.2, §8.6): a GET of the well-known card, cached per URL for as
 * long as `Cache-Control` allows (a default TTL without caching headers), revalidated with
 * `If-None-Match` / `If-Modified-Since` (a 304 keeps the card), and optionally verified against
 * the peer's signing keys (§8.4.3): a card that does not verify is refused.
 *
 * Cards are decoded with the A2A 1.0 schema. A pure 0.3 card (no `supportedInterfaces`, a `url`)
 * is decoded with the 0.3 schema, as strictly, and translated: its interfaces synthesised from
 * `url` / `preferredTransport` / `additionalInterfaces` with its protocol version (SDK practice,
 * digest §6.3), its security schemes and requirements in their 1.0 form. A hybrid card (both) is
 * read as the 1.0 card it holds.
 *
 * The card, JWKS and every redirect target are subject to the egress policy; redirects are never
 * followed.
 */
import type { JSONWebKeySet } from 'jose';
import { redactUrl } from '../net/redact-url.js';
import { WELL_KNOWN_AGENT_CARD_PATH } from '../protocol/agent-card.js';
import { CardSignatureError, verifyAgentCard, type CardKeySource, type CardVerificationOptions, type VerifiedCardSignature } from '../protocol/card-verification.js';
import { decode } from '../protocol/codec.js';
import { InvalidAgentResponseError, InvalidParamsError } from '../protocol/errors.js';
import { isPlainObject } from '../protocol/json-value.js';
import { AgentCardSchema } from '../protocol/schemas.js';
import { VERSION_HEADER } from '../protocol/service-params.js';
import { PROTOCOL_VERSION, type AgentCard } from '../protocol/types.js';
import { agentCardFromV03, isV03AgentCard } from '../protocol/v03/agent-card.js';
import { A2AHttp, httpOptionProblems, parseJson, type A2AHttpOptions, type HttpResponse } from './a2a-http.js';
import { CallControl, raceSignal } from './call-control.js';
import { InvalidClientOptionsError } from './client-errors.js';
import { errorFromAnswer, factsOf } from './error-mapping.js';
import { resolveHeaders, type A2AHeadersOption } from './headers.js';
import { freshnessLifetimeMs } from './http-freshness.js';
import { runResilient } from './resilience.js';

/** @publicApi */
export interface AgentCardResolverOptions extends A2AHttpOptions {
  /** Budget of one card (or JWKS) fetch, retries included, in milliseconds. Default 10000. */
  timeoutMs?: number;
  /** How long a card without caching headers stays fresh, in milliseconds. Default 300000 (5 min). */
  defaultTtlMs?: number;
  /** Upper bound of any freshness lifetime, whatever the server says, in milliseconds. Default 86400000 (24 h). */
  maxTtlMs?: number;
  /** Headers for discovery requests (the card is normally public; send credentials only where needed). */
  headers?: A2AHeadersOption;
  /** The clock, in epoch milliseconds (tests). Default `Date.now`. */
  now?: () => number;
}

/**
 * How to check a card's signatures (spec §8.4.3). Keys are the caller's to trust: the client never
 * fetches a `jku` a card names by itself (a resolver function may choose to).
 * @publicApi
 */
export interface CardVerification {
  /** A JWKS, one key, or a function finding the key for a signature header. */
  keys?: CardKeySource;
  /** A JWKS URL, fetched through the same egress policy and cached by its `Cache-Control`; refetched once when no key verifies (rotation). */
  jwksUrl?: string;
  /** Allowed `alg` values (default: the asymmetric ones, see `DEFAULT_CARD_SIGNATURE_ALGORITHMS`). */
  algorithms?: readonly string[];
  /**
   * Whether signatures that do not say their payload form may be checked in the SDK form (cards
   * signed by `@a2a-js/sdk` or a2a-python that hold empty values): see `CardVerificationOptions.sdkForm`.
   * Default `false`.
   */
  sdkForm?: CardVerificationOptions['sdkForm'];
}

/** @publicApi */
export interface ResolveCardOptions {
  signal?: AbortSignal;
  /** Verify the card's signatures; a card that fails is refused (`CardSignatureError`). */
  verify?: CardVerification;
  /** Revalidate with the server even if the cached card is still fresh. */
  forceRefresh?: boolean;
}

/** A resolved card and what the resolver knows about it. Treat `card` as read-only: it is shared. @publicApi */
export interface ResolvedAgentCard {
  readonly card: AgentCard;
  /** The URL it was fetched from. */
  readonly url: string;
  readonly etag?: string;
  readonly lastModified?: string;
  /** When it was last fetched or revalidated (epoch ms). */
  readonly fetchedAt: number;
  /** Until when it is fresh (epoch ms). */
  readonly expiresAt: number;
  /** The card had no `supportedInterfaces`: read as an A2A 0.3 card. */
  readonly legacy: boolean;
  /** The signature that verified, when verification was asked for. */
  readonly signature?: VerifiedCardSignature;
}

interface CacheEntry {
  readonly url: string;
  readonly raw: Record<string, unknown>;
  readonly card: AgentCard;
  readonly legacy: boolean;
  readonly etag?: string;
  readonly lastModified?: string;
  /** The stored answer's Cache-Control, reused when a 304 brings none. */
  readonly cacheControl?: string;
  readonly fetchedAt: number;
  readonly expiresAt: number;
  /** Verification results by the verification options object that asked (a card is verified once per key set). */
  readonly verified: WeakMap<CardVerification, VerifiedCardSignature>;
}

interface JwksEntry {
  readonly jwks: JSONWebKeySet;
  readonly expiresAt: number;
}

/**
 * The card URL for what a user gave: a URL whose path ends in `.json` is the card itself; anything
 * else (an origin, an agent's base URL) gets the well-known path appended.
 * @publicApi
 */
export function agentCardUrl(input: string | URL): string {
  const url = new URL(typeof input === 'string' ? input : input.href);
  if (!url.pathname.endsWith('.json')) url.pathname = `${url.pathname.replace(/\/+$/, '')}${WELL_KNOWN_AGENT_CARD_PATH}`;
  return url.href;
}

/**
 * Decodes a card received as JSON: A2A 1.0, or 0.3 (see the file comment).
 * @throws InvalidAgentResponseError naming what is wrong
 */
export function readAgentCard(raw: unknown, target: string): { card: AgentCard; legacy: boolean } {
  if (!isPlainObject(raw)) throw new InvalidAgentResponseError(`${target}: the Agent Card is not a JSON object`);
  const legacy = isV03AgentCard(raw);
  try {
    return { card: legacy ? agentCardFromV03(raw) : decode(AgentCardSchema, raw), legacy };
  } catch (error) {
    if (!(error instanceof InvalidParamsError)) throw error;
    throw new InvalidAgentResponseError(`${target}: not a valid A2A ${legacy ? '0.3 ' : ''}Agent Card (${error.violationsText(10)})`);
  }
}

function header(response: HttpResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

const DEFAULT_CARD_TIMEOUT_MS = 10_000;
const DEFAULT_TTL_MS = 300_000;
const DEFAULT_MAX_TTL_MS = 86_400_000;
const CARD_ACCEPT = 'application/json, application/a2a+json;q=0.9';

/**
 * Fetches, caches, revalidates and verifies Agent Cards. One resolver may be shared by many
 * clients (they then share its cache and its network settings).
 * @publicApi
 */
export class AgentCardResolver {
  private readonly http: A2AHttp;
  private readonly ownsHttp: boolean;
  private readonly timeoutMs: number;
  private readonly defaultTtlMs: number;
  private readonly maxTtlMs: number;
  private readonly headers: A2AHeadersOption | undefined;
  private readonly now: () => number;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inflight = new Map<string, Promise<CacheEntry>>();
  private readonly jwksCache = new Map<string, JwksEntry>();

  /**
   * @param http @internal a client's network layer, shared instead of opening another
   * @throws InvalidClientOptionsError
   */
  constructor(options: AgentCardResolverOptions = {}, http?: A2AHttp) {
    const problems = http === undefined ? httpOptionProblems(options) : [];
    for (const name of ['timeoutMs', 'defaultTtlMs', 'maxTtlMs'] as const) {
      const value = options[name];
      if (value !== undefined && !(Number.isFinite(value) && value >= (name === 'timeoutMs' ? 1 : 0))) problems.push(`${name} must be a number of milliseconds (got ${String(value)})`);
    }
    if (problems.length > 0) throw new InvalidClientOptionsError(problems);
    this.http = http ?? new A2AHttp(options);
    this.ownsHttp = http === undefined;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_CARD_TIMEOUT_MS;
    this.defaultTtlMs = options.defaultTtlMs ?? DEFAULT_TTL_MS;
    this.maxTtlMs = options.maxTtlMs ?? DEFAULT_MAX_TTL_MS;
    this.headers = options.headers;
    this.now = options.now ?? Date.now;
  }

  /**
   * The card at `url` (an origin, an agent's base URL, or the card's own URL; see
   * {@link agentCardUrl}): from the cache while fresh, else fetched or revalidated.
   * @throws EgressRefusedError, A2ATimeoutError, CircuitOpenError, InvalidAgentResponseError (not a
   *   card), A2AHttpError / A2AError (the server's answer), CardSignatureError (verification failed)
   */
  async resolve(url: string | URL, options: ResolveCardOptions = {}): Promise<ResolvedAgentCard> {
    const cardUrl = this.http.check(agentCardUrl(this.http.check(url))).href;
    let entry = this.cache.get(cardUrl);
    if (entry === undefined || options.forceRefresh === true || entry.expiresAt <= this.now()) {
      entry = await raceSignal(this.refresh(cardUrl, entry), options.signal);
    }
    const signature = options.verify === undefined ? undefined : await raceSignal(this.verify(entry, options.verify), options.signal);
    return {
      card: entry.card,
      url: entry.url,
      etag: entry.etag,
      lastModified: entry.lastModified,
      fetchedAt: entry.fetchedAt,
      expiresAt: entry.expiresAt,
      legacy: entry.legacy,
      ...(signature === undefined ? {} : { signature }),
    };
  }

  /** Forgets one cached card (by any URL form {@link resolve} takes), or every card and JWKS. */
  invalidate(url?: string | URL): void {
    if (url === undefined) {
      this.cache.clear();
      this.jwksCache.clear();
      return;
    }
    this.cache.delete(agentCardUrl(url));
  }

  /** Closes the connections it opened (not those of a client it shares them with). */
  async close(): Promise<void> {
    if (this.ownsHttp) await this.http.close();
  }

  /** One fetch per URL at a time: concurrent resolves share it. */
  private refresh(url: string, previous: CacheEntry | undefined): Promise<CacheEntry> {
    let pending = this.inflight.get(url);
    if (pending === undefined) {
      pending = this.fetchCard(url, previous).finally(() => this.inflight.delete(url));
      this.inflight.set(url, pending);
    }
    return pending;
  }

  private lifetime(cacheControl: string | undefined, response: HttpResponse): number | undefined {
    return freshnessLifetimeMs(
      { cacheControl, expires: header(response, 'expires'), date: header(response, 'date'), age: header(response, 'age') },
      { defaultTtlMs: this.defaultTtlMs, maxTtlMs: this.maxTtlMs },
    );
  }

  private async fetchCard(url: string, previous: CacheEntry | undefined): Promise<CacheEntry> {
    const conditional: Record<string, string> = {};
    if (previous?.etag !== undefined) conditional['if-none-match'] = previous.etag;
    if (previous?.lastModified !== undefined) conditional['if-modified-since'] = previous.lastModified;
    const { response, body } = await this.get(url, 'AgentCard', conditional);
    const target = response.target;
    const now = this.now();
    if (response.statusCode === 304) {
      if (previous === undefined) throw new InvalidAgentResponseError(`${target}: answered 304 Not Modified to a request that was not conditional`);
      // RFC 9111 §4.3.4: the 304's own headers update the stored ones
      const cacheControl = header(response, 'cache-control') ?? previous.cacheControl;
      const lifetime = this.lifetime(cacheControl, response);
      const entry: CacheEntry = {
        ...previous,
        etag: header(response, 'etag') ?? previous.etag,
        lastModified: header(response, 'last-modified') ?? previous.lastModified,
        cacheControl,
        fetchedAt: now,
        expiresAt: now + (lifetime ?? 0),
      };
      if (lifetime === undefined) this.cache.delete(url);
      else this.cache.set(url, entry);
      return entry;
    }
    const raw = parseJson(body!, target);
    const { card, legacy } = readAgentCard(raw, target);
    const cacheControl = header(response, 'cache-control');
    const lifetime = this.lifetime(cacheControl, response);
    const entry: CacheEntry = {
      url,
      raw: raw as Record<string, unknown>,
      card,
      legacy,
      etag: header(response, 'etag'),
      lastModified: header(response, 'last-modified'),
      cacheControl,
      fetchedAt: now,
      expiresAt: now + (lifetime ?? 0),
      verified: new WeakMap(),
    };
    if (lifetime === undefined) this.cache.delete(url);
    else this.cache.set(url, entry);
    return entry;
  }

  /** A GET of a discovery document, through the breaker and the retry policy (GET is safe to repeat). */
  private async get(url: string, operation: 'AgentCard' | 'Jwks', extra: Record<string, string>): Promise<{ response: HttpResponse; body?: Buffer }> {
    const target = this.http.check(url);
    const control = new CallControl();
    control.target = redactUrl(target);
    control.startDeadline(this.timeoutMs);
    let attempt = 0;
    try {
      return await runResilient({
        origin: target.origin,
        retryable: true,
        control,
        breakers: this.http.breakers,
        retry: this.http.retry,
        attempt: async () => {
          attempt += 1;
          const headers = {
            ...(await resolveHeaders(this.headers, { operation, url: target.href, attempt })),
            ...extra,
            accept: CARD_ACCEPT,
            [VERSION_HEADER.toLowerCase()]: PROTOCOL_VERSION,
          };
          const response = await this.http.send({ url: target, method: 'GET', headers }, control);
          if (response.statusCode === 304) {
            response.body.resume();
            return { response };
          }
          const body = await this.http.readBody(response, control);
          if (response.statusCode < 200 || response.statusCode >= 300) throw errorFromAnswer(body, factsOf(response), operation === 'AgentCard' ? 'answered the Agent Card request with' : 'answered the JWKS request with');
          return { response, body };
        },
      });
    } catch (error) {
      throw control.failure(error);
    } finally {
      control.dispose();
    }
  }

  /**
   * Verifies a card received as JSON against the given keys or JWKS (spec §8.4.3), as
   * {@link resolve} does with its `verify` option.
   * @throws CardSignatureError
   */
  async verifyCard(card: unknown, verification: CardVerification): Promise<VerifiedCardSignature> {
    try {
      let fresh = false;
      let keys: CardKeySource;
      if (verification.keys !== undefined) keys = verification.keys;
      else if (verification.jwksUrl !== undefined) ({ jwks: keys, fresh } = await this.jwks(verification.jwksUrl, false));
      else throw new CardSignatureError('INVALID_KEY_SOURCE', 'verify needs keys or a jwksUrl');
      const options: CardVerificationOptions = {
        ...(verification.algorithms === undefined ? {} : { algorithms: verification.algorithms }),
        ...(verification.sdkForm === undefined ? {} : { sdkForm: verification.sdkForm }),
      };
      try {
        return await verifyAgentCard(card, keys, options);
      } catch (error) {
        // keys rotate: a cached JWKS that verifies nothing is fetched again, once
        if (!(error instanceof CardSignatureError) || error.code !== 'NO_VALID_SIGNATURE' || verification.jwksUrl === undefined || fresh) throw error;
        ({ jwks: keys } = await this.jwks(verification.jwksUrl, true));
        return await verifyAgentCard(card, keys, options);
      }
    } catch (error) {
      if (!(error instanceof CardSignatureError)) throw error;
      throw new CardSignatureError(error.code, `Agent Card refused: ${error.message}`, error.attempts, { cause: error });
    }
  }

  private async verify(entry: CacheEntry, verification: CardVerification): Promise<VerifiedCardSignature> {
    const known = entry.verified.get(verification);
    if (known !== undefined) return known;
    try {
      const result = await this.verifyCard(entry.raw, verification);
      entry.verified.set(verification, result);
      return result;
    } catch (error) {
      if (!(error instanceof CardSignatureError)) throw error;
      // refused: not served again from the cache, so the next resolve fetches it anew
      if (this.cache.get(entry.url) === entry) this.cache.delete(entry.url);
      throw new CardSignatureError(error.code, `${redactUrl(entry.url)}: ${error.message}`, error.attempts, { cause: error.cause });
    }
  }

  /** The JWKS at `url`, cached by its Cache-Control. `fresh`: fetched just now. */
  private async jwks(url: string, force: boolean): Promise<{ jwks: JSONWebKeySet; fresh: boolean }> {
    const href = this.http.check(url).href;
    const cached = this.jwksCache.get(href);
    if (!force && cached !== undefined && cached.expiresAt > this.now()) return { jwks: cached.jwks, fresh: false };
    const { response, body } = await this.get(href, 'Jwks', {});
    const json = parseJson(body ?? Buffer.alloc(0), response.target);
    if (!isPlainObject(json) || !Array.isArray(json.keys)) throw new CardSignatureError('INVALID_KEY_SOURCE', `${response.target}: not a JWKS ({ "keys": [...] })`);
    const jwks = { keys: json.keys } as JSONWebKeySet;
    const lifetime = this.lifetime(header(response, 'cache-control'), response);
    if (lifetime !== undefined) this.jwksCache.set(href, { jwks, expiresAt: this.now() + lifetime });
    return { jwks, fresh: true };
  }
}
