/**
 * ProtoJSON with field presence, driven by small message schemas (see `schemas.ts`).
 *
 * decode: camelCase or snake_case names; `null` means "not set"; enums by name or number;
 * int32 from a number or a numeric string; bytes in either base64 alphabet; unknown fields
 * ignored; REQUIRED fields, oneofs and bounds checked, every violation collected with its path.
 *
 * Limits (optional, for what a stranger sends): list lengths are checked before a list is walked,
 * part contents and metadata measured with a walk that stops at the bound, and decoding stops after
 * {@link MAX_VIOLATIONS} violations, so the work a request costs is bounded by the limits and not
 * by its size. A violation names the field and the bound, never the value.
 *
 * encode: camelCase only; enums as names; an unset field is absent; a field with presence is
 * kept whenever it is set; REQUIRED fields always appear; other fields holding their default
 * are left out; keys that are not in the schema never reach the wire.
 */
import { InvalidParamsError, type FieldViolation } from './errors.js';
import { isPlainObject, jsonSizeOf, setEntry } from './json-value.js';

/**
 * `timestamp`: RFC 3339 with an offset (ProtoJSON). `datetime`: ISO 8601 as A2A 0.3 allowed it, the
 * offset optional (one without is read as UTC, as the Python SDK wrote them); both normalised to
 * UTC `Z` with milliseconds.
 */
export type ScalarType = 'string' | 'bool' | 'int32' | 'bytes' | 'timestamp' | 'datetime' | 'struct' | 'value';
export type FieldType =
  | ScalarType
  /** `namesOnly`: the names, never the numbers (JSON Schema enums, not ProtoJSON ones). */
  | { readonly enum: readonly string[]; readonly namesOnly?: boolean }
  | { readonly message: () => Schema }
  | { readonly map: FieldType }
  /** A JSON array of one element type, where a repeated field cannot say it (a map's values). */
  | { readonly list: FieldType };

export interface FieldSpec {
  readonly type: FieldType;
  readonly repeated?: boolean;
  /** `field_behavior = REQUIRED`: present and not the default (a repeated one: not empty). */
  readonly required?: boolean;
  /** REQUIRED repeated field that may legitimately be empty (`skills`, `tasks`): always emitted, never refused. */
  readonly alwaysEmit?: boolean;
  /** proto3 `optional`: a set value is kept even when it equals the default. */
  readonly presence?: boolean;
  readonly min?: number;
  readonly max?: number;
  /** Other names the field is read under (a proto field name beside its `json_name`). */
  readonly aliases?: readonly string[];
  /**
   * Which of the {@link DecodeLimits} bounds the field: `parts` (its item count), `partContent`
   * (the bytes of a part's content), `metadata` (its JSON bytes), `contextId` (a string of at most
   * `maxContextIdLength` characters, when that is given). Every other repeated field and map is
   * bounded by `maxListItems`.
   */
  readonly bound?: 'parts' | 'partContent' | 'metadata' | 'contextId';
}

export interface OneofSpec<Name extends string = string> {
  readonly members: readonly Name[];
  readonly required?: boolean;
}

/** A member whose constant value says what a JSON object is (A2A 0.3: `"kind": "task"`). */
export interface Discriminator {
  readonly key: string;
  readonly value: string;
}

/** Every field name of `T` (of each member, when `T` is a union of shapes). */
export type FieldName<T> = T extends unknown ? Extract<keyof T, string> : never;

/**
 * A schema's fields, one per field of its TypeScript type: a field the type has and the schema
 * lacks, or the reverse, does not compile, so the wire model is declared once and checked twice.
 */
export type SchemaFields<T> = { readonly [K in FieldName<T>]-?: FieldSpec };

/** A message schema; `T` only ties a schema to its TypeScript type. */
export interface Schema<T = unknown> {
  readonly name: string;
  readonly fields: Readonly<Record<string, FieldSpec>>;
  readonly oneofs?: Readonly<Record<string, OneofSpec>>;
  /** Checked on input (absent, or exactly this value; in a union it must be there) and written first on output. */
  readonly discriminator?: Discriminator;
  /** A union of discriminated schemas sharing one key: the input's value of that key picks the schema. */
  readonly variants?: () => readonly Schema[];
  /** Field name by alias. */
  readonly aliases?: Readonly<Record<string, string>>;
  /** @internal phantom */
  readonly __type?: T;
}

