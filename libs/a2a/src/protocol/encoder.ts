/**
 * ProtoJSON out: camelCase only; enums as names; an unset field is absent; a field with presence
 * is kept whenever it is set; REQUIRED fields always appear; other fields holding their default
 * are left out; keys that are not in the schema never reach the wire.
 */
import { discriminatorOf, fieldEntries, isDefault, type FieldType, type Schema } from './codec-schema.js';
import { setEntry } from './json-value.js';

/** How `encode` treats REQUIRED fields. */
export interface EncodeOptions {
  /** Emit an absent REQUIRED repeated field as `[]` (default `true`; `false` for Agent Card signing). */
  readonly fillRequired?: boolean;
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
  for (const [key, spec] of fieldEntries(schema)) {
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
