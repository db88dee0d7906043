/** ConnectionDrain on the node server under both platforms Nest runs on, with real keep-alive clients on 127.0.0.1. */
import { afterEach, describe, expect, it } from '@jest/globals';
import { Controller, Get, Module, Res, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Agent, get, type IncomingMessage, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { responseOf } from './platform-exchange.js';
import { ConnectionDrain } from './connection-drain.js';

@Controller()
class PlainController {
  @Get('fast')
  fast() {
    return { ok: true };
  }

  @Get('slow')
  async slow() {
    await sleep(400);
    return { ok: true };
  }

  /** Never ends by itself, like an SSE stream. */
  @Get('endless')
  endless(@Res() res: unknown) {
    const raw = responseOf(res);
    raw.writeHead(200, { 'content-type': 'text/plain' });
    raw.write('open\n');
  }
}

@Module({ controllers: [PlainController] })
class PlainModule {}

const platforms: Array<[string, () => Promise<INestApplication>]> = [
  ['Express', () => NestFactory.create(PlainModule, { logger: false })],
  ['Fastify', () => NestFactory.create(PlainModule, new FastifyAdapter(), { logger: false })],
];

/** A GET on a keep-alive agent of one socket: the answer, and when its socket closed. */
function fetchOn(agent: Agent, url: string): Promise<{ res: IncomingMessage; socketClosed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (res) => {
      const socketClosed = new Promise<number>((done) => res.socket.once('close', () => done(Date.now())));
      res.resume();
      res.on('end', () => resolve({ res, socketClosed }));
    }).on('error', reject);
  });
}

let app: INestApplication | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe.each(platforms)('ConnectionDrain on %s', (_, create) => {
  async function started(): Promise<{ url: string; server: Server }> {
    app = await create();
    await app.listen(0, '127.0.0.1');
    const server = app.getHttpServer() as Server;
    const { port } = server.address() as { port: number };
    return { url: `http://127.0.0.1:${port}`, server };
  }

  it('closes idle keep-alive connections at once and refuses new ones', async () => {
    const { url, server } = await started();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const { res, socketClosed } = await fetchOn(agent, `${url}/fast`);
    expect(res.headers.connection).toBe('keep-alive');
    const t0 = Date.now();
    const drain = new ConnectionDrain(server);
    expect((await socketClosed) - t0).toBeLessThan(500);
    await expect(fetchOn(new Agent(), `${url}/fast`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await drain.finish(1_000);
    agent.destroy();
  });

  it('lets an answer in flight be written, then closes its connection', async () => {
    const { url, server } = await started();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const inFlight = fetchOn(agent, `${url}/slow`);
    await sleep(100);
    const drain = new ConnectionDrain(server);
    const { res, socketClosed } = await inFlight;
    expect(res.statusCode).toBe(200);
    const answeredAt = Date.now();
    expect((await socketClosed) - answeredAt).toBeLessThan(500);
    await drain.finish(1_000);
    agent.destroy();
  });

  it('closes what is still open at the end (a stream), and the app then closes without hanging', async () => {
    const { url, server } = await started();
    const closed = new Promise<number>((resolve) => {
      get(`${url}/endless`, (res) => {
        res.resume();
        res.socket.once('close', () => resolve(Date.now()));
      });
    });
    await sleep(100);
    const drain = new ConnectionDrain(server);
    await sleep(300);
    const t0 = Date.now();
    await drain.finish(200);
    expect((await closed) - t0).toBeLessThan(1_000);
    const closing = Date.now();
    await app!.close();
    app = undefined;
    expect(Date.now() - closing).toBeLessThan(1_000);
  });
});
