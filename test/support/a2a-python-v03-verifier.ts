/**
 * Test-only reference: a port of the Agent Card signature verifier of a2a-python 0.3, the one A2A
 * 0.3 SDK that verifies card signatures (`@a2a-js/sdk` 0.3 has none), so that `npm test` can check
 * the cards this library serves against what a 0.3 client computes. Not part of the package.
 *
 * Followed, at tag v0.3.26 of a2a-python: `src/a2a/utils/signing.py` (`create_signature_verifier`),
 * `src/a2a/utils/helpers.py` (`canonicalize_agent_card`, `_clean_empty`), `src/a2a/types.py` (the 0.3
 * models, their camelCase aliases and defaults) and PyJWT's `jwt.decode`. With `release: '0.3.21'`,
 * the `_clean_empty` of v0.3.21 to v0.3.23, which also dropped `false` and `0`.
 *
 * Why a port: the real one needs pydantic 2 and PyJWT, which a clean CI machine does not have
 * (Debian ships pydantic 1), and a2a-python's source, which the project may not vendor. It was
 * checked against the real verifiers (v0.3.26 and v0.3.21) on a developer machine: see the
 * CHANGELOG entry. It is written apart from the library's signer (`v03/card-payload.ts`), so that
 * each checks the other: pydantic's model walk as a field table in the models' own snake_case
 * names, `json.dumps` escaping character by character.
 *
 * Limits: numbers are read as JSON.stringify writes them (an integer-valued number is a Python
 * int); the union `SecurityScheme` is told apart by `type` (as every hybrid card writes it).
 */
import * as jose from 'jose';

