/**
 * Agent Card signing (spec §8.4): a JWS with a detached payload per signature, the payload being
 * the card's §8.4.1 canonical form (see `card-payload.ts`), and the JWKS that publishes the keys.
 *
 * Pure: no clock, no I/O; the only randomness is what an algorithm itself draws (ECDSA nonces).
 */
import { KeyObject, createPublicKey } from 'node:crypto';
import { types } from 'node:util';
import * as jose from 'jose';
import { serializeAgentCard } from './agent-card.js';
import { canonicalCardPayload, normalizedCardJson, sdkPayloadOf, specPayloadOf } from './card-payload.js';
import { decode } from './codec.js';
import { InvalidParamsError } from './errors.js';
import { isPlainObject } from './json-value.js';
import { AgentCardSchema } from './schemas.js';
import type { AgentCard, AgentCardSignature, JsonObject } from './types.js';
import { toV03HybridAgentCard } from './v03/agent-card.js';
import { v03CardPayloads } from './v03/card-payload.js';

/** The algorithms this module signs with. HS256 has no public key: see {@link publicJwks}. @publicApi */
export type CardSigningAlgorithm = 'ES256' | 'RS256' | 'EdDSA' | 'HS256';

export const CARD_SIGNING_ALGORITHMS: readonly CardSigningAlgorithm[] = ['ES256', 'RS256', 'EdDSA', 'HS256'];

/**
 * A private key (`CryptoKey`, Node `KeyObject` or private JWK) or, for HS256, the shared secret
 * (bytes, a secret `KeyObject`/`CryptoKey` or an `oct` JWK). @publicApi
 */
export type CardSigningKey = jose.CryptoKey | jose.KeyObject | jose.JWK | Uint8Array;

/** @publicApi */
export interface CardSigningOptions {
  /** JWS `alg`. Defaults to the JWK's `alg` when the key is a JWK carrying one. */
  alg?: CardSigningAlgorithm;
  /** Key id for the protected header (spec: MUST). Defaults to the JWK's `kid`. */
  kid?: string;
  /** URL of the JWKS that holds the public key (protected header `jku`). */
  jku?: string;
  /** JWS unprotected header, served as the signature's `header`. Not covered by the signature. */
  header?: JsonObject;
}

/** A key and how to sign with it: one signature per signer (several signers: key rotation). @publicApi */
export interface CardSigner extends CardSigningOptions {
  key: CardSigningKey;
}

/** A signed card and the exact bytes to serve for it. @publicApi */
export interface SignedAgentCard {
  readonly card: AgentCard;
  readonly body: string;
}

/**
 * A card that cannot be signed, or a signing key/option that cannot be used. Lists every problem
 * at once. A local configuration mistake, never sent on the wire. @publicApi
 */
export class CardSigningError extends Error {
  constructor(
    readonly problems: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(`cannot sign the Agent Card:\n${problems.map((p) => `  - ${p}`).join('\n')}`, options);
    this.name = 'CardSigningError';
  }
}

/** Members of a JWK that are public, per key type; everything else (d, p, q, dp, dq, qi, oth, k, …) never leaves. */
const PUBLIC_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  EC: ['kty', 'crv', 'x', 'y'],
  RSA: ['kty', 'n', 'e'],
  OKP: ['kty', 'crv', 'x'],
};

/** A plain JWK (not a CryptoKey, KeyObject or bytes). @internal */
export function isJwk(key: unknown): key is jose.JWK {
  return isPlainObject(key) && typeof key.kty === 'string' && !types.isKeyObject(key) && !types.isCryptoKey(key);
}

/** A key object jose takes as it is (realm-independent checks: test runners use several realms). @internal */
export function isKeyInstance(key: unknown): key is jose.CryptoKey | jose.KeyObject | Uint8Array {
  return types.isUint8Array(key) || types.isKeyObject(key) || types.isCryptoKey(key);
}

/**
 * The public members of an asymmetric JWK (whitelisted per `kty`), or `undefined` for a key type
 * without a public part (`oct`) or one this module does not know. @internal
 */
export function publicJwkMembers(jwk: jose.JWK): jose.JWK | undefined {
  const members = jwk.kty ? PUBLIC_MEMBERS[jwk.kty] : undefined;
  if (!members) return undefined;
  const out: Record<string, unknown> = {};
  for (const name of members) if ((jwk as Record<string, unknown>)[name] !== undefined) out[name] = (jwk as Record<string, unknown>)[name];
  return out as jose.JWK;
}

