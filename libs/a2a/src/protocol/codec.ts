/**
 * ProtoJSON with field presence, driven by small message schemas (see `schemas.ts`): the one
 * module the rest of the library imports the codec from.
 *
 * - `codec-schema.ts`: the schema model (`schema`, `union`, field specs, oneofs, discriminators);
 * - `decoder.ts`: `decode`, which checks every rule and collects every violation with its path;
 * - `decode-limits.ts`: the bounds on what a stranger's request may hold, checked while decoding;
 * - `encoder.ts`: `encode`, with proto3's presence rules.
 */
export { schema, union, type Discriminator, type FieldName, type FieldSpec, type FieldType, type OneofSpec, type ScalarType, type Schema, type SchemaFields } from './codec-schema.js';
export { contextIdRule, DEFAULT_DECODE_LIMITS, type DecodeLimits } from './decode-limits.js';
export { decode, MAX_VIOLATIONS, type DecodeOptions } from './decoder.js';
export { encode, type EncodeOptions } from './encoder.js';
