/**
 * Writes an open stream's events, then ends it. An object with one pending `next()` while it
 * waits, rather than an async function: an open stream would hold that function's suspended frame,
 * its promise and the callbacks around it for as long as its task runs (issue 14: memory per open
 * stream), and a `for await` frame would also hold the last event written (a snapshot: the whole task).
 */
import type { Logger } from '@nestjs/common';
import { A2AError, toA2AError } from '../../protocol/errors.js';
import { formatSseEvent, formatSseJson } from '../../protocol/sse.js';
import type { StreamEvent } from '../a2a-request-handler.js';
import { nextTo, type ResultReceiver } from '../../tasks/event-log-follower.js';
import type { WireFormat } from './http-binding.js';
import type { SseStream, StreamWatcher } from './sse-streams.js';

/** Only the error's class: its message and stack may hold secrets or internals. */
export function logUnexpected(logger: Logger, what: string, error: unknown): void {
  logger.error(`${what} failed unexpectedly: ${(error as Error)?.name ?? typeof error}`);
}

export class EventPipe implements StreamWatcher, ResultReceiver<StreamEvent> {
  /** The events are over (or were told to stop): they need no `return()`. */
  private ended = false;

  constructor(
    private readonly stream: SseStream,
    private readonly events: AsyncIterator<StreamEvent>,
    private readonly format: WireFormat,
    private readonly logger: Logger,
  ) {}

  /** Starts writing. A client that leaves stops the events at once: the log's follower lets go while it waits (EventLog.followEndsOnReturn). */
  start(): void {
    this.stream.onClosed(this);
    this.pull();
  }

  /** The stream closed: its client went away (or it ended, and the events are over already). */
  streamClosed(): void {
    this.stop();
  }

  /**
   * Writes the events there are now, then waits as the events' receiver (`nextTo`): a waiting
   * stream holds no promise, reaction or closure of its own (issue 14).
   */
  private pull(): void {
    for (let next = nextTo(this.events, this); next !== undefined; next = nextTo(this.events, this)) {
      if (!this.write(next)) return;
    }
  }

  /** @internal The events' next result, after waiting. */
  receive(next: IteratorResult<StreamEvent>): void {
    if (this.write(next)) this.pull();
  }

  /** Writes one event, or ends; true when the next can be taken now (the socket keeps up). */
  private write(next: IteratorResult<StreamEvent>): boolean {
    if (next.done) {
      this.ended = true;
      this.finish();
      return false;
    }
    let drained: Promise<void> | undefined;
    try {
      drained = this.stream.write(formatSseJson(this.format.event(next.value), { id: next.value.seq }));
    } catch (error) {
      this.fail(error);
      return false;
    }
    // no promise of its own while the socket keeps up
    if (!drained) return true;
    drained.then(() => this.pull());
    return false;
  }

  /** @internal The events failed: the error goes out as the stream's last event, `event: error`. */
  fail(error: unknown): void {
    if (!(error instanceof A2AError)) logUnexpected(this.logger, 'Stream', error);
    const drained = this.stream.write(formatSseEvent(this.format.error(toA2AError(error)), { event: 'error' }));
    if (drained) drained.then(() => this.finish());
    else this.finish();
  }

  private finish(): void {
    this.stream.close();
    // as `for await` would: events left early are told so (a follower of the log stops)
    this.stop();
  }

  private stop(): void {
    if (this.ended) return;
    this.ended = true;
    Promise.resolve(this.events.return?.()).catch((error: unknown) => logUnexpected(this.logger, 'Stream', error));
  }
}
