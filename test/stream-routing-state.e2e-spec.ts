/**
 * An open stream on Express holds less (issue 14: memory per open stream): once its headers are out,
 * the router's per-request continuation (`req.next`, which holds the router's walk and Express's final
 * handler) and parseurl's cache (`req._parsedUrl`) are let go, while a host's logger on `finish` still
 * reads the request as before. A unary answer keeps them: only the stream, which lives on, lets go.
 * The headers the stream sent are kept in an ordinary object instead of node's dictionary, and read
 * the same.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { A2AModule } from 'nestjs-a2a';
import { waitUntil } from 'nestjs-a2a/testing';
import { createTestApp } from './support/platforms.js';
import { WaitingAgent } from './support/waiting-agent.js';
import { jsonRpcClient, userMessage } from './support/wire-client.js';

/** V8's own view of an object: an ordinary one (true), or a dictionary (false). */
setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
/** One string in memory (true), or two with the same text. */
const sameHeapObject = new Function('a', 'b', 'return %IsSameHeapObject(a, b)') as (a: unknown, b: unknown) => boolean;
setFlagsFromString('--no-allow-natives-syntax');

/** node's headers of a response, under its own symbol. */
const sentHeadersOf = (res: ServerResponse) => {
  const key = Object.getOwnPropertySymbols(res).find((symbol) => symbol.description === 'kOutHeaders')!;
  return (res as unknown as Record<symbol, object>)[key];
};

type ExpressRequest = IncomingMessage & { next?: unknown; _parsedUrl?: unknown; originalUrl: string; path: string };

/** What a host's request logger saw of one request: the request itself, and what it read on `finish`. */
interface Logged {
  req: ExpressRequest;
  finished?: { method?: string; url: string; path: string; status: number };
}

