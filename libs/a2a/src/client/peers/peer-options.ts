/**
 * The outbound options of the module: the peers whose skills become tools, how credentials are
 * named and resolved, and the network budgets of calls to peers. Checked once at start-up, every
 * problem listed; a problem never repeats an option's value, since the value may be a secret that
 * was put in the wrong place.
 */
import {
  BooleanOption,
  Check,
  IntegerOption,
  Nested,
  NestedList,
  StringListOption,
  StringOption,
  parentOf,
} from '../../config/option-validation.js';
import { EgressOption, usableEgressPolicy, type EgressPolicy, type EgressPolicyOptions } from '../../net/egress-policy.js';
import { EgressRefusedError, type EgressRefusalReason } from '../../net/egress-errors.js';
import { isPlainObject } from '../../protocol/json-value.js';
import { credentialOriginsOf } from '../credential-scope.js';
import { HTTP_TOKEN } from '../headers.js';
import { CLIENT_BINDINGS, type A2ABinding } from '../interface-selection.js';
import type { A2ACircuitBreakerOptions, A2ARetryOptions } from '../resilience.js';

/** The schemes every app has; others are custom strategies (`@A2ACredentialStrategy(name)`). @publicApi */
export const BUILT_IN_CREDENTIAL_SCHEMES = ['bearer', 'apiKey'] as const;

/**
 * A remote agent whose skills become tools (`{name}__{skill}`), see `PeerToolProvider`.
 * @publicApi
 */
export interface A2APeerOptions {
  /**
   * The peer's name, the first half of its tools' names. Letters, digits, `-` and `_` (no `__`,
   * which separates the peer from the skill), at most 32 characters.
   */
  name: string;
  /**
   * Where its Agent Card is: the agent's origin or base URL (the well-known path is appended) or
   * the card's own URL (ending in `.json`). `https` unless the peer's egress policy allows `http`;
   * never userinfo, a query or a fragment (credentials go in `credential`).
   */
  url: string;
  /**
   * The NAME of a credential (`'research-token'`), turned into the secret by the
   * `CredentialResolver` at every call; by default the environment variable named after it
   * (`RESEARCH_TOKEN`). Never the secret itself: a value that looks like one fails start-up.
   */
  credential?: string;
  /**
   * How the credential is sent: `'bearer'` (`Authorization: Bearer <secret>`, the default when a
   * credential is named), `'apiKey'` (the secret in the `apiKeyHeader` header), or the name of a
   * custom strategy: a provider marked `@A2ACredentialStrategy(name)`.
   */
  scheme?: string;
  /** The header of the `apiKey` scheme. Default `X-API-Key`. */
  apiKeyHeader?: string;
  /** The peer's own routing tenant, sent on every call (instead of the one its card's interface names). */
  tenant?: string;
  /** Glob patterns (`*`, `?`) over the peer's skill ids: only matching skills become tools. Default `['*']`. */
  allow?: string[];
  /**
   * An optional peer is looked up lazily, when tools are asked for; while it cannot be reached
   * its tools are left out and `diagnostics()` says why. A required peer (the default) must be
   * reachable at start-up, or start-up fails naming it.
   */
  optional?: boolean;
  /** Extension URIs activated on every call to this peer (`A2A-Extensions`). */
  extensions?: string[];
  /** Budget of one tool call, card look-up and retries included, in milliseconds. Default `outbound.timeoutMs`. */
  timeoutMs?: number;
  /** Use this binding when the peer's card offers it. */
  preferredBinding?: A2ABinding;
  /**
   * The egress (SSRF) policy for this peer, instead of `outbound.egress`: e.g.
   * `{ allowHttp: true, allowHosts: ['127.0.0.1'] }` for a peer on this machine (development).
   */
  egress?: EgressPolicyOptions;
  /**
   * Origins besides the card URL's where the credential may go, when the peer's card names an
   * interface there (`['https://api.research.example.com']`). Without it, a call to an interface
   * on another origin fails (`CredentialsWithheldError`, nothing sent): an unsigned card could
   * otherwise send the credential anywhere.
   */
  credentialOrigins?: string[];
}

/** @publicApi */
export interface A2ACredentialsOptions {
  /**
   * Prefix of the environment variables the default `CredentialResolver` reads: with `'A2A_'`,
   * credential `research-token` is `A2A_RESEARCH_TOKEN`. Default `''`.
   */
  envPrefix?: string;
}

