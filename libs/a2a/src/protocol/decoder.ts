/**
 * ProtoJSON in: decode: camelCase or snake_case names; `null` means "not set"; enums by name or
 * number; int32 from a number or a numeric string; bytes in either base64 alphabet; unknown fields
 * ignored; REQUIRED fields, oneofs and bounds checked, every violation collected with its path.
 *
 * With limits (for what a stranger sends, see `decode-limits.ts`) and decoding stopping after
 * {@link MAX_VIOLATIONS} violations, the work a request costs is bounded by the limits and not by
 * its size.
 */
import { discriminatorOf, fieldEntries, isDefault, oneofEntries, type FieldSpec, type Schema } from './codec-schema.js';
import { DecodeBounds, type DecodeLimits } from './decode-limits.js';
import { InvalidParamsError, type FieldViolation } from './errors.js';
import { isPlainObject, setEntry } from './json-value.js';

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

/** Decoding stops after this many violations: the answer lists them, and a request cannot make it longer. */
export const MAX_VIOLATIONS = 100;

/** Thrown inside the decoder once it has enough violations to answer with. */
class TooManyViolations extends Error {}

/** Map keys come from the caller: a path quotes at most this many characters of one. */
const MAX_KEY_IN_PATH = 64;

function keyInPath(key: string): string {
  return key.length > MAX_KEY_IN_PATH ? `${key.slice(0, MAX_KEY_IN_PATH)}…` : key;
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

/** One decoding: walks the input along its schema and collects the violations. */
class Decoder {
  readonly violations: FieldViolation[] = [];
  private readonly bounds: DecodeBounds;

  constructor(
    private readonly requiredAsReceived = false,
    limits?: DecodeLimits,
  ) {
    this.bounds = new DecodeBounds(limits, (field, description) => this.fail(field, description));
  }

  /** Is a REQUIRED field kept as received, default value or not? */
  private kept(spec: FieldSpec): boolean {
    return this.requiredAsReceived && spec.required === true;
  }

  fail(field: string, description: string): undefined {
    this.violations.push({ field, description });
    if (this.violations.length >= MAX_VIOLATIONS) throw new TooManyViolations();
    return undefined;
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
    const rawKeys = Object.keys(input);
    /**
     * The fields named so far; made at the first key that is not its field's own name (an alias, a
     * snake_case name): the keys of an object differ, so before that no field can be named twice.
     */
    let seen: Set<string> | undefined;
    /** Fields whose value was refused: already reported, so not "required" again (made at the first one). */
    let refused: Set<string> | undefined;
    for (let i = 0; i < rawKeys.length; i++) {
      const rawKey = rawKeys[i];
      const rawValue = input[rawKey];
      const key = fieldName(schema, rawKey);
      const spec = schema.fields[key];
      if (!spec) continue; // unknown fields are ignored (spec §5.7)
      const fieldPath = join(path, key);
      if (seen === undefined && key !== rawKey) seen = new Set(rawKeys.slice(0, i).map((k) => fieldName(schema, k)));
      if (seen?.has(key)) {
        this.fail(fieldPath, 'given twice (camelCase and snake_case)');
        continue;
      }
      seen?.add(key);
      const before = this.violations.length;
      const value = this.field(spec, rawValue, fieldPath);
      if (this.violations.length > before) (refused ??= new Set()).add(key);
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
      if (!this.bounds.listFits(spec, raw, path)) return undefined;
      const items: unknown[] = [];
      raw.forEach((item, i) => {
        const value = this.single(spec, item, `${path}[${i}]`);
        if (value !== undefined) items.push(value);
      });
      return items.length === 0 && !spec.presence && !this.kept(spec) ? undefined : items;
    }
    if (!this.bounds.bytesFit(spec, raw, path)) return undefined;
    if (!this.bounds.contextIdFits(spec, raw, path)) return undefined;
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
        if (!this.bounds.listFits(spec, raw, path)) return undefined;
        return raw.map((item, i) => this.single({ type: type.list }, item, `${path}[${i}]`)).filter((item) => item !== undefined);
      }
      if (!isPlainObject(raw)) return this.fail(path, 'must be a JSON object');
      if (!this.bounds.mapFits(raw, path)) return undefined;
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

  private checkRequired(schema: Schema, out: Record<string, unknown>, path: string, refused: Set<string> | undefined): void {
    if (this.requiredAsReceived) return;
    for (const [key, spec] of fieldEntries(schema)) {
      if (!spec.required || out[key] !== undefined || refused?.has(key)) continue;
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

  private checkOneofs(schema: Schema, out: Record<string, unknown>, path: string, refused: Set<string> | undefined): void {
    if (schema.oneofs === undefined) return;
    for (const [name, oneof] of oneofEntries(schema)) {
      // the first two members set, in the oneof's order (no array per message)
      let first: string | undefined;
      let second: string | undefined;
      for (const member of oneof.members) {
        if (out[member] === undefined) continue;
        if (first !== undefined) {
          second = member;
          break;
        }
        first = member;
      }
      if (second !== undefined) this.fail(join(path, second), `only one of ${oneof.members.join(', ')} may be set`);
      const reported = refused !== undefined && oneof.members.some((m) => refused.has(m));
      if (first === undefined && oneof.required && !reported) this.fail(path || name, `one of ${oneof.members.join(', ')} is required`);
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
