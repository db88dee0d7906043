/**
 * The JSON text of a stream event in one encoding, made once per event and shared by every stream
 * that shows it (issue 14, fan-out): the followers of one task get the same logged event object (in
 * memory, and from an instance's one Redis tail), so 200 streams on a task encode and stringify each
 * event once, not 200 times. `task` events are not kept: each stream shows its own view of a task
 * (the snapshot, a continuation).
 *
 * A text is kept until the end of the tick only: the streams an append wakes all write its events in
 * that tick (the followers are woken together and the rest is promise callbacks), and a WeakMap on the
 * logged event would keep every text as long as the log keeps its event (the in-memory log keeps a
 * finished task's for an hour), and costs the collector more than a Map emptied once a tick.
 */
import type { StreamResponse } from '../../protocol/types.js';

/** One encoding of stream events (1.0 ProtoJSON, or a 0.3 translation). */
export type EventEncoder = (event: StreamResponse) => unknown;

/**
 * The texts made in this tick, per encoder: a table made in the tick and let go at its end, not one
 * long-lived Map emptied every tick, which kept each tick's texts and events alive past the
 * young-generation collections (see IdTable).
 */
let textsThisTick: Map<EventEncoder, Map<StreamResponse, string>> | undefined;

/** `JSON.stringify(encode(event))`, made once per event and encoder in a tick. */
export function sharedEventJson(event: StreamResponse, encode: EventEncoder): string {
  if ('task' in event) return JSON.stringify(encode(event));
  if (textsThisTick === undefined) {
    textsThisTick = new Map();
    process.nextTick(forgetTexts);
  }
  let texts = textsThisTick.get(encode);
  if (!texts) textsThisTick.set(encode, (texts = new Map()));
  let text = texts.get(event);
  if (text === undefined) texts.set(event, (text = JSON.stringify(encode(event))));
  return text;
}

function forgetTexts(): void {
  textsThisTick = undefined;
}
