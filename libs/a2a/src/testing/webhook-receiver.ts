/**
 * A webhook receiver for tests and benchmarks: a node:http server on 127.0.0.1 (never another
 * address) that records every request and answers as a script says: a status, headers, a body,
 * after a stall, trickled byte by byte, or with the connection cut.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ReceivedNotification {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  readonly json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** `webhook-id` header. */
  readonly webhookId: string;
  /** ms since the epoch, when the body was read. */
  readonly at: number;
}

/** How to answer one request. Default: 200 with an empty body. */
export interface ReceiverReply {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Wait this long before answering at all (a stalled receiver). */
  readonly delayMs?: number;
  /** Send the body one byte every this many ms (a trickling receiver). */
  readonly trickleMs?: number;
  /** Cut the connection instead of answering. */
  readonly destroy?: boolean;
}

/** `nth`: how many earlier requests carried the same `webhook-id` (0 for the first attempt). */
export type ReceiverScript = (request: ReceivedNotification, nth: number) => ReceiverReply | undefined;

export interface WebhookReceiver {
  readonly port: number;
  /** `http://127.0.0.1:<port><path>` */
  url(path?: string): string;
  /** Every request, in arrival order. */
  readonly received: ReceivedNotification[];
  /** What answers from now on. */
  script: ReceiverScript;
  /** Requests whose path is `path`. */
  on(path: string): ReceivedNotification[];
  /** Resolves once `until(received)` holds; rejects after `timeoutMs` with what arrived. */
  waitFor(until: (received: readonly ReceivedNotification[]) => boolean, timeoutMs?: number): Promise<ReceivedNotification[]>;
  close(): Promise<void>;
}

/**
 * Starts a receiver on 127.0.0.1 (an ephemeral port); `script` says how to answer the nth request
 * to a path (default: 200, empty body). `url(path)` is the webhook URL to register.
 * @publicApi
 */
export async function startWebhookReceiver(script: ReceiverScript = () => undefined): Promise<WebhookReceiver> {
  const received: ReceivedNotification[] = [];
  const seen = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const webhookId = String(req.headers['webhook-id'] ?? '');
      const request: ReceivedNotification = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json, webhookId, at: Date.now() };
      received.push(request);
      const nth = seen.get(webhookId) ?? 0;
      seen.set(webhookId, nth + 1);
      void answer(res, receiver.script(request, nth) ?? {});
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };

  const receiver: WebhookReceiver = {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    script,
    on: (path) => received.filter((r) => r.path === path),
    async waitFor(until, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!until(received)) {
        if (Date.now() > deadline) {
          throw new Error(`the receiver did not get what was expected within ${timeoutMs} ms; it got ${received.length} requests: ${received.map((r) => `${r.path} ${r.webhookId}`).join(', ')}`);
        }
        await sleep(10);
      }
      return [...received];
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

async function answer(res: ServerResponse, reply: ReceiverReply): Promise<void> {
  try {
    if (reply.delayMs) await sleep(reply.delayMs);
    if (reply.destroy) {
      res.socket?.destroy();
      return;
    }
    res.writeHead(reply.status ?? 200, reply.headers);
    const body = reply.body ?? '';
    if (!reply.trickleMs) {
      res.end(body);
      return;
    }
    for (const byte of Buffer.from(body)) {
      if (res.destroyed) return;
      res.write(Buffer.from([byte]));
      await sleep(reply.trickleMs);
    }
    res.end();
  } catch {
    // the client went away (deadline, shutdown): nothing to answer
  }
}