export function schema<T>(
  name: string,
  fields: SchemaFields<T>,
  oneofs?: Record<string, OneofSpec<FieldName<T>>>,
  options: { discriminator?: Discriminator } = {},
): Schema<T> {
  // members of a oneof have explicit presence in proto3: `{"text": ""}` is a text part
  const members = new Set<string>(Object.values(oneofs ?? {}).flatMap((o) => o.members));
  const withPresence = Object.fromEntries(
    Object.entries<FieldSpec>(fields).map(([key, spec]) => [key, members.has(key) ? { ...spec, presence: true } : spec]),
  );
  const aliases = Object.fromEntries(Object.entries<FieldSpec>(fields).flatMap(([key, spec]) => (spec.aliases ?? []).map((alias) => [alias, key])));
  return {
    name,
    fields: withPresence,
    oneofs,
    ...(options.discriminator === undefined ? {} : { discriminator: options.discriminator }),
    ...(Object.keys(aliases).length === 0 ? {} : { aliases }),
  };
}

/**
 * A union of schemas told apart by the value of one member (`kind`, `type`), each variant's
 * {@link Discriminator}. Decoding names the member when its value is none of theirs.
 */
export function union<T>(name: string, variants: () => readonly Schema[]): Schema<T> {
  return { name, fields: {}, variants };
}

function discriminatorOf(variant: Schema, union: Schema): Discriminator {
  if (variant.discriminator === undefined) throw new TypeError(`${union.name}: variant ${variant.name} has no discriminator`);
  return variant.discriminator;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const BASE64 = /^(?:[A-Za-z0-9+/\-_]{4})*(?:[A-Za-z0-9+/\-_]{2}(?:==)?|[A-Za-z0-9+/\-_]{3}=?)?$/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const ISO_DATETIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})?$/;

/** snake_case → lowerCamelCase (`context_id` → `contextId`). */
function camel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/**
 * Bounds on what one decoded value may hold (a request from a caller). Every number is inclusive.
 * @publicApi
 */
export interface DecodeLimits {
  /** Parts of one message or artifact. */
  readonly maxPartsPerMessage: number;
  /** Bytes of one part's content: its text (UTF-8), raw bytes (base64 as sent), URL, or data (as JSON). */
  readonly maxPartBytes: number;
  /** Bytes of one `metadata` object, as JSON. */
  readonly maxMetadataBytes: number;
  /** Items of any other list (`extensions`, `referenceTaskIds`, `acceptedOutputModes` …) and entries of a map. */
  readonly maxListItems: number;
  /** Characters of a message's `contextId`; unchecked when absent (the task engine checks it too). */
  readonly maxContextIdLength?: number;
}

/** The rule a message's `contextId` is held to, as a violation says it (the value is never quoted). */
export function contextIdRule(max: number): string {
  return `must be a string of at most ${max} characters (limits.maxContextIdLength)`;
}

/** Defaults a server can defend: far above what agents send, far below what holds the event loop. */
export const DEFAULT_DECODE_LIMITS: DecodeLimits = {
  maxPartsPerMessage: 1_000,
  maxPartBytes: 1024 * 1024,
  maxMetadataBytes: 64 * 1024,
  maxListItems: 100,
};

/** Decoding stops after this many violations: the answer lists them, and a request cannot make it longer. */
export const MAX_VIOLATIONS = 100;

/** The bounds that count something (parts, bytes, items); `maxContextIdLength` is a rule of its own ({@link contextIdRule}). */
type CountedLimit = Exclude<keyof DecodeLimits, 'maxContextIdLength'>;