/** Network settings of every call to a peer. @publicApi */
export interface A2AOutboundOptions {
  /** The egress (SSRF) policy peers' card and interface URLs must pass. Default: `https` only, public addresses only. */
  egress?: EgressPolicyOptions;
  /** Budget of one tool call, in milliseconds (a peer's `timeoutMs` wins). Default 60000. */
  timeoutMs?: number;
  /** Budget for opening a connection, in milliseconds. Default 10000. */
  connectTimeoutMs?: number;
  /** Budget of one Agent Card fetch, retries included, in milliseconds. Default 10000. */
  discoveryTimeoutMs?: number;
  /**
   * How long cards stay fresh: `defaultTtlMs` without caching headers (default 300000),
   * `maxTtlMs` at most whatever the peer says (default 300000). A peer's skills, hence its tools
   * and grants, are re-read when its card is no longer fresh.
   */
  cardCache?: { defaultTtlMs?: number; maxTtlMs?: number };
  /** Retries of the calls that are safe to repeat (the client's defaults), or `false`. */
  retry?: A2ARetryOptions | false;
  /** The peers' circuit breakers, one per origin (defaults: 5 consecutive failures, 30 s before a trial call). */
  circuitBreaker?: A2ACircuitBreakerOptions;
  /** Clients kept at most, one per (caller, peer, credential, tenant); the least recently used ones are closed beyond. Default 1000. */
  maxClients?: number;
}

/** A peer with every default filled in. */
export interface ResolvedPeer {
  readonly name: string;
  readonly url: string;
  readonly credential?: string;
  /** Undefined: nothing is added to the requests. */
  readonly scheme?: string;
  readonly apiKeyHeader: string;
  readonly tenant?: string;
  readonly allow: readonly string[];
  readonly optional: boolean;
  readonly extensions: readonly string[];
  readonly timeoutMs: number;
  readonly preferredBinding?: A2ABinding;
  readonly egress: EgressPolicyOptions;
  /** Origins (normalised) besides the card URL's where the credential may go. */
  readonly credentialOrigins: readonly string[];
}

/** The outbound options with every default filled in. */
export interface ResolvedPeersOptions {
  readonly peers: readonly ResolvedPeer[];
  readonly credentials: { readonly envPrefix: string };
  readonly outbound: {
    readonly connectTimeoutMs: number;
    readonly discoveryTimeoutMs: number;
    readonly defaultTtlMs: number;
    readonly maxTtlMs: number;
    readonly retry: A2ARetryOptions | false | undefined;
    readonly circuitBreaker: Required<A2ACircuitBreakerOptions>;
    readonly maxClients: number;
  };
}

const PEER_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_)){0,31}$/;
const CREDENTIAL_NAME = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;
const SCHEME_NAME = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;
/** Headers a credential strategy may not be pointed at: they carry the protocol itself. */
const RESERVED_HEADERS = new Set(['a2a-version', 'a2a-extensions', 'content-type', 'content-length', 'host', 'accept', 'last-event-id']);

export const DEFAULT_PEER_TIMEOUT_MS = 60_000;
export const DEFAULT_API_KEY_HEADER = 'X-API-Key';

/**
 * Does a credential "name" look like a secret pasted in its place? A long run of mixed letters
 * and digits (API keys, hex or base64 tokens), a JWT, or a scheme word in front.
 */
export function looksLikeSecret(value: string): boolean {
  if (/^(bearer|basic|token)\b/i.test(value) || /^eyJ/.test(value)) return true;
  return (value.match(/[A-Za-z0-9]{20,}/g) ?? []).some((run) => /[0-9]/.test(run) && /[A-Za-z]/.test(run));
}

const URL_REASONS: Partial<Record<EgressRefusalReason, string>> = {
  scheme: 'must use https (http only when the egress policy allows it: egress.allowHttp, for development)',
  userinfo: 'must not carry userinfo (user:password@): name a credential instead',
  host: 'has no usable host',
  port: 'names a port the egress policy refuses',
  metadata: 'names a cloud metadata endpoint, which is never allowed',
  'not-allow-listed': 'names a host outside egress.allowHosts',
};

/**
 * A peer URL's problems under `policy` (none to check when its options are unusable, which is
 * reported where they are given). The URL itself is never quoted: a secret in its userinfo or
 * query is exactly what this refuses.
 */
