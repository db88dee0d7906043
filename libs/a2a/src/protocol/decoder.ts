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
import { bytesOverBound, contextIdOverBound, listOverBound, mapOverBound, type DecodeLimits } from './decode-limits.js';
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
  /**
   * The steps from the root to the value being decoded: field names and map keys (as a path quotes
   * them), list indexes. Kept as steps and written out only when a violation names a path: most
   * decodings have none.
   */
  private readonly steps: Array<string | number> = [];

  constructor(
    /** The path the decoded value is at (`params` under JSON-RPC), '' at the top. */
    private readonly root: string,
    private readonly requiredAsReceived: boolean,
    private readonly limits: DecodeLimits | undefined,
  ) {}

  /** Is a REQUIRED field kept as received, default value or not? */
  private kept(spec: FieldSpec): boolean {
    return this.requiredAsReceived && spec.required === true;
  }

  /** The path of the value being decoded: `a.b[0].c`. */
  private path(): string {
    let path = this.root;
    for (const step of this.steps) path = typeof step === 'number' ? `${path}[${step}]` : join(path, step);
    return path;
  }

  /** Reports the value being decoded. */
  private fail(description: string): undefined {
    return this.report(this.path(), description);
  }

  /** Reports the field `key` of the message being decoded. */
  private failField(key: string, description: string): undefined {
    return this.report(join(this.path(), key), description);
  }

  private report(field: string, description: string): undefined {
    this.violations.push({ field, description });
    if (this.violations.length >= MAX_VIOLATIONS) throw new TooManyViolations();
    return undefined;
  }

  /** Decodes `raw` as one value of `spec` at `step` (a list index, a map key) below the value being decoded. */
  private singleAt(step: string | number, spec: FieldSpec, raw: unknown): unknown {
    this.steps.push(step);
    const value = this.single(spec, raw);
    this.steps.pop();
    return value;
  }

  message(schema: Schema, input: unknown): Record<string, unknown> | undefined {
    if (!isPlainObject(input)) return this.report(this.path() || '(body)', 'must be a JSON object');
    if (schema.variants !== undefined) return this.variant(schema, input);
    const out: Record<string, unknown> = {};
    if (schema.discriminator !== undefined) {
      // where only one schema can be (not in a union), the discriminator may be left out; a wrong one is refused
      const { key, value } = schema.discriminator;
      if (input[key] !== undefined && input[key] !== value) this.failField(key, `must be ${JSON.stringify(value)}`);
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
      // most keys are their field's own name: one lookup
      let key = rawKey;
      let spec: FieldSpec | undefined = schema.fields[rawKey];
      if (spec === undefined) spec = schema.fields[(key = fieldName(schema, rawKey))];
      if (!spec) continue; // unknown fields are ignored (spec §5.7)
      if (seen === undefined && key !== rawKey) seen = new Set(rawKeys.slice(0, i).map((k) => fieldName(schema, k)));
      if (seen?.has(key)) {
        this.failField(key, 'given twice (camelCase and snake_case)');
        continue;
      }
      seen?.add(key);
      const before = this.violations.length;
      this.steps.push(key);
      const value = this.field(spec, rawValue);
      this.steps.pop();
      if (this.violations.length > before) (refused ??= new Set()).add(key);
      if (value !== undefined) out[key] = value;
    }
    this.checkRequired(schema, out, refused);
    this.checkOneofs(schema, out, refused);
    return out;
  }

  /** A union: the discriminator's value picks the variant (its value is never echoed: it may be anything). */
  private variant(schema: Schema, input: Record<string, unknown>): Record<string, unknown> | undefined {
    const variants = schema.variants!();
    const key = discriminatorOf(variants[0], schema).key;
    const match = variants.find((v) => discriminatorOf(v, schema).value === input[key]);
    if (match === undefined) return this.failField(key, `must be one of ${variants.map((v) => JSON.stringify(discriminatorOf(v, schema).value)).join(', ')}`);
    return this.message(match, input);
  }

  private field(spec: FieldSpec, raw: unknown): unknown {
    if (raw === null && (spec.repeated || spec.type !== 'value')) return undefined;
    if (spec.repeated) {
      const items = this.list(spec, spec, raw);
      return items === undefined || (items.length === 0 && !spec.presence && !this.kept(spec)) ? undefined : items;
    }
    const over = bytesOverBound(this.limits, spec, raw) ?? contextIdOverBound(this.limits, spec, raw);
    if (over !== undefined) return this.fail(over);
    const value = this.single(spec, raw);
    if (value === undefined || spec.presence || this.kept(spec)) return value;
    // an unset REQUIRED field is reported by checkRequired; a default value counts as unset
    return isDefault(spec.type, value) ? undefined : value;
  }

  /** The items of a list (`spec` bounds its length, `item` reads each), the refused ones left out. */
  private list(spec: FieldSpec, item: FieldSpec, raw: unknown): unknown[] | undefined {
    if (!Array.isArray(raw)) return this.fail('must be an array');
    const over = listOverBound(this.limits, spec, raw);
    if (over !== undefined) return this.fail(over);
    const items: unknown[] = [];
    for (let i = 0; i < raw.length; i++) {
      const value = this.singleAt(i, item, raw[i]);
      if (value !== undefined) items.push(value);
    }
    return items;
  }

  private single(spec: FieldSpec, raw: unknown): unknown {
    const type = spec.type;
    if (typeof type === 'object') {
      if ('enum' in type) return this.enumValue(type.enum, raw, type.namesOnly === true);
      if ('message' in type) return this.message(type.message(), raw);
      if ('list' in type) return this.list(spec, { type: type.list }, raw);
      if (!isPlainObject(raw)) return this.fail('must be a JSON object');
      const over = mapOverBound(this.limits, raw);
      if (over !== undefined) return this.fail(over);
      const entry: FieldSpec = { type: type.map };
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(raw)) {
        const value = this.singleAt(keyInPath(k), entry, v);
        if (value !== undefined) setEntry(out, k, value);
      }
      return out;
    }
    switch (type) {
      case 'string':
        return typeof raw === 'string' ? raw : this.fail('must be a string');
      case 'bool':
        return typeof raw === 'boolean' ? raw : this.fail('must be a boolean');
      case 'int32':
        return this.int32(spec, raw);
      case 'bytes':
        if (typeof raw !== 'string' || !BASE64.test(raw)) return this.fail('must be a base64 string');
        return Buffer.from(raw, 'base64').toString('base64');
      case 'timestamp':
        return this.timestamp(raw, RFC3339);
      case 'datetime':
        return this.timestamp(raw, ISO_DATETIME);
      case 'struct':
        return isPlainObject(raw) ? raw : this.fail('must be a JSON object');
      case 'value':
        return raw;
    }
  }

  private enumValue(names: readonly string[], raw: unknown, namesOnly: boolean): string | undefined {
    if (typeof raw === 'string' && names.includes(raw)) return raw;
    if (!namesOnly && typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw < names.length) return names[raw];
    return this.fail(`must be one of ${names.join(', ')}`);
  }

  private int32(spec: FieldSpec, raw: unknown): number | undefined {
    const value = typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) {
      return this.fail('must be an integer');
    }
    if (spec.min !== undefined && value < spec.min) return this.fail(`must be at least ${spec.min}`);
    if (spec.max !== undefined && value > spec.max) return this.fail(`must be at most ${spec.max}`);
    return value;
  }

  private timestamp(raw: unknown, pattern: RegExp): string | undefined {
    const match = typeof raw === 'string' ? pattern.exec(raw) : null;
    // no offset: UTC (Date.parse would read the local time)
    const time = match ? Date.parse(match[8] === undefined ? `${raw as string}Z` : (raw as string)) : NaN;
    if (!match || Number.isNaN(time) || !isCalendarTime(match)) {
      return this.fail(pattern === RFC3339 ? 'must be an RFC 3339 timestamp, e.g. 2026-01-31T10:00:00.000Z' : 'must be an ISO 8601 date-time, e.g. 2026-01-31T10:00:00.000Z');
    }
    return new Date(time).toISOString();
  }

  private checkRequired(schema: Schema, out: Record<string, unknown>, refused: Set<string> | undefined): void {
    if (this.requiredAsReceived) return;
    for (const [key, spec] of requiredEntries(schema)) {
      if (out[key] !== undefined || refused?.has(key)) continue;
      if (spec.alwaysEmit) {
        // a REQUIRED map (`scopes`) is filled with an empty map, not a list
        out[key] = spec.repeated ? [] : {};
        continue;
      }
      // a present-but-default value was dropped by field(): report it the same way
      // a REQUIRED list with presence may be empty: it only has to be there
      this.failField(key, spec.repeated && !spec.presence ? 'is required and must not be empty' : 'is required');
    }
  }

  private checkOneofs(schema: Schema, out: Record<string, unknown>, refused: Set<string> | undefined): void {
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
      if (second !== undefined) this.failField(second, `only one of ${oneof.members.join(', ')} may be set`);
      const reported = refused !== undefined && oneof.members.some((m) => refused.has(m));
      if (first === undefined && oneof.required && !reported) this.report(this.path() || name, `one of ${oneof.members.join(', ')} is required`);
    }
  }
}

/** A schema's REQUIRED fields as [name, spec] pairs, made once per schema (checked for every message decoded). */
function requiredEntries(schema: Schema): ReadonlyArray<readonly [string, FieldSpec]> {
  let entries = REQUIRED.get(schema);
  if (entries === undefined) {
    entries = fieldEntries(schema).filter(([, spec]) => spec.required === true);
    REQUIRED.set(schema, entries);
  }
  return entries;
}

const REQUIRED = new WeakMap<Schema, ReadonlyArray<readonly [string, FieldSpec]>>();

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
  const decoder = new Decoder(path, options.required === 'as-received', options.limits);
  let out: Record<string, unknown> | undefined;
  try {
    out = decoder.message(schema, input);
  } catch (error) {
    if (!(error instanceof TooManyViolations)) throw error;
    throw new InvalidParamsError([...decoder.violations, { field: path || '(body)', description: `more violations not listed (decoding stops after ${MAX_VIOLATIONS})` }]);
  }
  if (decoder.violations.length > 0 || out === undefined) throw new InvalidParamsError(decoder.violations);
  return out as T;
}
