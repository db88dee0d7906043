/**
 * The JSON text of a stream event in one encoding, made once per event and shared by every stream
 * that shows it (issue 14, fan-out): the followers of one task get the same logged event object (in
 * memory, and from an instance's one Redis tail), so 200 streams on a task encode and stringify each
 * event once, not 200 times. Logged events are never changed once appended (the fold makes new
 * snapshots), so a text made once stays right. `task` events are not kept: each stream shows its
 * own view of a task (the snapshot, a continuation).
 */
import type { StreamResponse } from '../../protocol/types.js';

/** One encoding of stream events (1.0 ProtoJSON, or a 0.3 translation). */
export type EventEncoder = (event: StreamResponse) => unknown;

const textsByEncoder = new WeakMap<EventEncoder, WeakMap<StreamResponse, string>>();

/** `JSON.stringify(encode(event))`, made once per event and encoder. */
export function sharedEventJson(event: StreamResponse, encode: EventEncoder): string {
  if ('task' in event) return JSON.stringify(encode(event));
  let texts = textsByEncoder.get(encode);
  if (!texts) textsByEncoder.set(encode, (texts = new WeakMap()));
  let text = texts.get(event);
  if (text === undefined) texts.set(event, (text = JSON.stringify(encode(event))));
  return text;
}
