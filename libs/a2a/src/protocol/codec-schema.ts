/**
 * The schema model the codec walks: a message schema per wire type, its fields (type, presence,
 * REQUIRED, bounds), oneofs and discriminated unions. Schemas are declared in `schemas.ts` and
 * `v03/schemas.ts`; `decoder.ts` and `encoder.ts` read them.
 */
import { isPlainObject } from './json-value.js';

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

/** A message schema: its fields (a oneof's members get presence) and the aliases they are read under. */
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

/** A schema's fields as [name, spec] pairs, made once per schema: the codec walks them for every message it reads or writes. */
export function fieldEntries(schema: Schema): ReadonlyArray<readonly [string, FieldSpec]> {
  let entries = ENTRIES.get(schema);
  if (entries === undefined) {
    entries = Object.entries(schema.fields);
    ENTRIES.set(schema, entries);
  }
  return entries;
}

const ENTRIES = new WeakMap<Schema, ReadonlyArray<readonly [string, FieldSpec]>>();

/** A schema's oneofs as [name, spec] pairs, made once per schema (the decoder checks them for every message). */
export function oneofEntries(schema: Schema): ReadonlyArray<readonly [string, OneofSpec]> {
  let entries = ONEOF_ENTRIES.get(schema);
  if (entries === undefined) {
    entries = Object.entries(schema.oneofs ?? {});
    ONEOF_ENTRIES.set(schema, entries);
  }
  return entries;
}

const ONEOF_ENTRIES = new WeakMap<Schema, ReadonlyArray<readonly [string, OneofSpec]>>();

/** The discriminator of a union's variant (a schema error, not an input one, when it has none). */
export function discriminatorOf(variant: Schema, union: Schema): Discriminator {
  if (variant.discriminator === undefined) throw new TypeError(`${union.name}: variant ${variant.name} has no discriminator`);
  return variant.discriminator;
}

/** A value proto3 leaves off the wire when its field has no presence. */
export function isDefault(type: FieldType, value: unknown): boolean {
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