/** The option that sets each bound, for messages. */
const LIMIT_OPTION: Readonly<Record<CountedLimit, string>> = {
  maxPartsPerMessage: 'limits.maxPartsPerMessage',
  maxPartBytes: 'limits.maxPartBytes',
  maxMetadataBytes: 'limits.maxMetadataBytes',
  maxListItems: 'limits.maxListItems',
};

const LIMIT_TEXT: Readonly<Record<CountedLimit, string>> = { maxPartsPerMessage: 'hold', maxPartBytes: 'take', maxMetadataBytes: 'take', maxListItems: 'have' };
const LIMIT_UNIT: Readonly<Record<CountedLimit, string>> = { maxPartsPerMessage: 'parts', maxPartBytes: 'bytes', maxMetadataBytes: 'bytes', maxListItems: 'items' };

/** Thrown inside the decoder once it has enough violations to answer with. */
class TooManyViolations extends Error {}

/** Map keys come from the caller: a path quotes at most this many characters of one. */
const MAX_KEY_IN_PATH = 64;

function keyInPath(key: string): string {
  return key.length > MAX_KEY_IN_PATH ? `${key.slice(0, MAX_KEY_IN_PATH)}…` : key;
}

/** UTF-8 bytes of `text` above `max`? Exact only where it matters: a length bounds the bytes on both sides. */
function utf8Exceeds(text: string, max: number): boolean {
  if (text.length > max) return true; // every UTF-16 unit is at least one byte
  if (text.length * 3 <= max) return false; // and at most three
  return Buffer.byteLength(text, 'utf8') > max;
}

/** How `decode` treats REQUIRED fields. */
export interface DecodeOptions {
  /**
   * `'check'` (default): a REQUIRED field must be set (a default value counts as unset), and an
   * absent always-emitted one is filled in. `'as-received'`: REQUIRED fields are kept exactly as
   * given, empty ones included, and never checked or filled in (Agent Card signing, §8.4.1).
   */
  readonly required?: 'check' | 'as-received';
  /** Bounds on lists, parts and metadata (see {@link DecodeLimits}); none when absent. */
  readonly limits?: DecodeLimits;
}

/** How `encode` treats REQUIRED fields. */
export interface EncodeOptions {
  /** Emit an absent REQUIRED repeated field as `[]` (default `true`; `false` for Agent Card signing). */
  readonly fillRequired?: boolean;
}

class Decoder {
  readonly violations: FieldViolation[] = [];

  constructor(
    private readonly requiredAsReceived = false,
    private readonly limits?: DecodeLimits,
  ) {}

  /** Is a REQUIRED field kept as received, default value or not? */
  private kept(spec: FieldSpec): boolean {
    return this.requiredAsReceived && spec.required === true;
  }

  fail(field: string, description: string): undefined {
    this.violations.push({ field, description });
    if (this.violations.length >= MAX_VIOLATIONS) throw new TooManyViolations();
    return undefined;
  }

  /** Refuses `path` for passing the bound `name`; the value is never quoted. */
  private overLimit(path: string, name: CountedLimit): undefined {
    return this.fail(path, `must ${LIMIT_TEXT[name]} at most ${this.limits![name]} ${LIMIT_UNIT[name]} (${LIMIT_OPTION[name]})`);
  }

  /** Checks a list's length before it is walked. */
  private listTooLong(spec: FieldSpec, list: readonly unknown[], path: string): boolean {
    if (this.limits === undefined) return false;
    const name = spec.bound === 'parts' ? 'maxPartsPerMessage' : 'maxListItems';
    if (list.length <= this.limits[name]) return false;
    this.overLimit(path, name);
    return true;
  }

  /** A part's content or a metadata object within its byte bound (checked before its value is used). */
  private withinBytes(spec: FieldSpec, raw: unknown, path: string): boolean {
    if (this.limits === undefined || (spec.bound !== 'partContent' && spec.bound !== 'metadata')) return true;
    const name = spec.bound === 'partContent' ? 'maxPartBytes' : 'maxMetadataBytes';
    const max = this.limits[name];
    const over = typeof raw === 'string' ? utf8Exceeds(raw, max) : jsonSizeOf(raw, max) > max;
    if (over) this.overLimit(path, name);
    return !over;
  }

