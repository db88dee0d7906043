/**
 * Agent Card signature verification (spec §8.4.3), for clients. No I/O: keys come from the caller,
 * as a JWKS, a single key, or a function that may fetch the `jku` itself.
 *
 * The spec's own texts disagree on the payload (spec digest §11 row 20) and the official SDKs sign
 * yet another form, so a signature is checked against the candidate payloads its form allows, in
 * this order: the §8.4.1 form of the schema-normalised card, the SDK form (empty values stripped),
 * and the received JSON itself (minus `signatures`). One verifying pair is enough (§8.4.3: at
 * least one).
 *
 * The SDK form covers no empty value, so a signature over the spec form of a card without empty
 * values also verifies, in the SDK form, every copy of that card with empty values added: an
 * empty security alternative `{}` ("no credentials needed"), an empty interface, an empty tag.
 * Hence a signature is checked in the SDK form only when its signer says it made it in that form:
 * a2a-js and a2a-python sign whatever protected header their caller gives and add nothing of
 * their own, so nothing in such a signature says it; only the verifying party, which chose to
 * trust the key, can (`sdkForm`). Signatures made by this module say their form in their
 * protected header (`nestjs-a2a-payload`): `spec` ones are checked in the spec form only, SDK-form
 * twins never count. And even then, a card whose security fields hold a value the SDK form leaves
 * uncovered is refused: those never pass silently; other uncovered values are listed in the result.
 *
 * A card read as A2A 0.3 (no `supportedInterfaces`, a `url`) is also checked in its 0.3 form, the
 * one a2a-python 0.3 signs and verifies: its 0.3 members only, defaults and empty values dropped.
 * It covers none of the 1.0 fields, so on a card that has them (a hybrid card) a `v03` signature
 * never counts: the 1.0 signature beside it decides. Like the SDK form, it is used for a signature
 * that does not say its form only when `sdkForm` allows, and never when it leaves a security field
 * (`security`, `securitySchemes`, `additionalInterfaces`, a skill's `security`) uncovered.
 */
import canonicalize from 'canonicalize';
import * as jose from 'jose';
import { normalizedCardJson, sdkPayloadOf, specPayloadOf, strippedEmptyPaths, type CardPayloadForm } from './card-payload.js';
import { CARD_PAYLOAD_FORM_HEADER, isJwk, isKeyInstance, publicJwkMembers } from './card-signing.js';
import { InvalidParamsError } from './errors.js';
import { isPlainObject } from './json-value.js';
import { isV03AgentCard } from './v03/agent-card.js';
import { v03CardPayloads, v03CardView } from './v03/card-payload.js';

/** The decoded protected header of a card signature. @publicApi */
export type CardSignatureHeader = jose.ProtectedHeaderParameters;

/** A public key or, for HMAC algorithms, the shared secret. A private JWK is reduced to its public members. @publicApi */
export type CardVerificationKey = jose.CryptoKey | jose.KeyObject | jose.JWK | Uint8Array;

/**
 * Finds the key for one signature from its protected header (`kid`, `jku`, `alg`); may fetch.
 * `undefined` (or a throw) means "no key": that signature does not verify.
 * @publicApi
 */
export type CardKeyResolver = (header: CardSignatureHeader) => Promise<CardVerificationKey | undefined> | CardVerificationKey | undefined;

/** A JWKS (keys matched by `kid`), a single key, or a resolver. @publicApi */
export type CardKeySource = jose.JSONWebKeySet | CardVerificationKey | CardKeyResolver;

/** Asymmetric algorithms accepted unless the caller says otherwise. HMAC (HS256) must be asked for. */
export const DEFAULT_CARD_SIGNATURE_ALGORITHMS: readonly string[] = [
  'ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA', 'Ed25519',
];

/** @publicApi */
export interface CardVerificationOptions {
  /** Allowed `alg` values (default {@link DEFAULT_CARD_SIGNATURE_ALGORITHMS}); `none` is never allowed. */
  algorithms?: readonly string[];
  /** Candidate payloads to try, in order (default all: `spec`, `sdk`, `raw`, and `v03` for a card read as 0.3), as far as each signature's own form allows. */
  forms?: readonly CardPayloadForm[];
  /**
   * Whether a signature that does not say which form it covers may be checked in the SDK form
   * (empty values stripped), as `@a2a-js/sdk` and a2a-python sign (and, on a card read as 0.3, in
   * the 0.3 form a2a-python 0.3 signs): `true`, or a function of the
   * signature's protected header (e.g. by `kid`: the keys you know an SDK signs with). Default
   * `false`: such a signature is checked in the spec and raw forms only, which cover empty
   * values, and an SDK-signed card verifies only when it holds no empty value (its two forms are
   * then the same bytes). Even when allowed, a card whose security fields (`securityRequirements`,
   * `securitySchemes`, `supportedInterfaces`, a skill's `securityRequirements`) hold an empty value
   * is refused in that form: the signature does not cover it.
   */
  sdkForm?: boolean | ((header: CardSignatureHeader) => boolean);
}

