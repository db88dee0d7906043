/**
 * Bounds on what a stranger's request may hold, checked while it is decoded: list lengths before a
 * list is walked, part contents and metadata with a measure that stops at the bound. A violation
 * names the field and the bound, never the value.
 */
import type { FieldSpec } from './codec-schema.js';
import { jsonSizeOf } from './json-value.js';

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

/** UTF-8 bytes of `text` above `max`? Exact only where it matters: a length bounds the bytes on both sides. */
function utf8Exceeds(text: string, max: number): boolean {
  if (text.length > max) return true; // every UTF-16 unit is at least one byte
  if (text.length * 3 <= max) return false; // and at most three
  return Buffer.byteLength(text, 'utf8') > max;
}

/*
 * The bound checks of one decoding: each gives the violation's description when the value goes
 * beyond its bound, and `undefined` when it fits (always, without limits). The decoder names the field.
 */

/** A list beyond its length bound (checked before the list is walked). @internal */
export function listOverBound(limits: DecodeLimits | undefined, spec: FieldSpec, list: readonly unknown[]): string | undefined {
  if (limits === undefined) return undefined;
  const name = spec.bound === 'parts' ? 'maxPartsPerMessage' : 'maxListItems';
  return list.length <= limits[name] ? undefined : overLimit(limits, name);
}

/** A map of more than `maxListItems` entries (counted without building the entry list). @internal */
export function mapOverBound(limits: DecodeLimits | undefined, map: Record<string, unknown>): string | undefined {
  if (limits === undefined) return undefined;
  let entries = 0;
  for (const _ in map) if (++entries > limits.maxListItems) return overLimit(limits, 'maxListItems');
  return undefined;
}

/** A part's content or a metadata object beyond its byte bound (checked before its value is used). @internal */
export function bytesOverBound(limits: DecodeLimits | undefined, spec: FieldSpec, raw: unknown): string | undefined {
  if (limits === undefined || (spec.bound !== 'partContent' && spec.bound !== 'metadata')) return undefined;
  const name = spec.bound === 'partContent' ? 'maxPartBytes' : 'maxMetadataBytes';
  const max = limits[name];
  const over = typeof raw === 'string' ? utf8Exceeds(raw, max) : jsonSizeOf(raw, max) > max;
  return over ? overLimit(limits, name) : undefined;
}

/** A conversation id: one rule for its type and its length, so either violation names the bound. @internal */
export function contextIdOverBound(limits: DecodeLimits | undefined, spec: FieldSpec, raw: unknown): string | undefined {
  const max = limits?.maxContextIdLength;
  if (spec.bound !== 'contextId' || max === undefined || (typeof raw === 'string' && raw.length <= max)) return undefined;
  return contextIdRule(max);
}

/** Why a value beyond the bound `name` is refused; the value is never quoted. */
function overLimit(limits: DecodeLimits, name: CountedLimit): string {
  return `must ${LIMIT_TEXT[name]} at most ${limits[name]} ${LIMIT_UNIT[name]} (${LIMIT_OPTION[name]})`;
}
