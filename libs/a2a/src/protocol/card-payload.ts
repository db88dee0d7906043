/**
 * The bytes an Agent Card signature covers (spec §8.4.1), in the forms that signers actually use.
 *
 * The spec form: the card as JSON without `signatures`, unknown fields dropped, default values
 * removed except REQUIRED fields and explicitly set `optional` (presence) fields, then RFC 8785
 * (JCS). The rules live in the schema-driven codec: decoding with REQUIRED fields "as received"
 * keeps what the card says (`"description": ""`, `"streaming": false`) and drops what it does not
 * know; encoding without filling in absent REQUIRED lists leaves out nothing else the card said.
 *
 * The SDK form: what a2a-js `canonicalizeAgentCard` and a2a-python `_canonicalize_agent_card`
 * sign: the same normalised card with every empty string, list and object stripped recursively,
 * REQUIRED ones included (a2a-js #627, A2A #2122; spec digest §6.6 and §11 row 20).
 */
import canonicalize from 'canonicalize';
import { decode, encode } from './codec.js';
import { isPlainObject, setEntry } from './json-value.js';
import { AgentCardSchema } from './schemas.js';
import type { AgentCard } from './types.js';

/**
 * Which derivation of the payload a signature was checked against; `v03`: the card's A2A 0.3 view
 * as a2a-python 0.3 canonicalises it (`v03/card-payload.ts`), for cards read as 0.3.
 */
export type CardPayloadForm = 'spec' | 'sdk' | 'raw' | 'v03';

/**
 * The card as ProtoJSON with the §8.4.1 presence rules, `signatures` left out.
 * `card` is the card as JSON, as served or received (a typed {@link AgentCard} is read as its JSON).
 * @throws InvalidParamsError when `card` is not an Agent Card the codec can read (wrong types, two members of a oneof)
 */
export function normalizedCardJson(card: unknown): Record<string, unknown> {
  // as JSON: `undefined` members vanish, exactly as in the bytes a peer would see
  const json: unknown = JSON.parse(JSON.stringify(card) ?? 'null');
  // signatures are not part of the payload; a malformed one is the verifier's business, not the card's
  if (isPlainObject(json)) delete json.signatures;
  const asReceived = decode(AgentCardSchema, json, '', { required: 'as-received' });
  return encode(AgentCardSchema, asReceived, { fillRequired: false });
}

function jcs(value: unknown): string {
  const text = canonicalize(value);
  // canonicalize returns undefined only for undefined/functions, which normalised JSON never is
  if (text === undefined) throw new TypeError('nothing to canonicalise');
  return text;
}

/**
 * The §8.4.1 signing payload of a card: JCS of the card without `signatures`, unknown fields
 * dropped, default values removed except REQUIRED and explicitly set `optional` fields.
 * The bytes signed are the UTF-8 encoding of the returned string.
 *
 * `card` is read as JSON (as served or received). A signer must pass the JSON it serves; that is
 * what `signAgentCard` does.
 * @throws InvalidParamsError when `card` is not an Agent Card the codec can read
 * @throws Error when a string holds a lone surrogate (RFC 8785 refuses it)
 */
export function canonicalCardPayload(card: AgentCard | Record<string, unknown>): string {
  return specPayloadOf(normalizedCardJson(card));
}

/** The spec-form payload of a card already passed through {@link normalizedCardJson}. */
export function specPayloadOf(normalized: Record<string, unknown>): string {
  return jcs(normalized);
}

/** The SDK-form payload of a card already passed through {@link normalizedCardJson}. */
export function sdkPayloadOf(normalized: Record<string, unknown>): string {
  return jcs(stripEmpty(normalized) ?? {});
}

/**
 * Removes empty strings, `null`, empty lists and empty objects, recursively, as the official SDKs
 * do before canonicalising (a2a-js `cleanEmpty`). `false` and `0` stay.
 */
export function stripEmpty(value: unknown): unknown {
  if (value === '' || value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(stripEmpty).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const cleaned = stripEmpty(v);
      if (cleaned !== undefined) setEntry(out, key, cleaned);
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return value;
}

/**
 * Where the SDK form and the spec form of a normalised card differ: the path of every empty value
 * (`""`, `[]`, `{}`, or an object or list holding only such values) that {@link stripEmpty}
 * removes, outermost only, in card order (`skills[0].tags[1]`, `securityRequirements[2]`). A
 * signature over the SDK form says nothing about these values, nor about their absence.
 */
export function strippedEmptyPaths(normalized: Record<string, unknown>): string[] {
  const paths: string[] = [];
  const visit = (value: unknown, path: string): void => {
    if (stripEmpty(value) === undefined) {
      paths.push(path);
      return;
    }
    if (Array.isArray(value)) value.forEach((item, i) => visit(item, `${path}[${i}]`));
    else if (isPlainObject(value)) for (const [key, v] of Object.entries(value)) visit(v, path === '' ? key : `${path}.${key}`);
  };
  for (const [key, value] of Object.entries(normalized)) visit(value, key);
  return paths;
}

/**
 * The payload the official SDKs sign and verify (a2a-js 1.3 `canonicalizeAgentCard`): the
 * normalised card with every empty value stripped, REQUIRED ones included.
 * @throws InvalidParamsError when `card` is not an Agent Card the codec can read
 */
export function sdkCardPayload(card: AgentCard | Record<string, unknown>): string {
  return sdkPayloadOf(normalizedCardJson(card));
}