/** Which signature verified, with which key id, over which payload form. @publicApi */
export interface VerifiedCardSignature {
  /** Index in the card's `signatures`. */
  readonly index: number;
  readonly kid: string | undefined;
  readonly header: CardSignatureHeader;
  /**
   * `spec`: §8.4.1 over the schema fields; `sdk`: the same with empty values stripped, so empty
   * values (e.g. `"bearer": {}`) are not covered; `raw`: the whole received JSON is covered;
   * `v03`: the card's A2A 0.3 members, without defaults and empty values (a card read as 0.3).
   */
  readonly form: CardPayloadForm;
  /**
   * The card's empty values the signature does not cover (forms `sdk` and `v03` only; never in a
   * security field, which is refused), as paths such as `skills[0].tags[1]`. Empty for `spec` and `raw`.
   */
  readonly uncovered: readonly string[];
}

export type CardSignatureErrorCode = 'UNSIGNED' | 'MALFORMED_CARD' | 'INVALID_KEY_SOURCE' | 'NO_VALID_SIGNATURE';

/** Why one signature did not verify. */
export interface CardSignatureAttempt {
  readonly index: number;
  readonly kid?: string;
  readonly alg?: string;
  readonly reason: string;
}

/**
 * A card whose signatures cannot be trusted. Client-side only: it is not an A2A wire error and
 * has no place in the error taxonomy. @publicApi
 */
