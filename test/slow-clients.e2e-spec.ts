/**
 * Slow clients (issue 15): a client that trickles its headers or its body is cut by the server's
 * timeouts, which the module sets on the HTTP server it runs on, while SSE streams on the same
 * server stay open far longer than those timeouts (they apply to receiving a request, not to the
 * answer).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createParser } from 'eventsource-parser';
import { request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { A2AModule, type A2AModuleOptions } from 'nestjs-a2a';
import { waitUntil } from 'nestjs-a2a/testing';
import { startApp } from './support/custom-app.js';
import { WaitingAgent } from './support/waiting-agent.js';
import { currentPlatform, describeOnEachPlatform } from './support/platforms.js';
import type { RunningApp } from './support/demo-app.js';
import { V1, jsonRpcClient, userMessage, type Json } from './support/wire-client.js';

/** An SSE answer read as it arrives: its events and the heartbeat comments between them. */
interface OpenStream {
  readonly events: Json[];
  heartbeats: number;
  ended: boolean;
}

function openStream(url: string, method: 'GET' | 'POST', body?: string): Promise<OpenStream> {
  const stream: OpenStream = { events: [], heartbeats: 0, ended: false };
  const parser = createParser({ onEvent: (e) => stream.events.push(JSON.parse(e.data)) });
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, agent: false, headers: { ...V1, ...(body ? { 'content-type': 'application/json' } : {}) } }, (res: IncomingMessage) => {
      if (!String(res.headers['content-type']).startsWith('text/event-stream')) reject(new Error(`not a stream: HTTP ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        stream.heartbeats += text.split(': keep-alive\n\n').length - 1;
        parser.feed(text);
      });
      res.on('close', () => (stream.ended = true));
      resolve(stream);
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Trickled {
  /** The server closed the connection before the client had sent everything. */
  cut: boolean;
  piecesSent: number;
  received: string;
}

/** Sends `head`, then one `piece` every 50 ms, `pieces` at most, until the server closes the connection. */
function trickle(port: number, head: string, piece: string, pieces: number): Promise<Trickled> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let sent = 0;
    let closed = false;
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', () => undefined); // a reset after the cut
    socket.on('close', () => {
      closed = true;
      resolve({ cut: sent < pieces, piecesSent: sent, received });
    });
    socket.write(head);
    void (async () => {
      while (!closed && sent < pieces) {
        await sleep(50); // the pace of a slow client, not a wait for a condition
        if (!closed) socket.write(piece, () => undefined);
        sent++;
      }
      if (!closed) socket.destroy();
    })();
  });
}

describeOnEachPlatform('slow clients, with short server timeouts', () => {
  const HEADERS_TIMEOUT_MS = 500;
  const REQUEST_TIMEOUT_MS = 1000;
  const KEEP_ALIVE_MS = 4000;
  let running: RunningApp;
  let port: number;

  beforeAll(async () => {
    running = await startApp(
      A2AModule.forRoot({ httpServer: { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS, keepAliveTimeoutMs: KEEP_ALIVE_MS }, streaming: { heartbeatMs: 1000 } }),
      [WaitingAgent],
    );
    port = Number(new URL(running.url).port);
  });
  afterAll(() => running?.close());

  it('sets them on the server the app runs on', () => {
    const server = running.app.getHttpServer() as Server;
    expect([server.headersTimeout, server.requestTimeout, server.keepAliveTimeout]).toEqual([HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_MS]);
  });

  it('cuts trickled headers and a trickled body, while open streams (POST with a body, and GET) and a blocking SendMessage go on for many request timeouts', async () => {
    const sent = await openStream(`${running.url}/a2a/rest/message:stream`, 'POST', JSON.stringify({ message: userMessage('wait') }));
    await waitUntil(() => sent.events.length >= 2); // the task, then WORKING
    const taskId = sent.events[0].task.id as string;
    const subscribed = await openStream(`${running.url}/a2a/rest/tasks/${taskId}:subscribe`, 'GET');
    await waitUntil(() => subscribed.events.length >= 1);
    // a blocking SendMessage: its answer, too, comes long after its request was received
    const rpc = jsonRpcClient(`${running.url}/a2a/jsonrpc`);
    const blocking = rpc.call('SendMessage', { message: userMessage('wait') });
    const working = async () => ((await rpc.call('ListTasks', { status: 'TASK_STATE_WORKING' })).result?.tasks ?? []).map((t: Json) => t.id as string);
    await waitUntil(async () => (await working()).length === 2);
    const blockingTaskId = (await working()).find((id: string) => id !== taskId);

    // 400 pieces at 50 ms would take 20 s: the cut comes after about half a second
    const headers = await trickle(port, 'POST /a2a/jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: y\r\n', 400);
    expect(headers.cut).toBe(true);
    expect(headers.received).toMatch(/^HTTP\/1\.1 408 Request Timeout/);

    const head = `POST /a2a/jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: 1000\r\n\r\n`;
    const body = await trickle(port, head, ' ', 400);
    expect(body.cut).toBe(true);

    // both streams outlived the cuts and several request timeouts (a heartbeat a second), and are still open
    const heartbeatsAfterCuts = sent.heartbeats;
    await waitUntil(() => sent.heartbeats >= Math.max(4, heartbeatsAfterCuts + 2) && subscribed.heartbeats >= 4, { attempts: 200, intervalMs: 50 });
    expect(sent.heartbeats).toBeGreaterThanOrEqual(Math.max(4, heartbeatsAfterCuts + 2));
    expect(subscribed.heartbeats).toBeGreaterThanOrEqual(4);
    expect([sent.ended, subscribed.ended]).toEqual([false, false]);

    // and they end as streams do, at the task's final state; the blocking call answers then
    const canceled = await rpc.call('CancelTask', { id: taskId });
    expect(canceled.result.status.state).toBe('TASK_STATE_CANCELED');
    expect((await rpc.call('CancelTask', { id: blockingTaskId })).result.status.state).toBe('TASK_STATE_CANCELED');
    expect((await blocking).result.task.status.state).toBe('TASK_STATE_CANCELED');
    await waitUntil(() => sent.ended && subscribed.ended);
    expect(sent.events.at(-1).statusUpdate.status.state).toBe('TASK_STATE_CANCELED');
    expect(subscribed.events.at(-1).statusUpdate.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('still answers a client that sends at an ordinary pace on a kept-alive connection', async () => {
    const rpc = jsonRpcClient(`${running.url}/a2a/jsonrpc`);
    for (let i = 0; i < 3; i++) expect((await rpc.call('GetTask', { id: 'none' })).error?.reason).toBe('TASK_NOT_FOUND');
  });
});

/** The keep-alive a server has of its own: Node's on Express, Fastify's. */
const OWN_KEEP_ALIVE_MS = { express: 5000, fastify: 72_000 };

describeOnEachPlatform('server timeouts: defaults and choices', () => {
  it("defaults to 20 s for the headers and 60 s for a request, leaving the server's own keep-alive", async () => {
    const running = await startApp(A2AModule.forRoot(), [WaitingAgent]);
    const server = running.app.getHttpServer() as Server;
    const timeouts = [server.headersTimeout, server.requestTimeout, server.keepAliveTimeout];
    await running.close();
    expect(timeouts).toEqual([20_000, 60_000, OWN_KEEP_ALIVE_MS[currentPlatform()]]);
  });

  it('keeps the keep-alive the app gave its adapter or server, unless httpServer.keepAliveTimeoutMs is set', async () => {
    const keepAliveWith = async (options: A2AModuleOptions) => {
      @Module({ imports: [A2AModule.forRoot(options)], providers: [WaitingAgent] })
      class AppModule {}
      const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
      // as a host sets it: the Fastify adapter's option, or the Express server's property before listening
      const app =
        currentPlatform() === 'fastify'
          ? moduleRef.createNestApplication(new (await import('@nestjs/platform-fastify')).FastifyAdapter({ keepAliveTimeout: 120_000 }), { logger: false })
          : moduleRef.createNestApplication({ logger: false });
      if (currentPlatform() === 'express') (app.getHttpServer() as Server).keepAliveTimeout = 120_000;
      await app.listen(0, '127.0.0.1');
      const keepAlive = (app.getHttpServer() as Server).keepAliveTimeout;
      await app.close();
      return keepAlive;
    };
    expect(await keepAliveWith({})).toBe(120_000);
    expect(await keepAliveWith({ httpServer: { keepAliveTimeoutMs: 65_000 } })).toBe(65_000);
  });

  it('leaves the server as the host set it with httpServer: false', async () => {
    const running = await startApp(A2AModule.forRoot({ httpServer: false }), [WaitingAgent]);
    const server = running.app.getHttpServer() as Server;
    // Node 20's own values; Fastify's own request (none) and keep-alive (72 s) timeouts
    const hostSet = currentPlatform() === 'express' ? [60_000, 300_000, 5000] : [60_000, 0, 72_000];
    expect([server.headersTimeout, server.requestTimeout, server.keepAliveTimeout]).toEqual(hostSet);
    await running.close();
  });
});
