/** Server-Sent Events framing for both HTTP bindings (spec §9.4.2, §11.7). */

export interface SseEventOptions {
  /** `id:` line; the event's sequence number in its task's log, for `Last-Event-ID`. */
  id?: number | string;
  /** `event:` line; only `error` is used (a2a-js and a2a-python practice). */
  event?: string;
}

/** One SSE event holding compact single-line JSON. */
export function formatSseEvent(data: unknown, options: SseEventOptions = {}): string {
  return formatSseJson(JSON.stringify(data), options);
}

/**
 * {@link formatSseEvent} of JSON text already made (`JSON.stringify` output, which never holds a
 * line break): streams that show one event share its text (fan-out).
 */
export function formatSseJson(json: string, options: SseEventOptions = {}): string {
  let out = '';
  if (options.event) out += `event: ${options.event}\n`;
  if (options.id !== undefined) out += `id: ${options.id}\n`;
  return `${out}data: ${json}\n\n`;
}

/** A comment line: keeps proxies from closing a quiet stream, ignored by every SSE parser. */
export const SSE_HEARTBEAT = ': keep-alive\n\n';

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/** Reads a `Last-Event-ID` header: a sequence number, or undefined when absent or not a number. */
export function parseLastEventId(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,15}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
