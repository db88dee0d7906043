/**
 * An open stream on Express holds less (issue 14: memory per open stream): once its headers are out,
 * the router's per-request continuation (`req.next`, which holds the router's walk and Express's final
 * handler) and parseurl's cache (`req._parsedUrl`) are let go, while a host's logger on `finish` still
 * reads the request as before. A unary answer keeps them: only the stream, which lives on, lets go.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { A2AModule } from 'nestjs-a2a';
import { waitUntil } from 'nestjs-a2a/testing';
import { createTestApp } from './support/platforms.js';
import { WaitingAgent } from './support/waiting-agent.js';
import { jsonRpcClient, userMessage } from './support/wire-client.js';

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

  it("lets go of the router's continuation and URL cache, and a host logger on finish still reads the request", async () => {
    @Module({ imports: [A2AModule.forRoot()], providers: [WaitingAgent] })
    class AppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = await createTestApp(moduleRef, { platform: 'express', bodyParser: false, logger: false });
    const logged: Logged[] = [];
    // a host's request logger, as apps write them: it reads the request once the answer is done
    app.use((req: ExpressRequest, res: ServerResponse, next: () => void) => {
      const entry: Logged = { req };
      logged.push(entry);
      res.on('finish', () => {
        entry.finished = { method: req.method, url: req.originalUrl, path: req.path, status: res.statusCode };
      });
      next();
    });
    await app.listen(0, '127.0.0.1');
    const client = jsonRpcClient(`${await app.getUrl()}/a2a/jsonrpc`);

    const created = await client.call('SendMessage', { message: userMessage('wait'), configuration: { returnImmediately: true } });
    const taskId: string = created.result.task.id;
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
});