/**
 * Protected-header parameter saying which payload form a signature covers: `spec` on every
 * signature this module makes over the §8.4.1 form, `sdk` on the SDK-form twin, `v03` on those
 * of the hybrid card over its A2A 0.3 view (`v03/card-payload.ts`). Being in the protected header,
 * it is covered by the signature itself, so a verifier can trust it: ours checks a `spec`
 * signature in the spec form only (added or removed empty values never verify), never counts a
 * twin, which covers no empty value, and counts a `v03` one only on a card read as 0.3. Other
 * verifiers ignore an unknown header parameter.
 */
export const CARD_PAYLOAD_FORM_HEADER = 'nestjs-a2a-payload';

const PROTECTED_NAMES = ['alg', 'typ', 'kid', 'jku', 'crit', 'b64', CARD_PAYLOAD_FORM_HEADER];

interface ResolvedSigner {
  key: CardSigningKey;
  alg: CardSigningAlgorithm;
  kid: string;
  jku?: string;
  header?: JsonObject;
}

/** Options checked, JWK defaults applied; every problem goes to `problems`. */
function resolveSigner(key: CardSigningKey, options: CardSigningOptions, problems: string[]): ResolvedSigner | undefined {
  const jwk = isJwk(key) ? key : undefined;
  const alg = options.alg ?? (jwk?.alg as CardSigningAlgorithm | undefined);
  const kid = options.kid ?? jwk?.kid;
  const before = problems.length;
  if (alg === undefined) problems.push(`alg is required (one of ${CARD_SIGNING_ALGORITHMS.join(', ')})`);
  else if (!CARD_SIGNING_ALGORITHMS.includes(alg)) problems.push(`alg "${String(alg)}" is not supported (one of ${CARD_SIGNING_ALGORITHMS.join(', ')})`);
  if (jwk?.alg !== undefined && alg !== undefined && jwk.alg !== alg) problems.push(`alg "${alg}" differs from the key's alg "${jwk.alg}"`);
  if (typeof kid !== 'string' || kid.length === 0) problems.push('kid is required: the protected header MUST name the key (spec §8.4.2)');
  if (options.jku !== undefined && !isHttpUrl(options.jku)) problems.push(`jku must be an absolute http(s) URL, got "${options.jku}"`);
  if (options.header !== undefined) {
    if (!isPlainObject(options.header)) problems.push('header must be a JSON object');
    else {
      const clash = PROTECTED_NAMES.filter((name) => name in options.header!);
      if (clash.length > 0) problems.push(`header (unprotected) must not carry ${clash.join(', ')}: they belong in the protected header`);
    }
  }
  if (key === undefined || key === null) problems.push('key is required');
  if (problems.length > before) return undefined;
  return {
    key,
    alg: alg!,
    kid: kid!,
    jku: options.jku,
    header: options.header && Object.keys(options.header).length > 0 ? options.header : undefined,
  };
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** What gets signed: the §8.4.1 payload, and the SDKs' form of it when that differs. */
interface SignablePayloads {
  spec: string;
  /**
   * The official SDKs (a2a-js, a2a-python) strip every empty value before signing and verifying
   * (a2a-js #627, A2A #2122), so a card holding one (`"apiKey": {}` in a security requirement, an
   * empty `params`) has a spec payload SDK verifiers never compute. Such a card gets a second
   * signature over the SDK form: spec verifiers and SDK verifiers each find one that verifies.
   */
  sdk?: string;
}

/** The payloads of the card as served, after checking the card can be signed (valid, no empty REQUIRED field). */
function signablePayloads(card: AgentCard, problems: string[]): SignablePayloads | undefined {
  // what a verifier will see is the served JSON, so the payload is derived from exactly that
  const served = JSON.parse(serializeAgentCard(card)) as Record<string, unknown>;
  const before = problems.length;
  try {
    decode(AgentCardSchema, served);
  } catch (error) {
    if (!(error instanceof InvalidParamsError)) throw error;
    // "never sign empty REQUIRED fields" (digest §6.6): a verifier could not tell them from absent ones
    for (const v of error.fieldViolations) problems.push(`card.${v.field} ${v.description}`);
    return undefined;
  }
  try {
    const normalized = normalizedCardJson(served);
    const spec = specPayloadOf(normalized);
    const sdk = sdkPayloadOf(normalized);
    return problems.length > before ? undefined : { spec, sdk: sdk === spec ? undefined : sdk };
  } catch (error) {
    problems.push(`card cannot be canonicalised (RFC 8785): ${(error as Error).message}`);
    return undefined;
  }
}

/** One signature per payload form, spec form first. */
async function signPayloads(payloads: SignablePayloads, signer: ResolvedSigner): Promise<AgentCardSignature[]> {
  const signatures = [await signPayload(payloads.spec, signer, { [CARD_PAYLOAD_FORM_HEADER]: 'spec' })];
  if (payloads.sdk !== undefined) signatures.push(await signPayload(payloads.sdk, signer, { [CARD_PAYLOAD_FORM_HEADER]: 'sdk' }));
  return signatures;
}

async function signPayload(payload: string, signer: ResolvedSigner, extra: Record<string, string>): Promise<AgentCardSignature> {
  const protectedHeader: jose.JWSHeaderParameters = { alg: signer.alg, typ: 'JOSE', kid: signer.kid, ...extra };
  if (signer.jku !== undefined) protectedHeader.jku = signer.jku;
  const builder = new jose.FlattenedSign(new TextEncoder().encode(payload)).setProtectedHeader(protectedHeader);
  if (signer.header) builder.setUnprotectedHeader(signer.header as jose.JWSHeaderParameters);
  let jws: jose.FlattenedJWS;
  try {
    jws = await builder.sign(signer.key);
  } catch (error) {
    // jose's messages name the key type problem, never key material
    throw new CardSigningError([`key "${signer.kid}" cannot sign with ${signer.alg}: ${(error as Error).message}`], { cause: error });
  }
  // the payload is detached: the card itself is the payload
  const signature: AgentCardSignature = { protected: jws.protected!, signature: jws.signature };
  if (signer.header) signature.header = signer.header;
  return signature;
}

/**
 * Signs `card` (spec §8.4.2) and returns it with the signature appended to `signatures`.
 * The payload is {@link canonicalCardPayload} of the card as {@link serializeAgentCard} serves it;
 * the protected header is `{ alg, typ: "JOSE", kid, jku?, "nestjs-a2a-payload": "spec" }`.
 *
 * When the official SDKs would canonicalise the card differently, a second signature covers
 * their form (see `SignablePayloads`).
 *
 * Refuses (listing every problem) a card that is not valid.
 * @throws CardSigningError
 * @publicApi
 */
export async function signAgentCard(card: AgentCard, key: CardSigningKey, options: CardSigningOptions = {}): Promise<AgentCard> {
  const problems: string[] = [];
  const signer = resolveSigner(key, options, problems);
  const payloads = signablePayloads(card, problems);
  if (problems.length > 0 || !signer || payloads === undefined) throw new CardSigningError(problems);
  return { ...card, signatures: [...(card.signatures ?? []), ...(await signPayloads(payloads, signer))] };
}

/**
 * The card signed by every signer (in order; with a second signature each when the SDK form
 * differs) and the exact bytes to serve: `body` is {@link serializeAgentCard} of the signed card,
 * and every signature covers a payload derived from that very body. With no signers the card is
 * served unsigned.
 * @throws CardSigningError listing every problem of the card and of each signer
 * @publicApi
 */
export async function signedCardBody(card: AgentCard, signers: readonly CardSigner[]): Promise<SignedAgentCard> {
  if (signers.length === 0) return { card, body: serializeAgentCard(card) };
  const problems: string[] = [];
  const resolved = resolveSigners(signers, problems);
  const payloads = signablePayloads(card, problems);
  if (problems.length > 0 || payloads === undefined) throw new CardSigningError(problems);

  const signatures: AgentCardSignature[] = [...(card.signatures ?? [])];
  for (const signer of resolved) signatures.push(...(await signPayloads(payloads, signer)));
  const signed: AgentCard = { ...card, signatures };
  const body = serializeAgentCard(signed);
  // the served bytes and the signed bytes come from one serialiser; prove it before serving
  if (canonicalCardPayload(JSON.parse(body) as Record<string, unknown>) !== payloads.spec) {
    throw new CardSigningError(['the served card does not canonicalise to the signed payload (a codec defect)']);
  }
  return { card: signed, body };
}

/** Signers checked as {@link signedCardBody} checks them, every problem listed. */
function resolveSigners(signers: readonly CardSigner[], problems: string[]): ResolvedSigner[] {
  const resolved = signers.map((s, i) => {
    const own: string[] = [];
    const r = resolveSigner(s.key, s, own);
    problems.push(...own.map((p) => (signers.length > 1 ? `signer ${i} (kid ${String(s.kid ?? '?')}): ${p}` : p)));
    return r;
  });
  const kids = resolved.flatMap((r) => (r ? [r.kid] : []));
  const dup = kids.filter((kid, i) => kids.indexOf(kid) !== i);
  if (dup.length > 0) problems.push(`kid ${[...new Set(dup)].join(', ')} is used by more than one signer`);
  return resolved.filter((r): r is ResolvedSigner => r !== undefined);
}

/** The hybrid card of a signed card and the exact bytes to serve for it. @internal */
export interface SignedV03HybridCard {
  readonly hybrid: Record<string, unknown>;
  readonly body: string;
}

/**
 * The hybrid card (1.0 fields plus those 0.3 readers look for, see `toV03HybridAgentCard`) of a
 * card signed by {@link signedCardBody}, verifiable by the verifiers of both versions: it keeps
 * the 1.0 signatures, which 1.0 verifiers check after dropping the 0.3 members, and adds per
 * signer one signature over each payload an A2A 0.3 verifier (a2a-python 0.3) computes from its
 * own view of the card, marked `"nestjs-a2a-payload": "v03"` (usually two: a2a-python 0.3.21 to
 * 0.3.23 also strip `false`). Verifiers of either version accept a card when one signature verifies.
 * @throws CardSigningError listing every problem of each signer, or when the card has no 0.3 view
 * @throws VersionNotSupportedError when the card lists no 0.3 interface
 * @internal
 */
export async function signedV03HybridBody(signed: AgentCard, signers: readonly CardSigner[]): Promise<SignedV03HybridCard> {
  const hybrid = toV03HybridAgentCard(signed);
  if (signers.length === 0) return { hybrid, body: JSON.stringify(hybrid) };
  const problems: string[] = [];
  const resolved = resolveSigners(signers, problems);
  if (problems.length > 0) throw new CardSigningError(problems);
  let payloads: string[];
  try {
    payloads = v03CardPayloads(hybrid);
  } catch (error) {
    throw new CardSigningError([`the card has no A2A 0.3 view: ${(error as Error).message}`], { cause: error });
  }
  const signatures: AgentCardSignature[] = [...(signed.signatures ?? [])];
  for (const signer of resolved) {
    for (const payload of payloads) signatures.push(await signPayload(payload, signer, { [CARD_PAYLOAD_FORM_HEADER]: 'v03' }));
  }
  const out = { ...hybrid, signatures };
  const body = JSON.stringify(out);
  // what a 0.3 verifier reads is these bytes: prove they give the payloads signed
  if (v03CardPayloads(JSON.parse(body) as Record<string, unknown>).join('\n') !== payloads.join('\n')) {
    throw new CardSigningError(['the served hybrid card does not give the signed A2A 0.3 payload (a defect)']);
  }
  return { hybrid: out, body };
}

/** A public JWK of an asymmetric key, private or public; `undefined` for a symmetric one. */
async function publicJwkOf(key: CardSigningKey): Promise<jose.JWK | undefined> {
  if (types.isUint8Array(key)) return undefined;
  if (isJwk(key)) return publicJwkMembers(key);
  let object: KeyObject;
  if (types.isKeyObject(key)) object = key as KeyObject;
  else if (types.isCryptoKey(key)) object = KeyObject.from(key as Parameters<typeof KeyObject.from>[0]);
  else return undefined;
  if (object.type === 'secret') return undefined;
  const pub = object.type === 'private' ? createPublicKey(object) : object;
  return publicJwkMembers(pub.export({ format: 'jwk' }) as jose.JWK);
}

/**
 * The JWKS to serve for `signers` (the URL a signature's `jku` names): each asymmetric key's
 * public members (whitelisted per key type) with `kid`, `alg` and `use: "sig"`.
 *
 * HS256 signers are left out: a shared secret has no public part, and publishing it would let
 * anyone forge signatures. HS256 card signatures can only be checked by parties that already
 * hold the secret.
 * @throws CardSigningError when a signer's key or options cannot be used
 * @publicApi
 */
export async function publicJwks(signers: readonly CardSigner[]): Promise<jose.JSONWebKeySet> {
  const keys: jose.JWK[] = [];
  const problems: string[] = [];
  for (const [i, s] of signers.entries()) {
    const own: string[] = [];
    const r = resolveSigner(s.key, s, own);
    problems.push(...own.map((p) => `signer ${i}: ${p}`));
    if (!r || r.alg === 'HS256') continue;
    let jwk: jose.JWK | undefined;
    try {
      jwk = await publicJwkOf(r.key);
    } catch (error) {
      problems.push(`signer ${i} (kid ${r.kid}): no public key can be derived: ${(error as Error).message}`);
      continue;
    }
    if (!jwk) {
      problems.push(`signer ${i} (kid ${r.kid}): ${r.alg} needs an asymmetric key`);
      continue;
    }
    if (keys.some((k) => k.kid === r.kid)) {
      problems.push(`kid ${r.kid} is used by more than one signer`);
      continue;
    }
    keys.push({ ...jwk, kid: r.kid, alg: r.alg, use: 'sig' });
  }
  if (problems.length > 0) throw new CardSigningError(problems);
  return { keys };
}