describe('an open stream on Express', () => {
  let app: INestApplication | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  /** An Express app with the module and a waiting agent behind `middleware` (a host's); its client and a task that waits. */
  async function waitingTaskBehind(middleware: (req: never, res: ServerResponse, next: () => void) => void) {
    @Module({ imports: [A2AModule.forRoot()], providers: [WaitingAgent] })
    class AppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = await createTestApp(moduleRef, { platform: 'express', bodyParser: false, logger: false });
    app.use(middleware);
    await app.listen(0, '127.0.0.1');
    const client = jsonRpcClient(`${await app.getUrl()}/a2a/jsonrpc`);
    const created = await client.call('SendMessage', { message: userMessage('wait'), configuration: { returnImmediately: true } });
    return { client, taskId: created.result.task.id as string };
  }

  it("lets go of the router's continuation and URL cache, and a host logger on finish still reads the request", async () => {
    const logged: Logged[] = [];
    // a host's request logger, as apps write them: it reads the request once the answer is done
    const { client, taskId } = await waitingTaskBehind((req: ExpressRequest, res: ServerResponse, next: () => void) => {
      const entry: Logged = { req };
      logged.push(entry);
      res.on('finish', () => {
        entry.finished = { method: req.method, url: req.originalUrl, path: req.path, status: res.statusCode };
      });
      next();
    });
    // the module's own start-up look at its card passes the logger too
    const unary = logged.filter((entry) => entry.req.method === 'POST').at(-1)!;
    await waitUntil(() => unary.finished !== undefined);
    // a unary answer is over: nothing of it lives on, nothing is let go
    expect(typeof unary.req.next).toBe('function');

    const before = logged.length;
    const stream = client.stream('SubscribeToTask', { id: taskId });
    await waitUntil(() => (logged[before]?.req as { res?: ServerResponse } | undefined)?.res?.headersSent === true);
    const subscribe = logged[before];
    await waitUntil(() => subscribe.req.next === undefined);
    expect(subscribe.req.next).toBeUndefined();
    expect(subscribe.req._parsedUrl).toBeUndefined();
    expect(subscribe.finished).toBeUndefined();

    await client.call('CancelTask', { id: taskId });
    const { status, events } = await stream;
    expect(status).toBe(200);
    expect(events.at(-1)?.data.statusUpdate?.status?.state ?? events.at(-1)?.data.task?.status?.state).toBe('TASK_STATE_CANCELED');
    await waitUntil(() => subscribe.finished !== undefined);
    // parsed again from the URL when asked
    expect(subscribe.finished).toEqual({ method: 'POST', url: '/a2a/jsonrpc', path: '/a2a/jsonrpc', status: 200 });
  });

  it('keeps the headers a stream sent in an ordinary object, and a host reads them as before', async () => {
    const responses: ServerResponse[] = [];
    // a host middleware that sets a header of its own before the module answers
    const { client, taskId } = await waitingTaskBehind((req: IncomingMessage, res: ServerResponse, next: () => void) => {
      if (req.method === 'POST') {
        res.setHeader('X-Request-Tag', 'host');
        responses.push(res);
      }
      next();
    });

    const streams = [client.stream('SubscribeToTask', { id: taskId }), client.stream('SubscribeToTask', { id: taskId })];
    await waitUntil(() => responses.length === 3 && responses.slice(1).every((res) => res.headersSent && hasFastProperties(sentHeadersOf(res))));
    const [first, second] = responses.slice(1);
    // a unary answer's are node's own, as they were
    expect(hasFastProperties(sentHeadersOf(responses[0]))).toBe(false);
    // so are its listeners; a stream's are in an ordinary object too, and heard as before
    const listenersOf = (res: ServerResponse) => (res as unknown as { _events: object })._events;
    expect(hasFastProperties(listenersOf(responses[0]))).toBe(false);
    for (const res of [first, second]) {
      expect(hasFastProperties(listenersOf(res))).toBe(true);
      expect(Object.getPrototypeOf(listenersOf(res))).toBeNull();
      expect(res.listenerCount('close')).toBeGreaterThan(0);
    }
    const expected = {
      'x-powered-by': 'Express',
      'x-request-tag': 'host',
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-content-type-options': 'nosniff',
      'a2a-version': '1.0',
    };
    for (const res of [first, second]) {
      expect({ ...res.getHeaders() }).toEqual(expected);
      expect(res.getHeaderNames()).toEqual(Object.keys(expected));
      expect((res as ServerResponse & { getRawHeaderNames(): string[] }).getRawHeaderNames()).toEqual(['X-Powered-By', 'X-Request-Tag', 'Content-Type', 'Cache-Control', 'Connection', 'X-Accel-Buffering', 'X-Content-Type-Options', 'A2A-Version']);
      expect(res.getHeader('Content-Type')).toBe('text/event-stream');
      expect(res.hasHeader('x-request-tag')).toBe(true);
      // still no prototype: names of Object's own properties are no headers
      expect(res.hasHeader('constructor')).toBe(false);
      expect(res.getHeader('__proto__')).toBeUndefined();
      // and node still refuses a change once they are out
      expect(() => res.setHeader('X-Late', '1')).toThrow(expect.objectContaining({ code: 'ERR_HTTP_HEADERS_SENT' }));
      expect(() => res.appendHeader('X-Request-Tag', '2')).toThrow(expect.objectContaining({ code: 'ERR_HTTP_HEADERS_SENT' }));
    }
    // the second stream shares the first's entries where they are equal
    const [firstEntries, secondEntries] = [first, second].map((res) => sentHeadersOf(res) as Record<string, unknown>);
    expect(secondEntries['content-type']).toBe(firstEntries['content-type']);
    expect(Object.isFrozen(firstEntries['content-type'])).toBe(true);

    await client.call('CancelTask', { id: taskId });
    for (const { status, events } of await Promise.all(streams)) {
      expect(status).toBe(200);
      expect(events.at(-1)?.data.statusUpdate?.status?.state ?? events.at(-1)?.data.task?.status?.state).toBe('TASK_STATE_CANCELED');
    }
    expect(first.getHeader('a2a-version')).toBe('1.0');
  });

  it('shares the text of the headers sent between streams whose headers are the same (opened in the same second)', async () => {
    const responses: ServerResponse[] = [];
    const { client, taskId } = await waitingTaskBehind((req: IncomingMessage, res: ServerResponse, next: () => void) => {
      if (req.method === 'POST') responses.push(res);
      next();
    });

    // three at once: at least two of them open within the same second (their Date headers are equal)
    const streams = [1, 2, 3].map(() => client.stream('SubscribeToTask', { id: taskId }));
    await waitUntil(() => responses.length === 4 && responses.slice(1).every((res) => res.headersSent));
    const texts = responses.slice(1).map((res) => (res as ServerResponse & { _header: string })._header);
    const pairs = [0, 1].map((i) => [texts[i], texts[i + 1]]).filter(([a, b]) => a === b);
    expect(pairs.length).toBeGreaterThan(0);
    for (const [a, b] of pairs) expect(sameHeapObject(a, b)).toBe(true);
    expect(texts[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*Content-Type: text\/event-stream\r\n/);

    await client.call('CancelTask', { id: taskId });
    for (const { status } of await Promise.all(streams)) expect(status).toBe(200);
  });
});
