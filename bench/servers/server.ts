/**
 * One server under test, in a process of its own (so its RSS is its own and the load generator,
 * in the parent, shares neither its heap nor its event loop). The parent forks this file with the
 * server to start in `BENCH_SERVER` (a {@link ServerSpec} as JSON) and talks to it over IPC
 * (../support/server-process.ts is the parent's side; the messages are {@link ServerRequest}s).
 *
 * The servers:
 *   - `ours`: a Nest app importing `A2AModule.forRoot` with the bench agent, on Express or Fastify,
 *     in memory or on Redis (`redis`: the URL and a key prefix of the run), configured as the demo
 *     is by default: `v03` on, and OpenTelemetry's metrics SDK recording the library's metrics;
 *   - `sdk`: the official SDK's express app, its JSON-RPC and REST handlers over a
 *     `DefaultRequestHandler` with its `InMemoryTaskStore`;
 *   - `ceiling`: a bare Nest app on Express or Fastify whose two routes answer a fixed Message (what
 *     the framework itself costs: body parsing, routing, serialisation);
 *   - `raw`: node:http answering the same fixed Message, no framework (read, parse, answer): a check
 *     on the load generator, which reaches at least the highest rate any server shows.
 *
 * The agents on `ours` and `sdk` are the lifecycle scenarios' (../support/lifecycle.ts): the same
 * work for the same text; `msg …` is answered with a Message, `hold <n> …` is a task held until the
 * parent says `release` (the subject of the SubscribeToTask scenarios), any other text a task with
 * one artifact. ../support/wire.ts builds the requests and checks the answers.
 */
import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Body, Controller, HttpCode, Module, Post, type INestApplication, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { JSON_RPC_PATH, KEEP_ALIVE_MS, REST_PATH } from '../support/http.js';
import { heldTasks, lifecycleModule, sdkRequestHandler } from '../support/lifecycle.js';
import { FIXED_MESSAGE, SERVER_ENV, type ServerReply, type ServerRequest, type ServerSpec } from '../support/wire.js';

/** Errors and warnings reach stderr (the parent counts the lines): a server that complains per request shows it. */
const LOG_LEVELS: LogLevel[] = ['error', 'warn'];
/**
 * The demo's stream limits: every caller of the bench shares one subject (no authentication), so the
 * per-caller limit (1,000 by default) is raised as the option's doc says; `--streams` up to 20,000.
 */
const STREAMING = { maxStreams: 50_000, maxStreamsPerCaller: 20_000 };

// ---------------------------------------------------------------- ours

async function ours(spec: ServerSpec): Promise<INestApplication> {
  // configured as the demo is by default (what users start first, and what is judged): 0.3 served
  // beside 1.0, and the library's metrics recorded by OpenTelemetry's SDK for a Prometheus scrape
  if (!metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new PrometheusExporter({ preventServerStart: true })] }))) {
    throw new Error('a meter provider was registered already');
  }
  const module = lifecycleModule(spec.redis, undefined, STREAMING, true);
  // as the demo does: no JSON routes of its own, so the module reads the bodies with its limits
  const options = { bodyParser: false, logger: LOG_LEVELS, abortOnError: false };
  return spec.platform === 'fastify'
    ? NestFactory.create(module, new FastifyAdapter({ keepAliveTimeout: KEEP_ALIVE_MS }), options)
    : NestFactory.create(module, options);
}

// ---------------------------------------------------------------- the official SDK

function sdk(): Server {
  const requestHandler = sdkRequestHandler();
  const app = express();
  app.use(JSON_RPC_PATH, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use(REST_PATH, restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  return createServer(app);
}

// ---------------------------------------------------------------- the ceiling

async function ceiling(spec: ServerSpec): Promise<INestApplication> {
  // a literal colon in a route: Fastify doubles it, Express 5 escapes it
  const send = spec.platform === 'fastify' ? 'message::send' : 'message\\:send';

  @Controller()
  class FixedAnswerController {
    @Post(JSON_RPC_PATH)
    @HttpCode(200)
    jsonRpc(@Body() body: { id?: unknown }) {
      return { jsonrpc: '2.0', id: body?.id ?? null, result: { message: FIXED_MESSAGE } };
    }

    @Post(`${REST_PATH}/${send}`)
    @HttpCode(200)
    rest() {
      return { message: FIXED_MESSAGE };
    }
  }

  @Module({ controllers: [FixedAnswerController] })
  class CeilingModule {}
  const options = { logger: LOG_LEVELS, abortOnError: false };
  return spec.platform === 'fastify'
    ? NestFactory.create(CeilingModule, new FastifyAdapter({ keepAliveTimeout: KEEP_ALIVE_MS }), options)
    : NestFactory.create(CeilingModule, options);
}

function raw(): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let id: unknown = null;
      try {
        id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }).id ?? null;
      } catch {
        // a fixed answer either way
      }
      const answer = req.url === JSON_RPC_PATH ? { jsonrpc: '2.0', id, result: { message: FIXED_MESSAGE } } : { message: FIXED_MESSAGE };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
}

// ---------------------------------------------------------------- start, then answer the parent

async function start(spec: ServerSpec): Promise<{ origin: string; close(): Promise<void> }> {
  if (spec.stack === 'sdk' || spec.stack === 'raw') {
    const server = spec.stack === 'sdk' ? sdk() : raw();
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    return {
      origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => new Promise((resolve) => server.close(() => resolve()).closeAllConnections()),
    };
  }
  const app = spec.stack === 'ours' ? await ours(spec) : await ceiling(spec);
  try {
    if (spec.platform === 'express') (app.getHttpServer() as Server).keepAliveTimeout = KEEP_ALIVE_MS;
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    return { origin: `http://127.0.0.1:${port}`, close: () => app.close() };
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

function reply(message: ServerReply): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.env[SERVER_ENV] ?? '{}') as ServerSpec;
  let server: Awaited<ReturnType<typeof start>>;
  try {
    server = await start(spec);
  } catch (error) {
    // the reason, not the stack: the parent prints it as "not available yet (<reason>)" where that applies
    reply({ type: 'failed', reason: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    process.exit(1);
  }
  process.on('message', (request: ServerRequest) => {
    switch (request.type) {
      case 'memory': {
        // a few full collections: what is still there is held, not garbage waiting
        for (let i = 0; i < 4; i++) gc();
        const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
        return reply({ type: 'memory', id: request.id, memory: { rss, heapUsed, heapTotal, external } });
      }
      case 'held':
        return void heldTasks.whenAtLeast(request.atLeast).then(() => reply({ type: 'held', id: request.id }));
      case 'release':
        heldTasks.release();
        return reply({ type: 'released', id: request.id });
      case 'close':
        void server.close().finally(() => process.exit(0));
        return;
    }
  });
  process.on('disconnect', () => void server.close().finally(() => process.exit(0)));
  reply({ type: 'ready', origin: server.origin });
}

void main();
