/**
 * The bytes an A2A 0.3 verifier checks an Agent Card signature against.
 *
 * The one 0.3 SDK that verifies card signatures is a2a-python (0.3.21 and later:
 * `a2a.utils.signing.create_signature_verifier`; `@a2a-js/sdk` 0.3 has no verifier). It reads the
 * card into its 0.3 pydantic model, which drops every member the model does not know (all the 1.0
 * ones of a hybrid card), and signs and verifies `canonicalize_agent_card` of that model:
 * `model_dump(exclude={'signatures'}, exclude_defaults=True, exclude_none=True, by_alias=True)`,
 * then `_clean_empty`, then `json.dumps(sort_keys=True, separators=(',', ':'))`. That is not
 * RFC 8785: keys sorted by code point, every character outside printable ASCII escaped as
 * `\uXXXX`, Python's number forms. `_clean_empty` removes empty strings, lists and objects; from
 * 0.3.21 to 0.3.23 it also removed `false` and `0` (fixed in 0.3.24, a2a-python #713), so a card
 * holding a `false` has two 0.3 payloads.
 *
 * Followed: a2a-python v0.3.26 `src/a2a/utils/helpers.py` (`canonicalize_agent_card`,
 * `_clean_empty`) and `src/a2a/types.py` (the models, their aliases and defaults).
 */
import { isPlainObject, setEntry } from '../json-value.js';

/** What a field holds: a value kept as given, a model, or a list or string-keyed map of one (`scheme`: the union `SecurityScheme`). */
type FieldType = 'value' | Model | { list: Model } | { map: Model | 'scheme' };

/** A pydantic model: its fields by alias, and the defaults `exclude_defaults` compares with (all others default to None). */
interface Model {
  readonly fields: Readonly<Record<string, FieldType>>;
  readonly defaults?: Readonly<Record<string, unknown>>;
}

const leaves = (...names: string[]): Record<string, FieldType> => Object.fromEntries(names.map((n) => [n, 'value' as const]));

const interfaceModel: Model = { fields: leaves('transport', 'url') };
const providerModel: Model = { fields: leaves('organization', 'url') };
const extensionModel: Model = { fields: leaves('description', 'params', 'required', 'uri') };
const capabilitiesModel: Model = { fields: { ...leaves('pushNotifications', 'stateTransitionHistory', 'streaming'), extensions: { list: extensionModel } } };
const skillModel: Model = { fields: leaves('description', 'examples', 'id', 'inputModes', 'name', 'outputModes', 'security', 'tags') };
const flowsModel: Model = {
  fields: {
    authorizationCode: { fields: leaves('authorizationUrl', 'refreshUrl', 'scopes', 'tokenUrl') },
    clientCredentials: { fields: leaves('refreshUrl', 'scopes', 'tokenUrl') },
    implicit: { fields: leaves('authorizationUrl', 'refreshUrl', 'scopes') },
    password: { fields: leaves('refreshUrl', 'scopes', 'tokenUrl') },
  },
};

/** The union `SecurityScheme`, told apart by `type` (a Literal with itself as default: never dumped). */
const schemeModels: Readonly<Record<string, Model>> = {
  apiKey: { fields: leaves('description', 'in', 'name', 'type') },
  http: { fields: leaves('bearerFormat', 'description', 'scheme', 'type') },
  oauth2: { fields: { ...leaves('description', 'oauth2MetadataUrl', 'type'), flows: flowsModel } },
  openIdConnect: { fields: leaves('description', 'openIdConnectUrl', 'type') },
  mutualTLS: { fields: leaves('description', 'type') },
};

const cardModel: Model = {
  fields: {
    ...leaves('defaultInputModes', 'defaultOutputModes', 'description', 'documentationUrl', 'iconUrl', 'name', 'preferredTransport'),
    ...leaves('protocolVersion', 'security', 'supportsAuthenticatedExtendedCard', 'url', 'version'),
    additionalInterfaces: { list: interfaceModel },
    capabilities: capabilitiesModel,
    provider: providerModel,
    securitySchemes: { map: 'scheme' },
    skills: { list: skillModel },
  },
  defaults: { preferredTransport: 'JSONRPC', protocolVersion: '0.3.0' },
};

/** A card that has no 0.3 view: the 0.3 model would not read it. */
export class V03CardViewError extends Error {
  constructor(readonly path: string, reason: string) {
    super(`${path}: ${reason}`);
    this.name = 'V03CardViewError';
  }
}

function dumpModel(model: Model, value: unknown, path: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw new V03CardViewError(path, 'must be an object');
  const out: Record<string, unknown> = {};
  for (const [name, type] of Object.entries(model.fields)) {
    const field = value[name];
    // exclude_none, exclude_defaults (a `type` Literal always equals its default)
    if (field === undefined || field === null || name === 'type' || (model.defaults && name in model.defaults && model.defaults[name] === field)) continue;
    setEntry(out, name, dumpField(type, field, `${path}.${name}`));
  }
  return out;
}

