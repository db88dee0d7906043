/**
 * Redis Streams replies read as logged events, whichever form ioredis gives them in (RESP2 arrays,
 * or RESP3 maps).
 */
import type { StreamResponse } from '../../protocol/types.js';
import type { LoggedEvent } from '../event-log.js';

/** One stream entry: its id (`<seq>-0`) and its fields. */
export type StreamEntry = [id: string, fields: unknown];

/**
 * The streams of an XREAD reply. ioredis gives `[[key, entries], …]` (RESP2, or RESP3 with the
 * default legacy reply mapping) or `{ key: entries }` (RESP3 with `replyMapping: 'resp3'`).
 */
export function streamsOf(reply: unknown): Array<[string, StreamEntry[]]> {
  if (reply === null || reply === undefined) return [];
  if (Array.isArray(reply)) return reply.map(([key, entries]) => [String(key), entries as StreamEntry[]]);
  return Object.entries(reply as Record<string, StreamEntry[]>);
}

/** A stream entry as a logged event: its id's first part is the seq, its field `e` the event's JSON. */
export function toLoggedEvent(id: string, fields: unknown): LoggedEvent {
  let json: unknown;
  if (Array.isArray(fields)) {
    for (let i = 0; i + 1 < fields.length; i += 2) if (String(fields[i]) === 'e') json = fields[i + 1];
  } else if (fields && typeof fields === 'object') {
    json = (fields as Record<string, unknown>).e;
  }
  return { seq: Number.parseInt(String(id), 10), event: JSON.parse(String(json)) as StreamResponse };
}
