import { describe, expect, it } from '@jest/globals';
import type { StreamResponse } from '../../protocol/types.js';
import { encodeStreamEvent } from '../a2a-request-handler.js';
import { sharedEventJson, type EventEncoder } from './shared-event-json.js';

const statusUpdate: StreamResponse = { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } };

/** An encoder that counts its calls. */
function counting(): { encode: EventEncoder; calls: () => number } {
  let calls = 0;
  return {
    encode: (event) => {
      calls++;
      return encodeStreamEvent(event);
    },
    calls: () => calls,
  };
}

describe('sharedEventJson', () => {
  it('is the JSON of the encoded event, made once per event and encoder', () => {
    const { encode, calls } = counting();
    const text = sharedEventJson(statusUpdate, encode);
    expect(text).toBe(JSON.stringify(encodeStreamEvent(statusUpdate)));
    expect(sharedEventJson(statusUpdate, encode)).toBe(text);
    expect(calls()).toBe(1);
  });

  it('keeps one text per encoder: another encoding of the same event is its own', () => {
    const other: EventEncoder = (event) => ({ wrapped: encodeStreamEvent(event) });
    const text = sharedEventJson(statusUpdate, encodeStreamEvent);
    expect(sharedEventJson(statusUpdate, other)).toBe(`{"wrapped":${text}}`);
  });

  it('tells apart two equal events that are different objects', () => {
    const { encode, calls } = counting();
    sharedEventJson(statusUpdate, encode);
    sharedEventJson({ ...statusUpdate }, encode);
    expect(calls()).toBe(2);
  });

  it('does not keep task events: each stream shows its own view of a task', () => {
    const { encode, calls } = counting();
    const task: StreamResponse = { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } };
    expect(sharedEventJson(task, encode)).toBe(JSON.stringify(encodeStreamEvent(task)));
    sharedEventJson(task, encode);
    expect(calls()).toBe(2);
  });

  it('keeps a text until the end of the tick only, not for as long as the log keeps the event', async () => {
    const { encode, calls } = counting();
    const text = sharedEventJson(statusUpdate, encode);
    await Promise.resolve(); // a promise callback (a woken stream) still shares it
    expect(sharedEventJson(statusUpdate, encode)).toBe(text);
    expect(calls()).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sharedEventJson(statusUpdate, encode)).toBe(text);
    expect(calls()).toBe(2);
  });
});