/** pydantic's `to_camel` through a2a's `to_camel_custom` (a trailing `_` dropped first). */
function alias(snake: string): string {
  return snake.replace(/_+$/, '').replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

type Kind = 'any' | { model: string } | { list: string } | { dict: string };
/** [python name, kind, default (undefined: required; null: None)] */
type Field = readonly [string, Kind, unknown];

const any = 'any' as const;
const MODELS: Readonly<Record<string, readonly Field[]>> = {
  AgentCard: [
    ['additional_interfaces', { list: 'AgentInterface' }, null],
    ['capabilities', { model: 'AgentCapabilities' }, undefined],
    ['default_input_modes', any, undefined],
    ['default_output_modes', any, undefined],
    ['description', any, undefined],
    ['documentation_url', any, null],
    ['icon_url', any, null],
    ['name', any, undefined],
    ['preferred_transport', any, 'JSONRPC'],
    ['protocol_version', any, '0.3.0'],
    ['provider', { model: 'AgentProvider' }, null],
    ['security', any, null],
    ['security_schemes', { dict: 'SecurityScheme' }, null],
    ['signatures', any, null],
    ['skills', { list: 'AgentSkill' }, undefined],
    ['supports_authenticated_extended_card', any, null],
    ['url', any, undefined],
    ['version', any, undefined],
  ],
  AgentCapabilities: [
    ['extensions', { list: 'AgentExtension' }, null],
    ['push_notifications', any, null],
    ['state_transition_history', any, null],
    ['streaming', any, null],
  ],
  AgentExtension: [['description', any, null], ['params', any, null], ['required', any, null], ['uri', any, undefined]],
  AgentInterface: [['transport', any, undefined], ['url', any, undefined]],
  AgentProvider: [['organization', any, undefined], ['url', any, undefined]],
  AgentSkill: [
    ['description', any, undefined],
    ['examples', any, null],
    ['id', any, undefined],
    ['input_modes', any, null],
    ['name', any, undefined],
    ['output_modes', any, null],
    ['security', any, null],
    ['tags', any, undefined],
  ],
  APIKeySecurityScheme: [['description', any, null], ['in_', any, undefined], ['name', any, undefined], ['type', any, 'apiKey']],
  HTTPAuthSecurityScheme: [['bearer_format', any, null], ['description', any, null], ['scheme', any, undefined], ['type', any, 'http']],
  OAuth2SecurityScheme: [['description', any, null], ['flows', { model: 'OAuthFlows' }, undefined], ['oauth2_metadata_url', any, null], ['type', any, 'oauth2']],
  OpenIdConnectSecurityScheme: [['description', any, null], ['open_id_connect_url', any, undefined], ['type', any, 'openIdConnect']],
  MutualTLSSecurityScheme: [['description', any, null], ['type', any, 'mutualTLS']],
  OAuthFlows: [
    ['authorization_code', { model: 'AuthorizationCodeOAuthFlow' }, null],
    ['client_credentials', { model: 'ClientCredentialsOAuthFlow' }, null],
    ['implicit', { model: 'ImplicitOAuthFlow' }, null],
    ['password', { model: 'PasswordOAuthFlow' }, null],
  ],
  AuthorizationCodeOAuthFlow: [['authorization_url', any, undefined], ['refresh_url', any, null], ['scopes', any, undefined], ['token_url', any, undefined]],
  ClientCredentialsOAuthFlow: [['refresh_url', any, null], ['scopes', any, undefined], ['token_url', any, undefined]],
  ImplicitOAuthFlow: [['authorization_url', any, undefined], ['refresh_url', any, null], ['scopes', any, undefined]],
  PasswordOAuthFlow: [['refresh_url', any, null], ['scopes', any, undefined], ['token_url', any, undefined]],
};
const SECURITY_SCHEME = ['APIKeySecurityScheme', 'HTTPAuthSecurityScheme', 'OAuth2SecurityScheme', 'OpenIdConnectSecurityScheme', 'MutualTLSSecurityScheme'];

/** pydantic's ValidationError, as far as this port checks (missing required fields, wrong containers). */
export class ValidationError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `Model.model_validate(data).model_dump(exclude_defaults=True, exclude_none=True, by_alias=True)`; `exclude` at the top. */
function validateAndDump(modelName: string, data: unknown, exclude: readonly string[] = []): Record<string, unknown> {
  if (modelName === 'SecurityScheme') {
    if (!isObject(data)) throw new ValidationError('SecurityScheme: not an object');
    const member = SECURITY_SCHEME.find((m) => MODELS[m].some(([name, , dflt]) => name === 'type' && (data.type === undefined || data.type === dflt)) && requiredPresent(m, data));
    if (member === undefined) throw new ValidationError('SecurityScheme: no member of the union matches');
    return validateAndDump(member, data);
  }
  if (!isObject(data)) throw new ValidationError(`${modelName}: not an object`);
  if (!requiredPresent(modelName, data)) throw new ValidationError(`${modelName}: a required field is missing`);
  const dumped: Record<string, unknown> = {};
  for (const [name, kind, dflt] of MODELS[modelName]) {
    if (exclude.includes(name)) continue;
    const key = alias(name);
    // extra members are ignored (A2ABaseModel keeps pydantic's default, extra='ignore')
    const value = key in data ? data[key] : name in data ? data[name] : dflt;
    if (value === null || value === undefined) continue; // exclude_none
    if (dflt !== undefined && dflt !== null && value === dflt) continue; // exclude_defaults
    if (kind === 'any') dumped[key] = value;
    else if ('model' in kind) dumped[key] = validateAndDump(kind.model, value);
    else if ('list' in kind) {
      if (!Array.isArray(value)) throw new ValidationError(`${modelName}.${name}: not a list`);
      dumped[key] = value.map((item) => validateAndDump(kind.list, item));
    } else {
      if (!isObject(value)) throw new ValidationError(`${modelName}.${name}: not a dict`);
      dumped[key] = Object.fromEntries(Object.entries(value).map(([k, item]) => [k, validateAndDump(kind.dict, item)]));
    }
  }
  return dumped;
}

function requiredPresent(modelName: string, data: Record<string, unknown>): boolean {
  return MODELS[modelName].every(([name, , dflt]) => dflt !== undefined || (data[alias(name)] ?? data[name]) != null);
}

/** Python's truth value of a JSON value (`{}` and `[]` are false, unlike in JavaScript). */
function pyTruthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (isObject(v)) return Object.keys(v).length > 0;
  return v !== null && v !== undefined && v !== false && v !== 0 && v !== '';
}

/** `_clean_empty`: v0.3.24+ keeps `false` and `0`; v0.3.21–v0.3.23 filtered with `if v`, dropping them too. */
function cleanEmpty(d: unknown, release: V03Release): unknown {
  const keep = (v: unknown) => (release === '0.3.21' ? pyTruthy(v) : v !== null && v !== undefined);
  if (isObject(d)) {
    const cleaned = Object.fromEntries(Object.entries(d).map(([k, v]) => [k, cleanEmpty(v, release)]).filter(([, v]) => keep(v)));
    return Object.keys(cleaned).length > 0 ? cleaned : release === '0.3.21' ? {} : null;
  }
  if (Array.isArray(d)) {
    const cleaned = d.map((v) => cleanEmpty(v, release)).filter(keep);
    return cleaned.length > 0 ? cleaned : release === '0.3.21' ? [] : null;
  }
  if (d === '') return null;
  return d;
}