export class CardSignatureError extends Error {
  constructor(
    readonly code: CardSignatureErrorCode,
    message: string,
    /** One entry per signature that was tried (NO_VALID_SIGNATURE). */
    readonly attempts: readonly CardSignatureAttempt[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CardSignatureError';
  }
}

const ALL_FORMS: readonly CardPayloadForm[] = ['spec', 'sdk', 'raw', 'v03'];

interface CandidatePayload {
  readonly form: CardPayloadForm;
  /** base64url of the payload's UTF-8 bytes */
  readonly payload: string;
}

/**
 * Candidate payloads, identical ones tried once, and the normalised card they come from
 * (`undefined` for a card read as 0.3 that the 1.0 schema cannot read: its 0.3 form remains).
 */
function candidatePayloads(card: Record<string, unknown>, forms: readonly CardPayloadForm[]): { normalized?: Record<string, unknown>; payloads: CandidatePayload[] } {
  const v03 = forms.includes('v03') && isV03AgentCard(card);
  let normalized: Record<string, unknown> | undefined;
  let unreadable: CardSignatureError | undefined;
  try {
    normalized = normalizedCardJson(card);
  } catch (error) {
    const detail = error instanceof InvalidParamsError ? error.violationsText() : (error as Error).message;
    unreadable = new CardSignatureError('MALFORMED_CARD', `the Agent Card cannot be read: ${detail}`, [], { cause: error });
    // a 0.3 card's security schemes are no 1.0 schemes: the 1.0 forms are out, not the card
    if (!v03) throw unreadable;
  }
  const out: CandidatePayload[] = [];
  const seen = new Set<string>();
  for (const form of forms) {
    let texts: (string | undefined)[];
    try {
      // the very functions a signer uses, so both sides derive the same bytes
      if (form === 'raw') texts = [canonicalize({ ...card, signatures: undefined })];
      else if (form === 'v03') texts = v03 ? v03CardPayloads(card) : [];
      else if (normalized === undefined) texts = [];
      else texts = [form === 'spec' ? specPayloadOf(normalized) : sdkPayloadOf(normalized)];
    } catch {
      continue; // JCS refuses lone surrogates, the 0.3 model would not read the card: that form cannot have been signed
    }
    for (const text of texts) {
      if (text === undefined || seen.has(text)) continue;
      seen.add(text);
      out.push({ form, payload: jose.base64url.encode(new TextEncoder().encode(text)) });
    }
  }
  if (out.length === 0) throw unreadable ?? new CardSignatureError('MALFORMED_CARD', 'the Agent Card cannot be canonicalised (RFC 8785 refuses lone surrogates)');
  return { normalized, payloads: out };
}

/** Fields whose empty values change who may call and how: an SDK-form (or 0.3-form) signature must cover them. */
const SECURITY_FIELD = /^(securityRequirements|securitySchemes|supportedInterfaces|skills\[\d+\]\.securityRequirements)(\[|\.|$)/;
const V03_SECURITY_FIELD = /^(security|securitySchemes|additionalInterfaces|skills\[\d+\]\.security)(\[|\.|$)/;

/** The forms one signature may be checked in, from what its protected header says, or why none. */
function formsOf(header: CardSignatureHeader, options: CardVerificationOptions, readAsV03: boolean): ReadonlySet<CardPayloadForm> | string {
  const declared = header[CARD_PAYLOAD_FORM_HEADER];
  // a spec-form signature of this module: empty values added or removed must not verify
  if (declared === 'spec') return new Set(['spec']);
  // the twin of a spec-form signature, for SDK verifiers: it covers no empty value, so it never counts here
  if (declared === 'sdk') return 'a signature over the SDK form, made for SDK verifiers; the spec-form signature beside it decides';
  // made for 0.3 verifiers over the 0.3 members: it counts only where those are all a reader reads
  if (declared === 'v03') {
    return readAsV03 ? new Set(['v03']) : "a signature over the card's A2A 0.3 view, made for 0.3 verifiers; it does not cover the 1.0 fields, the 1.0 signature beside it decides";
  }
  if (declared !== undefined) return `${CARD_PAYLOAD_FORM_HEADER} "${String(declared)}" is no payload form this verifier knows`;
  const sdk = typeof options.sdkForm === 'function' ? options.sdkForm(header) === true : options.sdkForm === true;
  return new Set<CardPayloadForm>(sdk ? ['spec', 'sdk', 'raw', 'v03'] : ['spec', 'raw']);
}

function isSingleKey(keys: unknown): keys is CardVerificationKey {
  return isKeyInstance(keys) || isJwk(keys);
}

/** A JWK as a verification key: asymmetric ones reduced to their public members, `oct` kept. */
function verificationJwk(jwk: jose.JWK): jose.JWK {
  return publicJwkMembers(jwk) ?? jwk;
}

/** The keys to try for one signature, or the reason there are none. */
async function keysFor(source: CardKeySource, header: CardSignatureHeader): Promise<CardVerificationKey[] | string> {
  if (typeof source === 'function') {
    let key: CardVerificationKey | undefined;
    try {
      key = await source(header);
    } catch (error) {
      return `key resolver failed: ${(error as Error).message}`;
    }
    if (key === undefined || key === null) return 'key resolver returned no key';
    return [isJwk(key) ? verificationJwk(key) : key];
  }
  if (isSingleKey(source)) {
    if (!isJwk(source)) return [source];
    if (source.kid !== undefined && header.kid !== undefined && source.kid !== header.kid) return `kid "${header.kid}" does not match the key's kid "${source.kid}"`;
    if (source.alg !== undefined && source.alg !== header.alg) return `alg "${String(header.alg)}" does not match the key's alg "${source.alg}"`;
    return [verificationJwk(source)];
  }
  // a JWKS: the protected header's kid picks the key (spec §8.4.2: kid MUST be present)
  if (typeof header.kid !== 'string') return 'the protected header has no kid to look up in the key set';
  const matches = (source as jose.JSONWebKeySet).keys.filter(
    (k) => isPlainObject(k) && k.kid === header.kid && (k.alg === undefined || k.alg === header.alg) && (k.use === undefined || k.use === 'sig'),
  );
  if (matches.length === 0) return `no key with kid "${header.kid}" (and alg ${String(header.alg)}) in the key set`;
  return matches.map(verificationJwk);
}

function checkKeySource(keys: unknown): void {
  if (typeof keys === 'function' || isSingleKey(keys)) return;
  if (isPlainObject(keys) && Array.isArray(keys.keys)) return;
  throw new CardSignatureError('INVALID_KEY_SOURCE', 'keys must be a JWKS ({ keys: [...] }), a key (CryptoKey, KeyObject, JWK, bytes) or a resolver function');
}

const JOSE_TYP = /^(application\/)?jose$/i;

/**
 * Verifies an Agent Card received as JSON (spec §8.4.3). Resolves with the first signature that
 * verifies; rejects when the card has no signature, when none verifies, when a signature's `alg`
 * is `none` or not allowed, or when no key matches.
 *
 * A missing `typ` is accepted (the spec is ambiguous about it); another `typ` than `JOSE` is not.
 * The signature's `kid` must be in the protected header for a JWKS lookup.
 * @throws CardSignatureError
 * @publicApi
 */
export async function verifyAgentCard(card: unknown, keys: CardKeySource, options: CardVerificationOptions = {}): Promise<VerifiedCardSignature> {
  checkKeySource(keys);
  if (!isPlainObject(card)) throw new CardSignatureError('MALFORMED_CARD', 'the Agent Card must be a JSON object');
  const signatures = card.signatures;
  if (!Array.isArray(signatures) || signatures.length === 0) throw new CardSignatureError('UNSIGNED', 'the Agent Card carries no signature');
  const algorithms = (options.algorithms ?? DEFAULT_CARD_SIGNATURE_ALGORITHMS).filter((a) => a.toLowerCase() !== 'none');
  const { normalized, payloads } = candidatePayloads(card, options.forms ?? ALL_FORMS);
  const readAsV03 = isV03AgentCard(card);
  // what the SDK and 0.3 forms leave out, worked out once: only a signature that verifies in such a form needs it
  let uncoveredPaths: string[] | undefined;
  let uncoveredV03Paths: string[] | undefined;
  const uncovered = (form: CardPayloadForm): { paths: string[]; security: RegExp } =>
    form === 'v03'
      ? { paths: (uncoveredV03Paths ??= strippedEmptyPaths(v03CardView(card))), security: V03_SECURITY_FIELD }
      : { paths: (uncoveredPaths ??= strippedEmptyPaths(normalized ?? {})), security: SECURITY_FIELD };

  const attempts: CardSignatureAttempt[] = [];
  for (const [index, entry] of signatures.entries()) {
    const fail = (reason: string, header?: CardSignatureHeader): void => {
      attempts.push({ index, kid: typeof header?.kid === 'string' ? header.kid : undefined, alg: typeof header?.alg === 'string' ? header.alg : undefined, reason });
    };
    if (!isPlainObject(entry) || typeof entry.protected !== 'string' || typeof entry.signature !== 'string' || (entry.header !== undefined && !isPlainObject(entry.header))) {
      fail('not a signature object { protected, signature, header? }');
      continue;
    }
    let header: CardSignatureHeader;
    try {
      header = jose.decodeProtectedHeader({ protected: entry.protected, signature: entry.signature, payload: '' });
    } catch {
      fail('the protected header is not base64url-encoded JSON');
      continue;
    }
    const alg = header.alg;
    if (typeof alg !== 'string') {
      fail('the protected header has no alg', header);
      continue;
    }
    if (!algorithms.includes(alg)) {
      fail(`alg "${alg}" is not allowed`, header);
      continue;
    }
    if (header.typ !== undefined && (typeof header.typ !== 'string' || !JOSE_TYP.test(header.typ))) {
      fail(`typ "${String(header.typ)}" is not JOSE`, header);
      continue;
    }
    if (header.b64 !== undefined) {
      fail('b64 is not used for Agent Card signatures (spec §8.4.2)', header);
      continue;
    }
    const forms = formsOf(header, options, readAsV03);
    if (typeof forms === 'string') {
      fail(forms, header);
      continue;
    }
    const candidates = await keysFor(keys, header);
    if (typeof candidates === 'string') {
      fail(candidates, header);
      continue;
    }
    const reasons = new Set<string>();
    for (const key of candidates) {
      for (const { form, payload } of payloads) {
        if (!forms.has(form)) continue;
        try {
          await jose.flattenedVerify(
            { protected: entry.protected, signature: entry.signature, header: entry.header as jose.JWSHeaderParameters | undefined, payload },
            key,
            { algorithms: [alg] },
          );
        } catch (error) {
          reasons.add((error as Error).message);
          continue;
        }
        const { paths: notCovered, security: securityField } = form === 'sdk' || form === 'v03' ? uncovered(form) : { paths: [], security: SECURITY_FIELD };
        const security = notCovered.filter((path) => securityField.test(path));
        if (security.length > 0) {
          reasons.add(`it verifies in the ${form === 'sdk' ? 'SDK' : 'A2A 0.3'} form only, which does not cover the empty ${security.join(', ')}: security fields must be covered`);
          continue;
        }
        return { index, kid: typeof header.kid === 'string' ? header.kid : undefined, header, form, uncovered: notCovered };
      }
    }
    fail([...reasons].join('; ') || `no payload in a form it may be checked in (${[...forms].join(', ')})`, header);
  }
  throw new CardSignatureError(
    'NO_VALID_SIGNATURE',
    `no signature on the Agent Card verifies (${attempts.map((a) => `#${a.index}${a.kid ? ` kid ${a.kid}` : ''}: ${a.reason}`).join(' | ')})`,
    attempts,
  );
}