function urlProblems(url: unknown, policy: EgressPolicy | undefined): string[] {
  if (typeof url !== 'string' || url === '') return ["must be the URL of the peer's Agent Card or origin"];
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return ['is not a valid absolute URL'];
  }
  const problems: string[] = [];
  if (parsed.username !== '' || parsed.password !== '') problems.push(URL_REASONS.userinfo!);
  if (parsed.search !== '' || url.includes('?')) problems.push('must not carry a query (credentials go in headers, through a named credential)');
  if (parsed.hash !== '' || url.includes('#')) problems.push('must not carry a fragment');
  if (problems.length > 0 || policy === undefined) return problems;
  try {
    policy.checkUrl(parsed);
  } catch (error) {
    if (!(error instanceof EgressRefusedError)) throw error;
    problems.push(
      URL_REASONS[error.reason] ??
        `is refused by the egress policy (${error.reason}; development peers on this machine need egress: { allowHttp: true, allowHosts: ['127.0.0.1'] })`,
    );
  }
  return problems;
}

type PeerInput = Record<string, unknown>;

/** The options a peer sits in (`peers`, `outbound`): its siblings and the outbound defaults. */
const ownerOf = (peer: PeerInput) => parentOf<{ peers?: unknown; outbound?: { egress?: unknown } }>(peer);

/** The policy a peer's URL must pass: its own egress options, or the outbound ones. */
function peerPolicy(peer: PeerInput): EgressPolicy | undefined {
  return usableEgressPolicy(peer.egress !== undefined ? peer.egress : (ownerOf(peer)?.outbound?.egress ?? {}));
}

function nameTakenEarlier(peer: PeerInput): boolean {
  const peers = ownerOf(peer)?.peers;
  if (!Array.isArray(peers)) return false;
  return peers.slice(0, peers.indexOf(peer)).some((other: unknown) => isPlainObject(other) && other.name === peer.name);
}

/** The scheme a peer uses: its own, or `bearer` when it names a credential. */
const schemeOf = (peer: PeerInput) => (typeof peer.scheme === 'string' ? peer.scheme : peer.credential !== undefined ? 'bearer' : undefined);

const isName = (value: unknown) => typeof value === 'string' && PEER_NAME.test(value);

class PeerDto {
  /** Problems about a peer name it, once its name is usable. */
  static labelOf(peer: PeerInput, property: string): string {
    return property !== 'name' && isName(peer.name) ? ` (peer "${String(peer.name)}")` : '';
  }

  @Check((name, peer) => !nameTakenEarlier(peer), (name) => `another peer is already named "${String(name)}"`)
  @Check(isName, "must be 1-32 letters, digits, '-' or '_' (no '__', which separates peer and skill in tool names)", { evenWhenMissing: true })
  name?: unknown;
  @EgressOption('must be egress policy options') egress?: unknown;
  @Check((url, peer) => urlProblems(url, peerPolicy(peer)).length === 0, (url, peer) => urlProblems(url, peerPolicy(peer)).join('\n'), { evenWhenMissing: true })
  url?: unknown;
  @Check(
    (credential, peer) => credential !== undefined || (schemeOf(peer) !== 'bearer' && schemeOf(peer) !== 'apiKey'),
    (_, peer) => `the ${String(schemeOf(peer))} scheme needs a credential name`,
    { evenWhenMissing: true },
  )
  @Check(
    (credential) => typeof credential === 'string' && CREDENTIAL_NAME.test(credential) && !looksLikeSecret(credential),
    "must be the NAME of a credential (a letter, then letters, digits, '.', '_' or '-'; at most 64), not the secret itself: the CredentialResolver turns the name into the secret at call time",
  )
  credential?: unknown;
  @StringOption("must be 'bearer', 'apiKey' or the name of a custom strategy (@A2ACredentialStrategy(name))", SCHEME_NAME) scheme?: unknown;
  @Check(
    (header) => typeof header === 'string' && HTTP_TOKEN.test(header) && !RESERVED_HEADERS.has(header.toLowerCase()),
    'must be an HTTP header name (not one the protocol uses)',
  )
  apiKeyHeader?: unknown;
  @StringOption('must be a non-empty string') tenant?: unknown;
  @StringListOption() allow?: unknown;
  @StringListOption() extensions?: unknown;
  @BooleanOption() optional?: unknown;
  @IntegerOption(1) timeoutMs?: unknown;
  @Check((binding) => CLIENT_BINDINGS.includes(binding as A2ABinding), `must be one of ${CLIENT_BINDINGS.join(', ')}`) preferredBinding?: unknown;
  @Check((origins) => credentialOriginProblems(origins).length === 0, (origins) => credentialOriginProblems(origins).join('\n')) credentialOrigins?: unknown;
}

