/** Shorthands for the field specs every schema file writes (`schemas.ts`, `v03/schemas.ts`, `v03/proto-json.ts`). */
import type { FieldSpec, Schema } from './codec.js';

export const str: FieldSpec = { type: 'string' };
export const reqStr: FieldSpec = { type: 'string', required: true };
export const strList: FieldSpec = { type: 'string', repeated: true };
export const bool: FieldSpec = { type: 'bool' };
export const struct: FieldSpec = { type: 'struct' };
export const msg = (s: () => Schema): FieldSpec['type'] => ({ message: s });
/** A message's, part's, task's … own metadata: bounded by `maxMetadataBytes` in requests. */
export const metadata: FieldSpec = { type: 'struct', bound: 'metadata' };
/** The parts of a message or artifact: REQUIRED, bounded by `maxPartsPerMessage` in requests. */
export const partsOf = (part: () => Schema): FieldSpec => ({ type: { message: part }, repeated: true, required: true, bound: 'parts' });