  /** A conversation id: one rule for its type and its length, so either violation names the bound. */
  private contextIdFits(spec: FieldSpec, raw: unknown, path: string): boolean {
    const max = this.limits?.maxContextIdLength;
    if (spec.bound !== 'contextId' || max === undefined || (typeof raw === 'string' && raw.length <= max)) return true;
    this.fail(path, contextIdRule(max));
    return false;
  }

  message(schema: Schema, input: unknown, path: string): Record<string, unknown> | undefined {
    if (!isPlainObject(input)) return this.fail(path || '(body)', 'must be a JSON object');
    if (schema.variants !== undefined) return this.variant(schema, input, path);
    const out: Record<string, unknown> = {};
    if (schema.discriminator !== undefined) {
      // where only one schema can be (not in a union), the discriminator may be left out; a wrong one is refused
      const { key, value } = schema.discriminator;
      if (input[key] !== undefined && input[key] !== value) this.fail(join(path, key), `must be ${JSON.stringify(value)}`);
      else out[key] = value;
    }
    const seen = new Set<string>();
    /** Fields whose value was refused: already reported, so not "required" again. */
    const refused = new Set<string>();
    for (const [rawKey, rawValue] of Object.entries(input)) {
      const key = fieldName(schema, rawKey);
      const spec = schema.fields[key];
      if (!spec) continue; // unknown fields are ignored (spec §5.7)
      const fieldPath = join(path, key);
      if (seen.has(key)) {
        this.fail(fieldPath, 'given twice (camelCase and snake_case)');
        continue;
      }
      seen.add(key);
      const before = this.violations.length;
      const value = this.field(spec, rawValue, fieldPath);
      if (this.violations.length > before) refused.add(key);
      if (value !== undefined) out[key] = value;
    }
    this.checkRequired(schema, out, path, refused);
    this.checkOneofs(schema, out, path, refused);
    return out;
  }

  /** A union: the discriminator's value picks the variant (its value is never echoed: it may be anything). */
  private variant(schema: Schema, input: Record<string, unknown>, path: string): Record<string, unknown> | undefined {
    const variants = schema.variants!();
    const key = discriminatorOf(variants[0], schema).key;
    const match = variants.find((v) => discriminatorOf(v, schema).value === input[key]);
    if (match === undefined) return this.fail(join(path, key), `must be one of ${variants.map((v) => JSON.stringify(discriminatorOf(v, schema).value)).join(', ')}`);
    return this.message(match, input, path);
  }

  private field(spec: FieldSpec, raw: unknown, path: string): unknown {
    if (raw === null && (spec.repeated || spec.type !== 'value')) return undefined;
    if (spec.repeated) {
      if (!Array.isArray(raw)) return this.fail(path, 'must be an array');
      if (this.listTooLong(spec, raw, path)) return undefined;
      const items: unknown[] = [];
      raw.forEach((item, i) => {
        const value = this.single(spec, item, `${path}[${i}]`);
        if (value !== undefined) items.push(value);
      });
      return items.length === 0 && !spec.presence && !this.kept(spec) ? undefined : items;
    }
    if (!this.withinBytes(spec, raw, path)) return undefined;
    if (!this.contextIdFits(spec, raw, path)) return undefined;
    const value = this.single(spec, raw, path);
    if (value === undefined || spec.presence || this.kept(spec)) return value;
    // an unset REQUIRED field is reported by checkRequired; a default value counts as unset
    return isDefault(spec.type, value) ? undefined : value;
  }

