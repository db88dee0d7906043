/**
 * The outbound options of the module: the peers whose skills become tools, how credentials are
 * named and resolved, and the network budgets of calls to peers. Checked once at start-up, every
 * problem listed; a problem never repeats an option's value, since the value may be a secret that
 * was put in the wrong place.
 */
import { egressPolicyOf, type EgressPolicy, type EgressPolicyOptions } from '../../net/egress-policy.js';
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

const PEER_KEYS = new Set([
  'name',
  'url',
  'credential',
  'scheme',
  'apiKeyHeader',
  'tenant',
  'allow',
  'optional',
  'extensions',
  'timeoutMs',
  'preferredBinding',
  'egress',
  'credentialOrigins',
]);
const CREDENTIALS_KEYS = new Set(['envPrefix']);
const OUTBOUND_KEYS = new Set(['egress', 'timeoutMs', 'connectTimeoutMs', 'discoveryTimeoutMs', 'cardCache', 'retry', 'circuitBreaker', 'maxClients']);

/** Option names that say "I hold a secret": refused wherever an option is not expected. */
const SECRET_LIKE_KEY = /token|secret|passw|pwd|key|auth|bearer|cookie|header|credential|session|signature/i;

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

/** Keys of `value` outside `known`: secret-looking ones are refused as literal secrets, the others as unknown. */
function unknownKeys(value: Record<string, unknown>, known: ReadonlySet<string>, path: string, problems: string[]): void {
  for (const key of Object.keys(value)) {
    if (known.has(key)) continue;
    problems.push(
      SECRET_LIKE_KEY.test(key)
        ? `${path}.${key}: literal secrets are not accepted in the options; name a credential instead (credential: 'research-token'), which the CredentialResolver turns into the secret at call time`
        : `${path}.${key}: unknown option`,
    );
  }
}

function positiveInt(value: unknown, path: string, problems: string[], min = 1): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isInteger(value) && value >= min)) {
    problems.push(`${path}: must be an integer of at least ${min}`);
  }
}

