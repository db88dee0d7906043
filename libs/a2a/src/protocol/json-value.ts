/** Plain JSON values as `JSON.parse` gives them: telling objects apart, and setting any key safely. */

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Sets `out[key]` for any string key, `__proto__` included: plain assignment of `__proto__`
 * would set the object's prototype and lose the entry (map keys and card members are arbitrary).
 */
export function setEntry(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}