function credentialOriginProblems(origins: unknown): string[] {
  const problems: string[] = [];
  credentialOriginsOf(origins as string[], '', problems);
  return problems.map((problem) => problem.replace(/^: /, ''));
}

class CardCacheDto {
  @IntegerOption(0) defaultTtlMs?: unknown;
  @IntegerOption(0) maxTtlMs?: unknown;
}

class CircuitBreakerDto {
  @IntegerOption(1) failureThreshold?: unknown;
  @IntegerOption(1) halfOpenAfterMs?: unknown;
}

class OutboundDto {
  @IntegerOption(1) timeoutMs?: unknown;
  @IntegerOption(1) connectTimeoutMs?: unknown;
  @IntegerOption(1) discoveryTimeoutMs?: unknown;
  @IntegerOption(1) maxClients?: unknown;
  @EgressOption('must be egress policy options') egress?: unknown;
  @Nested(() => CardCacheDto, 'must be { defaultTtlMs?, maxTtlMs? }') cardCache?: unknown;
  @Nested(() => CircuitBreakerDto, 'must be { failureThreshold?, halfOpenAfterMs? }') circuitBreaker?: unknown;
  @Check((retry) => retry === false || isPlainObject(retry), 'must be retry options or false') retry?: unknown;
}

class CredentialsDto {
  @StringOption('must be letters, digits and _ (the start of an environment variable name)', /^[A-Za-z_][A-Za-z0-9_]*$|^$/) envPrefix?: unknown;
}

/**
 * The checks of the outbound options (`outbound`, `credentials`, `peers`): nothing is dialled, and
 * a problem never quotes a value, which may be a secret put in the wrong place.
 */
export class PeersOptionsDto {
  @Nested(() => OutboundDto, 'must be an object') outbound?: unknown;
  @Nested(() => CredentialsDto, 'must be an object') credentials?: unknown;
  @NestedList(() => PeerDto, { notList: 'must be a list of peers { name, url, ... }', notObject: 'must be an object { name, url, ... }' }) peers?: unknown;
}

/** The outbound options with every default filled in. They must have passed {@link PeersOptionsDto}. */
export function resolvePeersOptions(input: { peers?: A2APeerOptions[]; credentials?: A2ACredentialsOptions; outbound?: A2AOutboundOptions }): ResolvedPeersOptions {
  const out = input.outbound ?? {};
  const egress = out.egress ?? {};
  const timeoutMs = out.timeoutMs ?? DEFAULT_PEER_TIMEOUT_MS;
  return {
    peers: (input.peers ?? []).map((peer) => ({
      name: peer.name,
      url: peer.url,
      ...(peer.credential === undefined ? {} : { credential: peer.credential }),
      ...(schemeOf(peer as unknown as PeerInput) === undefined ? {} : { scheme: schemeOf(peer as unknown as PeerInput) }),
      apiKeyHeader: peer.apiKeyHeader ?? DEFAULT_API_KEY_HEADER,
      ...(peer.tenant === undefined ? {} : { tenant: peer.tenant }),
      allow: peer.allow ?? ['*'],
      optional: peer.optional === true,
      extensions: peer.extensions ?? [],
      timeoutMs: peer.timeoutMs ?? timeoutMs,
      ...(peer.preferredBinding === undefined ? {} : { preferredBinding: peer.preferredBinding }),
      egress: peer.egress ?? egress,
      credentialOrigins: credentialOriginsOf(peer.credentialOrigins, 'credentialOrigins', []),
    })),
    credentials: { envPrefix: input.credentials?.envPrefix ?? '' },
    outbound: {
      connectTimeoutMs: out.connectTimeoutMs ?? 10_000,
      discoveryTimeoutMs: out.discoveryTimeoutMs ?? 10_000,
      defaultTtlMs: out.cardCache?.defaultTtlMs ?? 300_000,
      maxTtlMs: out.cardCache?.maxTtlMs ?? 300_000,
      retry: out.retry,
      circuitBreaker: {
        failureThreshold: out.circuitBreaker?.failureThreshold ?? 5,
        halfOpenAfterMs: out.circuitBreaker?.halfOpenAfterMs ?? 30_000,
      },
      maxClients: out.maxClients ?? 1000,
    },
  };
}
