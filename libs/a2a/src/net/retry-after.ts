/**
 * `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, as milliseconds from `now`
 * (0 for a date in the past). Undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // an HTTP date starts with the day's name (RFC 9110 §5.6.7); V8 would read "1.5" as a date
  const date = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
