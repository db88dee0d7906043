/** The events of a streaming call, as an async iterable that also remembers where it got to. */
import type { StreamResponse } from '../protocol/types.js';

/**
 * The events of SendStreamingMessage or SubscribeToTask, in order. Nothing is sent until the first
 * event is asked for; errors (before or during the stream) are thrown by the iteration. Leaving
 * the loop early (`break`, `return`, an exception) closes the connection.
 *
 * `lastEventId` is the SSE id of the last event delivered: give it to `subscribeToTask` as
 * `lastEventId` to resume exactly after it on a server that numbers its events (this library's
 * server does).
 * @publicApi
 */
export class A2AEventStream implements AsyncIterableIterator<StreamResponse> {
  private lastId: string | undefined;
  private readonly generator: AsyncGenerator<StreamResponse, void, undefined>;

  /** @internal */
  constructor(source: (stream: { setLastEventId(id: string): void }) => AsyncGenerator<StreamResponse, void, undefined>) {
    this.generator = source({ setLastEventId: (id) => (this.lastId = id) });
  }

  /** The SSE `id` of the last event delivered, if the server sent ids. */
  get lastEventId(): string | undefined {
    return this.lastId;
  }

  async next(): Promise<IteratorResult<StreamResponse, undefined>> {
    const result = await this.generator.next();
    return result.done ? { done: true, value: undefined } : result;
  }

  /** Stops reading and closes the connection. */
  async return(): Promise<IteratorResult<StreamResponse, undefined>> {
    await this.generator.return(undefined);
    return { done: true, value: undefined };
  }

  /** Stops reading and closes the connection. */
  async close(): Promise<void> {
    await this.return();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<StreamResponse> {
    return this;
  }

  /** Reads the whole stream (until the server closes it). */
  async toArray(): Promise<StreamResponse[]> {
    const events: StreamResponse[] = [];
    for await (const event of this) events.push(event);
    return events;
  }
}
