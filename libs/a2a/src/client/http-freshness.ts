/** How long a fetched answer (an Agent Card, a JWKS) stays fresh: the HTTP caching rules the resolver follows (RFC 9111). */

/** Directives of a Cache-Control header, names lower-cased. */
function cacheDirectives(value: string | undefined): Map<string, string | true> {
  const out = new Map<string, string | true>();
  for (const part of (value ?? '').split(',')) {
    const [name, ...rest] = part.split('=');
    const key = name.trim().toLowerCase();
    if (key === '') continue;
    out.set(key, rest.length > 0 ? rest.join('=').trim().replace(/^"|"$/g, '') : true);
  }
  return out;
}

/** How fresh a stored answer is (RFC 9111 §4.2): `undefined` means "do not store" (`no-store`). */
export function freshnessLifetimeMs(
  headers: { cacheControl?: string; expires?: string; date?: string; age?: string },
  defaults: { defaultTtlMs: number; maxTtlMs: number },
): number | undefined {
  const directives = cacheDirectives(headers.cacheControl);
  if (directives.has('no-store')) return undefined;
  let lifetime: number;
  const maxAge = directives.get('max-age');
  if (directives.has('no-cache')) lifetime = 0;
  else if (typeof maxAge === 'string' && /^\d+$/.test(maxAge)) lifetime = Number(maxAge) * 1000;
  else if (headers.expires !== undefined) {
    const expires = Date.parse(headers.expires);
    const date = headers.date !== undefined ? Date.parse(headers.date) : NaN;
    // an invalid Expires (e.g. "0") means already expired (RFC 9111 §5.3)
    lifetime = Number.isNaN(expires) ? 0 : Math.max(0, expires - (Number.isNaN(date) ? Date.now() : date));
  } else lifetime = defaults.defaultTtlMs;
  const age = headers.age !== undefined && /^\d+$/.test(headers.age.trim()) ? Number(headers.age.trim()) * 1000 : 0;
  return Math.min(Math.max(0, lifetime - age), defaults.maxTtlMs);
}
