/** Open SSE streams: limits (overall and per caller), one shared heartbeat, back-pressure, clean-up. */
import { Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { ResourceExhaustedError, UnavailableError } from '../../protocol/errors.js';
import { SSE_HEADERS, SSE_HEARTBEAT } from '../../protocol/sse.js';
import { InjectA2AOptions } from '../../config/a2a.constants.js';
import type { ResolvedServerOptions } from '../server-options.js';

/** One open stream. Writes wait for the socket to drain, so a slow client cannot grow memory. */
export class SseStream {
  private opened = false;
  private closed = false;

  /** `slots` and `subject` rather than a closure that frees the slot: one object less per open stream. */
  constructor(
    private readonly res: ServerResponse,
    private readonly slots: SseStreams,
    readonly subject: string,
  ) {}

  /** Sends the status line and headers (HTTP 200, text/event-stream). */
  open(extraHeaders: Record<string, string>): void {
    this.opened = true;
    this.res.writeHead(200, { ...SSE_HEADERS, ...extraHeaders });
    this.res.flushHeaders();
  }

  /**
   * Writes `chunk`; a promise when the socket did not take it at once (resolves on `drain` or
   * `close`), undefined when it did: no promise per event while the client keeps up.
   */
  write(chunk: string): Promise<void> | undefined {
    if (this.closed || this.res.writableEnded || this.res.destroyed) return undefined;
    if (this.res.write(chunk)) return undefined;
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

  /** Calls `stop` when the client has gone (at once if it has already), or once the stream closed and ended. */
  onClientGone(stop: () => void): void {
    if (this.res.destroyed) stop();
    else this.res.once('close', stop);
  }

  /**
   * A heartbeat is dropped rather than queued behind a slow client, and never sent before the
   * headers (it would send Node's implicit ones, without the event-stream type).
   */
  heartbeat(): void {
    if (this.opened && !this.closed && !this.res.writableEnded && this.res.writableLength === 0) this.res.write(SSE_HEARTBEAT);
  }

  /** Frees the slot; ends the response if the stream was opened (an unopened one may still answer an error). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.slots.release(this);
    if (this.opened && !this.res.writableEnded) this.res.end();
  }
}

@Injectable()
export class SseStreams {
  private readonly open = new Set<SseStream>();
  private readonly perCaller = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private accepting = true;

  constructor(@InjectA2AOptions() private readonly options: ResolvedServerOptions) {
    this.timer = setInterval(() => this.open.forEach((s) => s.heartbeat()), options.streaming.heartbeatMs);
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
    if (this.open.size >= maxStreams || mine >= maxStreamsPerCaller) {
      throw new ResourceExhaustedError('Too many open streams; close one and try again');
    }
    this.perCaller.set(subject, mine + 1);
    const stream = new SseStream(res, this, subject);
    this.open.add(stream);
    return stream;
  }

  /** Frees the slot of a stream that closed. */
  release(stream: SseStream): void {
    if (!this.open.delete(stream)) return;
    const left = (this.perCaller.get(stream.subject) ?? 1) - 1;
    if (left > 0) this.perCaller.set(stream.subject, left);
    else this.perCaller.delete(stream.subject);
  }

  get size(): number {
    return this.open.size;
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
    [...this.open].forEach((s) => s.close());
  }
}
