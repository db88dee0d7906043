/**
 * Server-Sent Events from a byte stream, with `eventsource-parser` (spec §9.4.2, §11.7). Comments
 * (heartbeats) and events both report activity, so an idle timer can tell a quiet-but-alive
 * stream from a dead one; a partial event that grows past the cap ends the stream.
 *
 * @internal
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { InvalidAgentResponseError } from '../protocol/errors.js';

export type SseMessage = EventSourceMessage;

export interface SseReadOptions {
  /** Largest event (and largest partial line), in characters. */
  maxEventChars: number;
  /** Called for every complete event and every comment line: the stream is alive. */
  onActivity?: () => void;
  /** The redacted target, for messages. */
  target: string;
}

/**
 * Yields the events of an SSE body in order. An event still incomplete when the body ends is
 * dropped, as the SSE specification says.
 * @throws InvalidAgentResponseError when an event grows past `maxEventChars`; whatever the body throws
 */
export async function* readSse(body: AsyncIterable<Uint8Array | string>, options: SseReadOptions): AsyncGenerator<SseMessage, void, undefined> {
  const queue: SseMessage[] = [];
  let tooLarge = false;
  const parser = createParser({
    maxBufferSize: options.maxEventChars,
    onEvent: (event) => {
      queue.push(event);
      options.onActivity?.();
    },
    onComment: () => options.onActivity?.(),
    onError: (error) => {
      // unknown fields and bad `retry:` values are ignored, as an EventSource would
      if (error.type === 'max-buffer-size-exceeded') tooLarge = true;
    },
  });
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    if (tooLarge) throw new InvalidAgentResponseError(`${options.target}: a stream event is larger than ${options.maxEventChars} characters`);
    while (queue.length > 0) yield queue.shift()!;
  }
  const rest = decoder.decode();
  if (rest !== '') parser.feed(rest);
  while (queue.length > 0) yield queue.shift()!;
}
