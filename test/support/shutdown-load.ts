/**
 * Load for shutdown tests, over real HTTP on 127.0.0.1: open SSE streams read as they arrive, and
 * clients that send request after request on one keep-alive connection each (as the clients of a
 * server behind a load balancer do), recording what answered after a given moment.
 */
import { request, Agent, type IncomingHttpHeaders } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { userMessage, V1 } from './wire-client.js';

/** An SSE stream of `message:stream`, read event by event. */
export interface OpenStream {
  readonly events: EventSourceMessage[];
  /** Resolves once at least `n` events arrived (or the stream ended first). */
  received(n: number): Promise<void>;
  /** Resolves when the stream ends: `end` (the server ended it) or `error` (the connection was cut). */
  readonly ended: Promise<'end' | 'error'>;
}

/** POSTs `body` to `url` and reads the SSE answer as it comes. */
export function openStream(url: string, body: unknown, headers: Record<string, string> = {}): OpenStream {
  const events: EventSourceMessage[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const wake = (all = false) => {
    for (const w of [...waiters]) if (all || events.length >= w.n) (waiters.splice(waiters.indexOf(w), 1), w.resolve());
  };
  const parser = createParser({ onEvent: (event) => (events.push(event), wake()) });
  const ended = new Promise<'end' | 'error'>((resolve) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...V1, ...headers } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => parser.feed(chunk));
      res.on('end', () => resolve('end'));
      res.on('error', () => resolve('error'));
      res.on('aborted', () => resolve('error'));
    });
    req.on('error', () => resolve('error'));
    req.end(JSON.stringify(body));
  }).finally(() => wake(true));
  return {
    events,
    ended,
    received: (n) => (events.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
  };
}

/** `message:stream` of the REST binding at `base` (`http://127.0.0.1:port`), for the demo's `text`. */
export function streamTask(base: string, text: string): OpenStream {
  return openStream(`${base}/a2a/rest/message:stream`, { message: userMessage(text) });
}

/** One answer a looping client got. */
export interface LoopAnswer {
  readonly at: number;
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
}

/** A client sending one request after another on one keep-alive connection, until one fails. */
export interface LoopClient {
  readonly answers: LoopAnswer[];
  /** Resolves with the time and code of the first failed request (refused, reset …). */
  readonly stopped: Promise<{ at: number; code: string }>;
}

/**
 * Loops `SendMessage` (REST, blocking) of the demo's `text` against `base` on a keep-alive agent
 * of one socket, until a request fails: the server refused or cut the connection.
 */
export function loopClient(base: string, text: string): LoopClient {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const answers: LoopAnswer[] = [];
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(`${base}/a2a/rest/message:send`, { method: 'POST', agent, headers: { 'content-type': 'application/json', ...V1 } }, (res) => {
        res.resume();
        res.on('end', () => (answers.push({ at: Date.now(), status: res.statusCode ?? 0, headers: res.headers }), resolve()));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(JSON.stringify({ message: userMessage(text) }));
    });
  const stopped = (async () => {
    for (;;) {
      try {
        await once();
      } catch (error) {
        agent.destroy();
        return { at: Date.now(), code: (error as NodeJS.ErrnoException).code ?? 'error' };
      }
    }
  })();
  return { answers, stopped };
}
