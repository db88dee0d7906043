/** Open SSE streams: limits (overall and per caller), one shared heartbeat, back-pressure, clean-up. */
import { Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { ResourceExhaustedError, UnavailableError } from '../../protocol/errors.js';
import { SSE_HEADERS, SSE_HEARTBEAT } from '../../protocol/sse.js';
import { InjectA2AOptions } from '../../config/a2a.constants.js';
import { compactListeners, compactSentHeaders } from './platform-exchange.js';
import type { ResolvedServerOptions } from '../server-options.js';

/**
 * One open stream. Writes wait for the socket to drain, so a slow client cannot grow memory.
 *
 * The frames a stream is given in one tick go out in one write when the tick ends, with the headers
 * if they have not gone yet (issue 14): events that come together (a commit's batch, a Redis reply,
 * SubscribeToTask's snapshot, a stream's last event and its end) cost one `res.write` and one
 * syscall. Node's own cork already made one syscall of a tick's writes, but each `res.write` of a
 * chunked answer is four socket chunks, buffered and handed to `writev` one by one (fan-out).
 */
export class SseStream {
  private opened = false;
  private closed = false;
  /** The headers are set and wait for the end of the tick. */
  private headersDue = false;
  /** The frames that wait for the end of the tick ('' none yet, after {@link open}); undefined when nothing waits. */
  private pending?: string;
  /** Told once the stream closes, or its client goes (see {@link onClosed}). */
  private watcher?: StreamWatcher;
  /** @internal Its neighbours in {@link SseStreams}' list of open streams. */
  prevOpen?: SseStream;
  /** @internal */
  nextOpen?: SseStream;

  /** `slots` and `subject` rather than a closure that frees the slot: one object less per open stream. */
  constructor(
    private readonly res: ServerResponse,
    private readonly slots: SseStreams,
    readonly subject: string,
  ) {}

  /** Sets the status line and headers (HTTP 200, text/event-stream); they go out at the end of this tick. */
  open(extraHeaders: Readonly<Record<string, string>>): void {
    this.opened = true;
    this.res.writeHead(200, sseHeadersWith(extraHeaders));
    this.headersDue = true;
    this.pending = '';
    // from a microtask, so the tick's end comes after the promise callbacks already queued (a
    // SubscribeToTask's snapshot, the first events of SendStreamingMessage), not before them
    queueMicrotask(() => process.nextTick(flushAtTickEnd, this));
  }

  /**
   * Writes `chunk` at the end of this tick, with the others written in it; a promise when the
   * socket is full (resolves on `drain` or `close`), undefined when it is not: no promise per event
   * while the client keeps up. What waits is written at once past the high-water mark, so a stream
   * holds at most that much more than the socket's own buffer.
   */
  write(chunk: string): Promise<void> | undefined {
    if (this.closed || this.res.writableEnded || this.res.destroyed) return undefined;
    if (this.pending === undefined) {
      this.pending = chunk;
      process.nextTick(flushAtTickEnd, this);
    } else {
      this.pending += chunk;
    }
    return this.pending.length >= this.res.writableHighWaterMark || this.res.writableNeedDrain ? this.flush() : undefined;
  }

  /** Writes what waits, with the headers if they are due; a promise when the socket did not take it. */
  flush(): Promise<void> | undefined {
    const chunk = this.pending;
    this.pending = undefined;
    if (chunk === undefined || this.closed || this.res.writableEnded || this.res.destroyed) return undefined;
    let taken = true;
    if (this.headersDue) {
      // corked: the headers and the frames go out in one write. The headers are written on their
      // own, so node's text of them is flattened as it goes; sent in one string with the first
      // frame, it would stay the tree of ~30 pieces it was built from (~1 KB a stream, for its life)
      this.headersDue = false;
      this.res.cork();
      this.res.flushHeaders();
      compactSentHeaders(this.res);
      compactListeners(this.res);
      if (chunk !== '') taken = this.res.write(chunk);
      this.res.uncork();
    } else {
      taken = this.res.write(chunk);
    }
    if (taken) return undefined;
    return new Promise<void>((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  /**
   * Tells `watcher` when the client has gone (at once if it has already) or the stream closes. It is
   * held as an object, and the response's `close` is heard by one listener for every stream
   * (`SseStreams`): no closure, once-wrapper and its state per open stream (issue 14).
   */
  onClosed(watcher: StreamWatcher): void {
    if (this.res.destroyed) return watcher.streamClosed();
    this.watcher = watcher;
    this.res.on('close', this.slots.responseClosed);
  }

  /** @internal The response closed (the client went, or the stream ended). */
  responseClosed(): void {
    const watcher = this.watcher;
    this.watcher = undefined;
    watcher?.streamClosed();
  }

  /**
   * A heartbeat is dropped rather than queued behind a slow client or frames still to go, and
   * never sent before the headers (it would send Node's implicit ones, without the event-stream type).
   */
  heartbeat(): void {
    if (this.opened && !this.closed && this.pending === undefined && !this.res.writableEnded && this.res.writableLength === 0) this.res.write(SSE_HEARTBEAT);
  }

  /** Frees the slot; ends the response if the stream was opened, with what waits in the same write (an unopened one may still answer an error). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.slots.release(this, this.res);
    const chunk = this.pending;
    this.pending = undefined;
    if (this.opened && !this.res.writableEnded) this.res.end(chunk || undefined);
    // released, `SseStreams` no longer finds it when the response's `close` comes
    this.responseClosed();
  }
}

/** What {@link SseStream.onClosed} tells. */
export interface StreamWatcher {
  streamClosed(): void;
}

/** The SSE headers with a stream's own, for the last `extra` seen: an exchange's headers are one shared object unless it adds one. */
let lastExtra: Readonly<Record<string, string>> | undefined;
let lastHeaders: Readonly<Record<string, string>> = SSE_HEADERS;

function sseHeadersWith(extra: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  if (extra !== lastExtra) {
    lastHeaders = Object.freeze({ ...SSE_HEADERS, ...extra });
    lastExtra = extra;
  }
  return lastHeaders;
}

function flushAtTickEnd(stream: SseStream): void {
  stream.flush();
}

/** Where a response holds its open stream (set while the stream holds a slot). */
const OPEN_STREAM = Symbol('a2a.openStream');
type WithStream = ServerResponse & { [OPEN_STREAM]?: SseStream };

@Injectable()
export class SseStreams {
  /**
   * The open streams, a list through the streams themselves, each found from its response by a
   * property: not a Map from response to stream, which with a stream opened and closed per request
   * kept every closed stream's response, request and events reachable past the young-generation
   * collections (see IdTable; issue 14).
   */
  private first?: SseStream;
  private last?: SseStream;
  private count = 0;
  private readonly perCaller = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private accepting = true;

  /** The `close` listener of every open stream's response (called with the response as `this`). */
  readonly responseClosed: (this: ServerResponse) => void;

  constructor(@InjectA2AOptions() private readonly options: ResolvedServerOptions) {
    this.responseClosed = function (this: ServerResponse) {
      (this as WithStream)[OPEN_STREAM]?.responseClosed();
    };
    this.timer = setInterval(() => {
      for (let stream = this.first; stream !== undefined; ) {
        const next = stream.nextOpen; // taken first: a heartbeat's write may close its stream
        stream.heartbeat();
        stream = next;
      }
    }, options.streaming.heartbeatMs);
    this.timer.unref();
  }

  /**
   * Takes a stream slot for `subject` before any work starts.
   * @throws ResourceExhaustedError when the overall or per-caller limit is reached
   * @throws UnavailableError once the server is shutting down
   */
  reserve(subject: string, res: ServerResponse): SseStream {
    if (!this.accepting) throw new UnavailableError('The server is shutting down and opens no new streams; connect again (to another instance)');
    const { maxStreams, maxStreamsPerCaller } = this.options.streaming;
    const mine = this.perCaller.get(subject) ?? 0;
    if (this.count >= maxStreams || mine >= maxStreamsPerCaller) {
      throw new ResourceExhaustedError('Too many open streams; close one and try again');
    }
    this.perCaller.set(subject, mine + 1);
    const stream = new SseStream(res, this, subject);
    (res as WithStream)[OPEN_STREAM] = stream;
    stream.prevOpen = this.last;
    if (this.last) this.last.nextOpen = stream;
    else this.first = stream;
    this.last = stream;
    this.count++;
    return stream;
  }

  /** Frees the slot of a stream that closed. */
  release(stream: SseStream, res: ServerResponse): void {
    if ((res as WithStream)[OPEN_STREAM] !== stream) return;
    (res as WithStream)[OPEN_STREAM] = undefined;
    const { prevOpen, nextOpen } = stream;
    if (prevOpen) prevOpen.nextOpen = nextOpen;
    else this.first = nextOpen;
    if (nextOpen) nextOpen.prevOpen = prevOpen;
    else this.last = prevOpen;
    // a closed stream points at no other: one still in the old space keeps none of the younger alive
    stream.prevOpen = stream.nextOpen = undefined;
    this.count--;
    const left = (this.perCaller.get(stream.subject) ?? 1) - 1;
    if (left > 0) this.perCaller.set(stream.subject, left);
    else this.perCaller.delete(stream.subject);
  }

  get size(): number {
    return this.count;
  }

  /** Shutdown has begun: no new stream opens. */
  stopAccepting(): void {
    this.accepting = false;
  }

  /** Shutdown has begun (see {@link stopAccepting}). */
  get shuttingDown(): boolean {
    return !this.accepting;
  }

  /** Ends every stream (shutdown, after running tasks were given their final event). */
  closeAll(): void {
    clearInterval(this.timer);
    const open: SseStream[] = [];
    for (let stream = this.first; stream !== undefined; stream = stream.nextOpen) open.push(stream);
    open.forEach((s) => s.close());
  }
}