function stringList(value: unknown, path: string, problems: string[]): void {
  if (value !== undefined && !(Array.isArray(value) && value.every((v) => typeof v === 'string' && v !== ''))) {
    problems.push(`${path}: must be a list of non-empty strings`);
  }
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
 * A peer URL's problems. The URL itself is never quoted: a secret in its userinfo or query is
 * exactly what this refuses.
 */
function urlProblems(url: unknown, policy: EgressPolicy | undefined, path: string, problems: string[]): void {
  if (typeof url !== 'string' || url === '') return void problems.push(`${path}: must be the URL of the peer's Agent Card or origin`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return void problems.push(`${path}: is not a valid absolute URL`);
  }
  const before = problems.length;
  if (parsed.username !== '' || parsed.password !== '') problems.push(`${path}: ${URL_REASONS.userinfo}`);
  if (parsed.search !== '' || url.includes('?')) problems.push(`${path}: must not carry a query (credentials go in headers, through a named credential)`);
  if (parsed.hash !== '' || url.includes('#')) problems.push(`${path}: must not carry a fragment`);
  if (problems.length > before || policy === undefined) return;
  try {
    policy.checkUrl(parsed);
  } catch (error) {
    if (!(error instanceof EgressRefusedError)) throw error;
    const reason = URL_REASONS[error.reason] ?? `is refused by the egress policy (${error.reason}; development peers on this machine need egress: { allowHttp: true, allowHosts: ['127.0.0.1'] })`;
    problems.push(`${path}: ${reason}`);
  }
}

interface PeerDefaults {
  egress: EgressPolicyOptions;
  /** Undefined when `outbound.egress` is itself unusable (already reported). */
  policy: EgressPolicy | undefined;
  timeoutMs: number;
}

function resolvePeer(raw: unknown, index: number, outbound: PeerDefaults, names: Set<string>, problems: string[]): ResolvedPeer | undefined {
  const path = `peers[${index}]`;
  if (!isPlainObject(raw)) return void problems.push(`${path}: must be an object { name, url, ... }`);
  const before = problems.length;
  unknownKeys(raw, PEER_KEYS, path, problems);
  const name = raw.name;
  if (typeof name !== 'string' || !PEER_NAME.test(name)) {
    problems.push(`${path}.name: must be 1-32 letters, digits, '-' or '_' (no '__', which separates peer and skill in tool names)`);
  } else if (names.has(name)) {
    problems.push(`${path}.name: another peer is already named "${name}"`);
  } else names.add(name);
  const label = typeof name === 'string' && PEER_NAME.test(name) ? ` (peer "${name}")` : '';

  if (raw.egress !== undefined && !isPlainObject(raw.egress)) problems.push(`${path}.egress${label}: must be egress policy options`);
  const egress = isPlainObject(raw.egress) ? (raw.egress as EgressPolicyOptions) : outbound.egress;
  const policy = isPlainObject(raw.egress) ? egressPolicyOf(egress, `${path}.egress${label}`, problems) : outbound.policy;
  urlProblems(raw.url, policy, `${path}.url${label}`, problems);

  const credential = raw.credential;
  if (credential !== undefined) {
    if (typeof credential !== 'string' || !CREDENTIAL_NAME.test(credential) || looksLikeSecret(credential)) {
      problems.push(
        `${path}.credential${label}: must be the NAME of a credential (a letter, then letters, digits, '.', '_' or '-'; at most 64), not the secret itself: the CredentialResolver turns the name into the secret at call time`,
      );
    }
  }
  const scheme = raw.scheme;
  if (scheme !== undefined && (typeof scheme !== 'string' || !SCHEME_NAME.test(scheme))) {
    problems.push(`${path}.scheme${label}: must be 'bearer', 'apiKey' or the name of a custom strategy (@A2ACredentialStrategy(name))`);
  }
  const effectiveScheme = typeof scheme === 'string' ? scheme : credential !== undefined ? 'bearer' : undefined;
  if ((effectiveScheme === 'bearer' || effectiveScheme === 'apiKey') && credential === undefined) {
    problems.push(`${path}.credential${label}: the ${effectiveScheme} scheme needs a credential name`);
  }
  const apiKeyHeader = raw.apiKeyHeader;
  if (apiKeyHeader !== undefined && (typeof apiKeyHeader !== 'string' || !HTTP_TOKEN.test(apiKeyHeader) || RESERVED_HEADERS.has(apiKeyHeader.toLowerCase()))) {
    problems.push(`${path}.apiKeyHeader${label}: must be an HTTP header name (not one the protocol uses)`);
  }
  if (raw.tenant !== undefined && (typeof raw.tenant !== 'string' || raw.tenant === '')) problems.push(`${path}.tenant${label}: must be a non-empty string`);
  stringList(raw.allow, `${path}.allow${label}`, problems);
  stringList(raw.extensions, `${path}.extensions${label}`, problems);
  if (raw.optional !== undefined && typeof raw.optional !== 'boolean') problems.push(`${path}.optional${label}: must be true or false`);
  positiveInt(raw.timeoutMs, `${path}.timeoutMs${label}`, problems);
  if (raw.preferredBinding !== undefined && !CLIENT_BINDINGS.includes(raw.preferredBinding as A2ABinding)) {
    problems.push(`${path}.preferredBinding${label}: must be one of ${CLIENT_BINDINGS.join(', ')}`);
  }
  const credentialOrigins = credentialOriginsOf(raw.credentialOrigins as string[] | undefined, `${path}.credentialOrigins${label}`, problems);
  if (problems.length > before) return undefined;
  return {
    name: name as string,
    url: raw.url as string,
    ...(credential === undefined ? {} : { credential: credential as string }),
    ...(effectiveScheme === undefined ? {} : { scheme: effectiveScheme }),
    apiKeyHeader: (apiKeyHeader as string | undefined) ?? DEFAULT_API_KEY_HEADER,
    ...(raw.tenant === undefined ? {} : { tenant: raw.tenant as string }),
    allow: (raw.allow as string[] | undefined) ?? ['*'],
    optional: raw.optional === true,
    extensions: (raw.extensions as string[] | undefined) ?? [],
    timeoutMs: (raw.timeoutMs as number | undefined) ?? outbound.timeoutMs,
    ...(raw.preferredBinding === undefined ? {} : { preferredBinding: raw.preferredBinding as A2ABinding }),
    egress,
    credentialOrigins,
  };
}

/**
 * Checks the outbound options, adding every problem to `problems`, and fills in the defaults.
 * Nothing is dialled here.
 */
export function resolvePeersOptions(
  input: { peers?: unknown; credentials?: unknown; outbound?: unknown },
  problems: string[],
): ResolvedPeersOptions {
  const outbound = input.outbound === undefined ? {} : input.outbound;
  if (!isPlainObject(outbound)) problems.push('outbound: must be an object');
  const out = isPlainObject(outbound) ? outbound : {};
  unknownKeys(out, OUTBOUND_KEYS, 'outbound', problems);
  for (const key of ['timeoutMs', 'connectTimeoutMs', 'discoveryTimeoutMs', 'maxClients'] as const) positiveInt(out[key], `outbound.${key}`, problems);
  if (out.egress !== undefined && !isPlainObject(out.egress)) problems.push('outbound.egress: must be egress policy options');
  const egress = isPlainObject(out.egress) ? (out.egress as EgressPolicyOptions) : {};
  const policy = egressPolicyOf(egress, 'outbound.egress', problems);
  const cardCache = isPlainObject(out.cardCache) ? out.cardCache : {};
  if (out.cardCache !== undefined && !isPlainObject(out.cardCache)) problems.push('outbound.cardCache: must be { defaultTtlMs?, maxTtlMs? }');
  positiveInt(cardCache.defaultTtlMs, 'outbound.cardCache.defaultTtlMs', problems, 0);
  positiveInt(cardCache.maxTtlMs, 'outbound.cardCache.maxTtlMs', problems, 0);
  const breaker = isPlainObject(out.circuitBreaker) ? out.circuitBreaker : {};
  positiveInt(breaker.failureThreshold, 'outbound.circuitBreaker.failureThreshold', problems);
  positiveInt(breaker.halfOpenAfterMs, 'outbound.circuitBreaker.halfOpenAfterMs', problems);
  if (out.retry !== undefined && out.retry !== false && !isPlainObject(out.retry)) problems.push('outbound.retry: must be retry options or false');

  const credentials = input.credentials === undefined ? {} : input.credentials;
  if (!isPlainObject(credentials)) problems.push('credentials: must be an object');
  const creds = isPlainObject(credentials) ? credentials : {};
  unknownKeys(creds, CREDENTIALS_KEYS, 'credentials', problems);
  if (creds.envPrefix !== undefined && (typeof creds.envPrefix !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$|^$/.test(creds.envPrefix))) {
    problems.push('credentials.envPrefix: must be letters, digits and _ (the start of an environment variable name)');
  }

  const timeoutMs = (out.timeoutMs as number | undefined) ?? DEFAULT_PEER_TIMEOUT_MS;
  const peers: ResolvedPeer[] = [];
  if (input.peers !== undefined && !Array.isArray(input.peers)) problems.push('peers: must be a list of peers { name, url, ... }');
  const names = new Set<string>();
  for (const [index, raw] of (Array.isArray(input.peers) ? input.peers : []).entries()) {
    const peer = resolvePeer(raw, index, { egress, policy, timeoutMs }, names, problems);
    if (peer !== undefined) peers.push(peer);
  }
  return {
    peers,
    credentials: { envPrefix: (creds.envPrefix as string | undefined) ?? '' },
    outbound: {
      connectTimeoutMs: (out.connectTimeoutMs as number | undefined) ?? 10_000,
      discoveryTimeoutMs: (out.discoveryTimeoutMs as number | undefined) ?? 10_000,
      defaultTtlMs: (cardCache.defaultTtlMs as number | undefined) ?? 300_000,
      maxTtlMs: (cardCache.maxTtlMs as number | undefined) ?? 300_000,
      retry: out.retry as A2ARetryOptions | false | undefined,
      circuitBreaker: {
        failureThreshold: (breaker.failureThreshold as number | undefined) ?? 5,
        halfOpenAfterMs: (breaker.halfOpenAfterMs as number | undefined) ?? 30_000,
      },
      maxClients: (out.maxClients as number | undefined) ?? 1000,
    },
  };
}
