import { describe, expect, it } from '@jest/globals';
import { InvalidAgentResponseError } from '../protocol/errors.js';
import { readSse } from './sse-reader.js';

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

async function read(parts: string[], maxEventChars = 1000) {
  let activity = 0;
  const events = [];
  for await (const event of readSse(chunks(...parts), { maxEventChars, target: 't', onActivity: () => activity++ })) events.push(event);
  return { events, activity };
}

describe('readSse', () => {
  it('reassembles events split anywhere, multi-byte characters included', async () => {
    const text = 'id: 7\nevent: error\ndata: {"a":"é"}\n\n';
    const bytes = new TextEncoder().encode(text);
    const split = [bytes.slice(0, 3), bytes.slice(3, 27), bytes.slice(27, 28), bytes.slice(28)];
    const events = [];
    for await (const e of readSse((async function* () { yield* split; })(), { maxEventChars: 100, target: 't' })) events.push(e);
    expect(events).toEqual([{ id: '7', event: 'error', data: '{"a":"é"}' }]);
  });

  it('joins multi-line data, handles CRLF, and counts comments (heartbeats) as activity', async () => {
    const { events, activity } = await read([': keep-alive\r\n\r\n', 'data: {"x":\r\ndata: 1}\r\n\r\n', ': hb\n\n']);
    expect(events).toEqual([{ id: undefined, event: undefined, data: '{"x":\n1}' }]);
    expect(activity).toBe(3);
  });

  it('drops an event left incomplete when the body ends', async () => {
    expect((await read(['data: 1\n\n', 'data: 2\n'])).events.map((e) => e.data)).toEqual(['1']);
  });

  it('ends the stream when one event grows past the cap', async () => {
    await expect(read([`data: ${'x'.repeat(200)}`], 100)).rejects.toBeInstanceOf(InvalidAgentResponseError);
  });
});