function dumpScheme(value: unknown, path: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw new V03CardViewError(path, 'must be an object');
  const model = typeof value.type === 'string' && Object.hasOwn(schemeModels, value.type) ? schemeModels[value.type] : undefined;
  if (model === undefined) throw new V03CardViewError(path, 'a 0.3 security scheme needs its type (apiKey, http, oauth2, openIdConnect, mutualTLS)');
  return dumpModel(model, value, path);
}

function dumpField(type: FieldType, value: unknown, path: string): unknown {
  if (type === 'value') return value;
  if ('fields' in type) return dumpModel(type, value, path);
  if ('list' in type) {
    if (!Array.isArray(value)) throw new V03CardViewError(path, 'must be a list');
    return value.map((item, i) => dumpModel(type.list, item, `${path}[${i}]`));
  }
  if (!isPlainObject(value)) throw new V03CardViewError(path, 'must be an object');
  const out: Record<string, unknown> = {};
  const map = type.map;
  for (const [key, item] of Object.entries(value)) setEntry(out, key, map === 'scheme' ? dumpScheme(item, `${path}.${key}`) : dumpModel(map, item, `${path}.${key}`));
  return out;
}

/**
 * The card as a2a-python 0.3's model dumps it for signing: only the 0.3 members, without
 * `signatures`, `null`s, the default `protocolVersion` ("0.3.0") and `preferredTransport`
 * ("JSONRPC"), and a scheme's `type`. Empty values are still there (see {@link v03CardPayloads}).
 * @throws V03CardViewError when a field the 0.3 model reads has the wrong shape
 */
export function v03CardView(card: Record<string, unknown>): Record<string, unknown> {
  return dumpModel(cardModel, card, 'card');
}

/** `_clean_empty`: `undefined` for a value it removes. `dropFalsy`: as 0.3.21–0.3.23, which also removed `false` and `0`. */
function cleanEmpty(value: unknown, dropFalsy: boolean): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => cleanEmpty(v, dropFalsy)).filter((v) => v !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const cleaned = cleanEmpty(v, dropFalsy);
      if (cleaned !== undefined) setEntry(out, key, cleaned);
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  if (value === '' || value === null || value === undefined) return undefined;
  return dropFalsy && (value === false || value === 0) ? undefined : value;
}

/** Python's `repr` of a float: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
function pythonFloat(n: number): string {
  if (!Number.isFinite(n)) throw new V03CardViewError('card', 'a number that JSON cannot hold');
  const [mantissa, exp] = n.toExponential().split('e');
  const e = Number(exp);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace(/^-/, '').replace('.', '');
  let text: string;
  if (e < -4 || e >= 16) {
    text = `${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  } else if (e < 0) {
    text = `0.${'0'.repeat(-e - 1)}${digits}`;
  } else {
    const whole = digits.slice(0, e + 1).padEnd(e + 1, '0');
    text = `${whole}.${digits.slice(e + 1) || '0'}`;
  }
  return negative ? `-${text}` : text;
}

/** A number as Python reads it from JSON text that `JSON.stringify` wrote, then writes it: int or float. */
function pythonNumber(n: number): string {
  // JSON.stringify writes integers below 1e21 without a fraction or exponent: Python reads an int
  return Number.isInteger(n) && Math.abs(n) < 1e21 ? String(Object.is(n, -0) ? 0 : n) : pythonFloat(n);
}

/** `json.dumps` with ensure_ascii: everything outside printable ASCII (DEL included) as `\uXXXX`. */
function pythonString(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Python's `sorted` of str keys: by code point (JavaScript's default sort is by UTF-16 unit). */
function byCodePoint(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/** `json.dumps(value, separators=(',', ':'), sort_keys=True)`. */
export function pythonJsonDumps(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return pythonNumber(value);
  if (typeof value === 'string') return pythonString(value);
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort(byCodePoint)
      .map((key) => `${pythonString(key)}:${pythonJsonDumps(value[key])}`)
      .join(',')}}`;
  }
  throw new V03CardViewError('card', `${typeof value} is no JSON value`);
}

/**
 * The payloads a2a-python 0.3 verifiers compute for `card` (as JSON, served or received): the
 * 0.3.24+ one first, then, when it differs, the 0.3.21–0.3.23 one (which drops `false` too).
 * @throws V03CardViewError when the 0.3 model would not read the card
 */
export function v03CardPayloads(card: Record<string, unknown>): string[] {
  const view = v03CardView(card);
  const payloads = [false, true].map((dropFalsy) => pythonJsonDumps(cleanEmpty(view, dropFalsy) ?? {}));
  return payloads[1] === payloads[0] ? [payloads[0]] : payloads;
}
