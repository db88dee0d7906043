/**
 * Draining the HTTP server at shutdown, through Node's `http.Server` (what Express and Fastify both
 * run on). `server.close()` alone stops listening but keeps every busy keep-alive connection: its
 * clients go on sending requests on it for as long as they like. So, while draining, every answer
 * carries `Connection: close` (Node then closes the connection once it is written), connections
 * that fall idle are closed as they do, and whatever is left is closed at the deadline.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** How often connections that have fallen idle (their answer written, keep-alive) are closed. */
const IDLE_SWEEP_MS = 100;

export class ConnectionDrain {
  private readonly closed: Promise<void>;
  private readonly sweep: NodeJS.Timeout;
  private readonly markClose = (_req: IncomingMessage, res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };

  /** Stops accepting connections now; idle ones are closed at once, busy ones once their answer is written. */
  constructor(private readonly server: Server) {
    // before the app's own listener, so the header is there whatever writes the answer
    server.prependListener('request', this.markClose);
    this.closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    this.sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    this.sweep.unref();
  }

  /** Waits up to `waitMs` for the connections to end by themselves, then closes those left (streams, slow answers). */
  async finish(waitMs: number): Promise<void> {
    const timer = new AbortController();
    await Promise.race([this.closed, sleep(waitMs, undefined, { signal: timer.signal }).catch(() => undefined)]);
    timer.abort();
    clearInterval(this.sweep);
    this.server.closeAllConnections();
    this.server.off('request', this.markClose);
  }
}