  private single(spec: FieldSpec, raw: unknown, path: string): unknown {
    const type = spec.type;
    if (typeof type === 'object') {
      if ('enum' in type) return this.enumValue(type.enum, raw, path, type.namesOnly === true);
      if ('message' in type) return this.message(type.message(), raw, path);
      if ('list' in type) {
        if (!Array.isArray(raw)) return this.fail(path, 'must be an array');
        if (this.listTooLong(spec, raw, path)) return undefined;
        return raw.map((item, i) => this.single({ type: type.list }, item, `${path}[${i}]`)).filter((item) => item !== undefined);
      }
      if (!isPlainObject(raw)) return this.fail(path, 'must be a JSON object');
      if (this.limits !== undefined) {
        let entries = 0;
        for (const _ in raw) if (++entries > this.limits.maxListItems) return this.overLimit(path, 'maxListItems');
      }
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(raw)) {
        const value = this.single({ type: type.map }, v, `${path}.${keyInPath(k)}`);
        if (value !== undefined) setEntry(out, k, value);
      }
      return out;
    }
    switch (type) {
      case 'string':
        return typeof raw === 'string' ? raw : this.fail(path, 'must be a string');
      case 'bool':
        return typeof raw === 'boolean' ? raw : this.fail(path, 'must be a boolean');
      case 'int32':
        return this.int32(spec, raw, path);
      case 'bytes':
        if (typeof raw !== 'string' || !BASE64.test(raw)) return this.fail(path, 'must be a base64 string');
        return Buffer.from(raw, 'base64').toString('base64');
      case 'timestamp':
        return this.timestamp(raw, path, RFC3339);
      case 'datetime':
        return this.timestamp(raw, path, ISO_DATETIME);
      case 'struct':
        return isPlainObject(raw) ? raw : this.fail(path, 'must be a JSON object');
      case 'value':
        return raw;
    }
  }

  private enumValue(names: readonly string[], raw: unknown, path: string, namesOnly: boolean): string | undefined {
    if (typeof raw === 'string' && names.includes(raw)) return raw;
    if (!namesOnly && typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw < names.length) return names[raw];
    return this.fail(path, `must be one of ${names.join(', ')}`);
  }

  private int32(spec: FieldSpec, raw: unknown, path: string): number | undefined {
    const value = typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) {
      return this.fail(path, 'must be an integer');
    }
    if (spec.min !== undefined && value < spec.min) return this.fail(path, `must be at least ${spec.min}`);
    if (spec.max !== undefined && value > spec.max) return this.fail(path, `must be at most ${spec.max}`);
    return value;
  }

  private timestamp(raw: unknown, path: string, pattern: RegExp): string | undefined {
    const match = typeof raw === 'string' ? pattern.exec(raw) : null;
    // no offset: UTC (Date.parse would read the local time)
    const time = match ? Date.parse(match[8] === undefined ? `${raw as string}Z` : (raw as string)) : NaN;
    if (!match || Number.isNaN(time) || !isCalendarTime(match)) {
      return this.fail(path, pattern === RFC3339 ? 'must be an RFC 3339 timestamp, e.g. 2026-01-31T10:00:00.000Z' : 'must be an ISO 8601 date-time, e.g. 2026-01-31T10:00:00.000Z');
    }
    return new Date(time).toISOString();
  }

  private checkRequired(schema: Schema, out: Record<string, unknown>, path: string, refused: Set<string>): void {
    if (this.requiredAsReceived) return;
    for (const [key, spec] of Object.entries(schema.fields)) {
      if (!spec.required || out[key] !== undefined || refused.has(key)) continue;
      if (spec.alwaysEmit) {
        // a REQUIRED map (`scopes`) is filled with an empty map, not a list
        out[key] = spec.repeated ? [] : {};
        continue;
      }
      // a present-but-default value was dropped by field(): report it the same way
      // a REQUIRED list with presence may be empty: it only has to be there
      this.fail(join(path, key), spec.repeated && !spec.presence ? 'is required and must not be empty' : 'is required');
    }
  }

  private checkOneofs(schema: Schema, out: Record<string, unknown>, path: string, refused: Set<string>): void {
    for (const [name, oneof] of Object.entries(schema.oneofs ?? {})) {
      const set = oneof.members.filter((m) => out[m] !== undefined);
      if (set.length > 1) this.fail(join(path, set[1]), `only one of ${oneof.members.join(', ')} may be set`);
      const reported = oneof.members.some((m) => refused.has(m));
      if (set.length === 0 && oneof.required && !reported) this.fail(path || name, `one of ${oneof.members.join(', ')} is required`);
    }
  }
}

