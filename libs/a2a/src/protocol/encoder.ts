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
  for (const field of planOf(schema)) {
    const { key, type } = field;
    const v = value[key];
    if (v === undefined) {
      if (fill && field.fillWhenUnset) out[key] = [];
      continue;
    }
    if (field.repeated) {
      const list = v as unknown[];
      if (list.length === 0 && !field.keepDefault) continue;
      const items = field.asIs ? list.slice() : new Array<unknown>(list.length);
      if (!field.asIs) for (let i = 0; i < list.length; i++) items[i] = encodeWalked(field, list[i], fill);
      out[key] = items;
      continue;
    }
    if (field.mayDrop && isDefault(type, v)) continue;
    out[key] = field.asIs ? v : encodeWalked(field, v, fill);
  }
  return out;
}

/** How `encodeMessage` writes one field, decided once per schema rather than for every value. */
interface FieldPlan {
  readonly key: string;
  readonly type: FieldType;
  readonly repeated: boolean;
  /** Unset, it is still written, as `[]` (a REQUIRED repeated field, when filling). */
  readonly fillWhenUnset: boolean;
  /** Set, it is written even when empty or the default (REQUIRED, or with presence). */
  readonly keepDefault: boolean;
  /** A set value that is its type's default is left out (never for a message, which is written even when empty). */
  readonly mayDrop: boolean;
  /** The value is written as it is (a scalar or an enum): nothing to walk. */
  readonly asIs: boolean;
  /** The schema of a message field, resolved once (not through its thunk for every value). */
  readonly message: Schema | undefined;
}

/** A message, list or map value of `field`, written out. */
function encodeWalked(field: FieldPlan, value: unknown, fill: boolean): unknown {
  return field.message !== undefined ? encodeMessage(field.message, value as Record<string, unknown>, fill) : encodeSingle(field.type, value, fill);
}

function planOf(schema: Schema): readonly FieldPlan[] {
  let plan = PLANS.get(schema);
  if (plan === undefined) {
    plan = fieldEntries(schema).map(([key, spec]) => {
      const keepDefault = spec.required === true || spec.presence === true;
      const walked = typeof spec.type === 'object' && !('enum' in spec.type);
      return {
        key,
        type: spec.type,
        repeated: spec.repeated === true,
        fillWhenUnset: spec.required === true && spec.repeated === true,
        keepDefault,
        mayDrop: !keepDefault && !(typeof spec.type === 'object' && ('message' in spec.type || 'list' in spec.type)),
        asIs: !walked,
        message: typeof spec.type === 'object' && 'message' in spec.type ? spec.type.message() : undefined,
      };
    });
    PLANS.set(schema, plan);
  }
  return plan;
}

const PLANS = new WeakMap<Schema, readonly FieldPlan[]>();

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
