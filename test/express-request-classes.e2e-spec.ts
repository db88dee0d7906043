/**
 * On Express, the module has the HTTP server make its requests and responses with the Express app's
 * own prototypes (issue 14), so Express's `setPrototypeOf` on each of them changes nothing (it gave
 * every request hidden classes of its own). The host's routes and middleware, the A2A routes and
 * Express's own API work as before; `httpServer: false` leaves the server's classes alone.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { Controller, Get, Injectable, Module, Req, Res, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import { A2AAgent, A2AModule, type A2AModuleOptions, type AgentExecutor, type TaskContext } from 'nestjs-a2a';
import { createTestApp } from './support/platforms.js';
import { jsonRpcClient, userMessage } from './support/wire-client.js';

interface ExpressApp {
  request: object;
  response: object;
}

@A2AAgent({ name: 'alpha', description: 'Completes at once', skills: [{ id: 'a', name: 'A', description: 'a', tags: ['a'] }] })
@Injectable()
class AlphaAgent implements AgentExecutor {
  async execute(ctx: TaskContext) {
    await ctx.complete();
  }
}

/** A host route using Express's own request and response API. */
@Controller('host')
class HostController {
  @Get('echo')
  echo(@Req() req: IncomingMessage & { get(name: string): string | undefined; path: string }, @Res() res: ServerResponse & { status(code: number): { json(body: unknown): void } }) {
    res.status(203).json({ header: req.get('x-probe'), path: req.path });
  }
}

/** Whether each request and response had the app's prototype already when node handed them to the app, before Express touched them. */
interface Made {
  request: boolean;
  response: boolean;
}

describe('the requests and responses of an Express app', () => {
  let app: INestApplication | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function start(options: A2AModuleOptions): Promise<{ url: string; made: Made[]; express: ExpressApp }> {
    @Module({ imports: [A2AModule.forRoot(options)], providers: [AlphaAgent], controllers: [HostController] })
    class AppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = await createTestApp(moduleRef, { platform: 'express', logger: false });
    await app.init();
    const express = app.getHttpAdapter().getInstance() as ExpressApp;
    const made: Made[] = [];
    // the first listener: it sees the request and response as node made them
    (app.getHttpServer() as Server).prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      made.push({ request: Object.getPrototypeOf(req) === express.request, response: Object.getPrototypeOf(res) === express.response });
    });
    await app.listen(0, '127.0.0.1');
    return { url: await app.getUrl(), made, express };
  }

  async function exercise(url: string): Promise<void> {
    const host = await fetch(`${url}/host/echo`, { headers: { 'x-probe': 'seen' } });
    expect(host.status).toBe(203);
    expect(await host.json()).toEqual({ header: 'seen', path: '/host/echo' });
    const answer = await jsonRpcClient(`${url}/a2a/jsonrpc`).call('SendMessage', { message: userMessage('hi') });
    expect(answer.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  }

  it("are made with the app's prototypes, and every route works as before", async () => {
    const { url, made, express } = await start({});
    await exercise(url);
    expect(made.length).toBeGreaterThanOrEqual(2);
    expect(made.every((m) => m.request && m.response)).toBe(true);
    // still node's, with Express's API on top, and named as node's (in logs and heap snapshots)
    expect(Object.getPrototypeOf(express.request)).toBeInstanceOf(IncomingMessage);
    expect(Object.getPrototypeOf(express.response)).toBeInstanceOf(ServerResponse);
    expect((express.request as { constructor: { name: string } }).constructor.name).toBe('IncomingMessage');
    expect((express.response as { constructor: { name: string } }).constructor.name).toBe('ServerResponse');
  });

  it('are left to node with httpServer: false', async () => {
    const { url, made } = await start({ httpServer: false });
    await exercise(url);
    expect(made.length).toBeGreaterThanOrEqual(2);
    expect(made.some((m) => m.request || m.response)).toBe(false);
  });
});