/** The field a key of the input names: itself, an alias, or its camelCase form (or that form's alias). */
function fieldName(schema: Schema, rawKey: string): string {
  if (rawKey in schema.fields) return rawKey;
  const aliased = schema.aliases?.[rawKey];
  if (aliased !== undefined) return aliased;
  const key = camel(rawKey);
  return schema.aliases?.[key] ?? key;
}

/**
 * Date.parse rolls impossible dates over (`2026-02-30` → March 2, `T24:00` → next day);
 * RFC 3339 (§5.6) refuses them, so the calendar fields are checked here.
 */
function isCalendarTime(match: RegExpExecArray): boolean {
  const [year, month, day, hour] = [match[1], match[2], match[3], match[4]].map(Number);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days && hour <= 23;
}

function isDefault(type: FieldType, value: unknown): boolean {
  if (typeof type === 'object') {
    if ('enum' in type) return value === type.enum[0];
    if ('map' in type) return isPlainObject(value) && Object.keys(value).length === 0;
    return false; // a set message is emitted even when empty
  }
  switch (type) {
    case 'string':
    case 'bytes':
      return value === '';
    case 'bool':
      return value === false;
    case 'int32':
      return value === 0;
    default:
      return false;
  }
}

/**
 * Parses `input` as the ProtoJSON of `schema`.
 * @throws InvalidParamsError listing every violation, each naming its field path under `path`.
 */
export function decode<T>(schema: Schema<T>, input: unknown, path = '', options: DecodeOptions = {}): T {
  const decoder = new Decoder(options.required === 'as-received', options.limits);
  let out: Record<string, unknown> | undefined;
  try {
    out = decoder.message(schema, input, path);
  } catch (error) {
    if (!(error instanceof TooManyViolations)) throw error;
    throw new InvalidParamsError([...decoder.violations, { field: path || '(body)', description: `more violations not listed (decoding stops after ${MAX_VIOLATIONS})` }]);
  }
  if (decoder.violations.length > 0 || out === undefined) throw new InvalidParamsError(decoder.violations);
  return out as T;
}

/** Serialises `value` as the ProtoJSON of `schema` (see the file comment for the presence rules). */
export function encode<T>(schema: Schema<T>, value: T, options: EncodeOptions = {}): Record<string, unknown> {
  return encodeMessage(schema, value as Record<string, unknown>, options.fillRequired ?? true);
}

function encodeMessage(schema: Schema, value: Record<string, unknown>, fill: boolean): Record<string, unknown> {
  if (schema.variants !== undefined) {
    const variant = schema.variants().find((v) => value[discriminatorOf(v, schema).key] === discriminatorOf(v, schema).value);
    if (variant === undefined) throw new TypeError(`${schema.name}: the value is none of its variants`);
    return encodeMessage(variant, value, fill);
  }
  const out: Record<string, unknown> = {};
  if (schema.discriminator !== undefined) out[schema.discriminator.key] = schema.discriminator.value;
  for (const [key, spec] of Object.entries(schema.fields)) {
    const v = value[key];
    if (v === undefined) {
      if (fill && spec.required && spec.repeated) out[key] = [];
      continue;
    }
    if (spec.repeated) {
      const items = (v as unknown[]).map((item) => encodeSingle(spec.type, item, fill));
      if (items.length > 0 || spec.required || spec.presence) out[key] = items;
      continue;
    }
    if (!spec.required && !spec.presence && isDefault(spec.type, v)) continue;
    out[key] = encodeSingle(spec.type, v, fill);
  }
  return out;
}

function encodeSingle(type: FieldType, value: unknown, fill: boolean): unknown {
  if (typeof type === 'object') {
    if ('enum' in type) return value;
    if ('message' in type) return encodeMessage(type.message(), value as Record<string, unknown>, fill);
    if ('list' in type) return (value as unknown[]).map((item) => encodeSingle(type.list, item, fill));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) setEntry(out, k, encodeSingle(type.map, v, fill));
    return out;
  }
  return value;
}