const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '"': '\\"', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `py_encode_basestring_ascii`, one UTF-16 unit at a time (Python writes astral characters as a surrogate pair). */
function encodeString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    const unit = s.charCodeAt(i);
    if (ESCAPES[c] !== undefined) out += ESCAPES[c];
    else if (unit >= 0x20 && unit <= 0x7e) out += c;
    else out += '\\u' + unit.toString(16).padStart(4, '0');
  }
  return out + '"';
}

/** `float.__repr__`: the shortest digits, positional for exponents -4..15, else `d.ddde±XX`. */
function floatRepr(x: number): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(x));
  if (!m) throw new ValidationError(`no JSON number: ${x}`);
  const [, sign, intPart, fracPart = '', expPart = '0'] = m;
  // digits d1d2d3… and the decimal exponent of d1
  const all = (intPart + fracPart).replace(/^0+/, '');
  const lead = (intPart + fracPart).length - all.length;
  const exp = Number(expPart) + intPart.length - 1 - lead;
  const digits = all.replace(/0+$/, '') || '0';
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    const whole = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits + '0'.repeat(exp + 1 - digits.length);
    const frac = digits.length > exp + 1 ? digits.slice(exp + 1) : '0';
    return `${sign}${whole}.${frac}`;
  }
  const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/** Python code-point order of two str keys. */
function pyLess(a: string, b: string): number {
  const pa = [...a].map((c) => c.codePointAt(0)!);
  const pb = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < pa.length && i < pb.length; i++) if (pa[i] !== pb[i]) return pa[i] < pb[i] ? -1 : 1;
  return pa.length === pb.length ? 0 : pa.length < pb.length ? -1 : 1;
}

/** `json.dumps(obj, separators=(',', ':'), sort_keys=True)` (ensure_ascii by default). */
export function jsonDumps(obj: unknown): string {
  if (obj === null || obj === undefined) return 'null';
  if (obj === true) return 'true';
  if (obj === false) return 'false';
  if (typeof obj === 'number') return Number.isInteger(obj) && Math.abs(obj) < 1e21 ? BigInt(obj).toString() : floatRepr(obj);
  if (typeof obj === 'string') return encodeString(obj);
  if (Array.isArray(obj)) return '[' + obj.map(jsonDumps).join(',') + ']';
  if (isObject(obj)) {
    const keys = Object.keys(obj).sort(pyLess);
    return '{' + keys.map((k) => encodeString(k) + ':' + jsonDumps(obj[k])).join(',') + '}';
  }
  throw new ValidationError(`not JSON: ${typeof obj}`);
}

export type V03Release = '0.3.26' | '0.3.21';

/** `canonicalize_agent_card(AgentCard.model_validate(card))`. @throws ValidationError as `model_validate` would */
export function canonicalizeAgentCard(card: unknown, release: V03Release = '0.3.26'): string {
  const dumped = validateAndDump('AgentCard', card, ['signatures']);
  return jsonDumps(cleanEmpty(dumped, release));
}

/** `key_provider(kid, jku)`: the key for one signature. Its errors are not caught (a2a-python catches PyJWTError only). */
export type KeyProvider = (kid: string | undefined, jku: string | undefined) => Promise<jose.CryptoKey | Uint8Array> | jose.CryptoKey | Uint8Array;

export class NoSignatureError extends Error {}
export class InvalidSignaturesError extends Error {}

/**
 * `create_signature_verifier(key_provider, algorithms)`: resolves when one signature verifies, in
 * order; rejects with NoSignatureError / InvalidSignaturesError / ValidationError.
 */
export function createSignatureVerifier(keyProvider: KeyProvider, algorithms: string[], release: V03Release = '0.3.26'): (card: unknown) => Promise<void> {
  return async (card) => {
    const canonical = canonicalizeAgentCard(card, release); // model_validate happens before the verifier is called
    const signatures = (card as { signatures?: { protected: string; signature: string }[] }).signatures;
    if (!signatures || signatures.length === 0) throw new NoSignatureError('AgentCard has no signatures to verify.');
    for (const entry of signatures) {
      const header = JSON.parse(Buffer.from(entry.protected, 'base64url').toString('utf8')) as { kid?: string; jku?: string };
      const key = await keyProvider(header.kid, header.jku);
      const payload = jose.base64url.encode(new TextEncoder().encode(canonical));
      try {
        // jwt.decode: the alg must be one of `algorithms`, the signature must verify, the payload must be a JSON object
        const { payload: bytes } = await jose.compactVerify(`${entry.protected}.${payload}.${entry.signature}`, key, { algorithms });
        if (!isObject(JSON.parse(new TextDecoder().decode(bytes)))) continue;
        return;
      } catch (error) {
        if (error instanceof jose.errors.JOSEError) continue;
        throw error;
      }
    }
    throw new InvalidSignaturesError('No valid signature found');
  };
}
