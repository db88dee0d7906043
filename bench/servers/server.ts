/**
 * One server under test, in a process of its own (so its RSS is its own and the load generator,
 * in the parent, shares neither its heap nor its event loop). The parent forks this file with the
 * server to start in `BENCH_SERVER` (a {@link ServerSpec} as JSON) and talks to it over IPC
 * (../support/server-process.ts is the parent's side; the messages are {@link ServerRequest}s).
 *
 * The servers:
 *   - `ours`: a Nest app importing `A2AModule.forRoot` with the bench agent, on Express or Fastify,
 *     in memory or on Redis (`redis`: the URL and a key prefix of the run);
 *   - `sdk`: the official SDK's express app, its JSON-RPC and REST handlers over a
 *     `DefaultRequestHandler` with its `InMemoryTaskStore`;
 *   - `ceiling`: a bare Nest app on Express or Fastify whose two routes answer a fixed Message (what
 *     the framework itself costs: body parsing, routing, serialisation);
 *   - `raw`: node:http answering the same fixed Message, no framework: the rate the load generator
 *     reaches, so a ceiling close to it is known to be the client's, not the server's.
 *
 * The agents on `ours` and `sdk` do the same work for the same text (../support/wire.ts builds
 * the requests and checks the answers):
 *   - `msg …`: answers with a Message, `echo: <text>`;
 *   - `task …`: a task: SUBMITTED, WORKING, one artifact `echo: <text>`, COMPLETED;
 *   - `hold <n> …`: a task that reaches WORKING, is held until the parent says `release`, then
 *     publishes n WORKING updates whose message is `step-<i>` and completes: the subject of the
 *     SubscribeToTask scenarios.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Body, Controller, HttpCode, Injectable, Module, Post, type INestApplication, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore as SdkInMemoryTaskStore, type AgentExecutor as SdkAgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { Role, TaskState, type AgentCard, type Part as SdkPart } from '@a2a-js/sdk';
import express from 'express';
import { A2AAgent, A2AModule, type AgentExecutor, type TaskContext } from 'nestjs-a2a';
import { KEEP_ALIVE_MS } from '../support/http.js';
import { FIXED_MESSAGE, JSON_RPC_PATH, REST_PATH, SERVER_ENV, answerTo, parseHold, type ServerReply, type ServerRequest, type ServerSpec } from '../support/wire.js';

const AGENT = 'bench';
const SKILLS = [{ id: 'echo', name: 'Echo', description: 'Answers with the text it was sent', tags: ['bench'] }];
/** Errors and warnings reach stderr (the parent counts the lines): a server that complains per request shows it. */
const LOG_LEVELS: LogLevel[] = ['error', 'warn'];

// ---------------------------------------------------------------- held tasks

/** The `hold` tasks waiting for the parent's `release`, and the parent's `held` questions waiting for enough of them. */
const held: Array<() => void> = [];
const heldWaiters: Array<{ atLeast: number; answer: () => void }> = [];
function hold(): Promise<void> {
  return new Promise((resolve) => {
    held.push(resolve);
    for (const waiter of heldWaiters.filter((w) => held.length >= w.atLeast)) {
      heldWaiters.splice(heldWaiters.indexOf(waiter), 1);
      waiter.answer();
    }
  });
}

// ---------------------------------------------------------------- ours

@A2AAgent({ name: AGENT, description: 'wire benchmark', skills: SKILLS })
@Injectable()
class OursBenchAgent implements AgentExecutor {
  async execute(ctx: TaskContext): Promise<void> {
    const text = ctx.text;
    const steps = parseHold(text);
    if (steps !== undefined) {
      await ctx.working();
      await ctx.flushed(); // a subscriber that comes now sees WORKING in its snapshot
      await hold();
      for (let i = 0; i < steps; i++) await ctx.working(`step-${i}`);
      return ctx.complete();
    }
    if (!text.startsWith('task ')) return ctx.reply(answerTo(text));
    await ctx.working();
    await ctx.addArtifact({ name: 'answer', parts: [{ text: answerTo(text) }] });
    await ctx.complete();
  }
}

async function ours(spec: ServerSpec): Promise<INestApplication> {
  @Module({ imports: [A2AModule.forRoot({ defaultAgent: AGENT, redis: spec.redis })], providers: [OursBenchAgent] })
  class OursBenchModule {}
  // as the demo does: no JSON routes of its own, so the module reads the bodies with its limits
  const options = { bodyParser: false, logger: LOG_LEVELS, abortOnError: false };
  return spec.platform === 'fastify'
    ? NestFactory.create(OursBenchModule, new FastifyAdapter({ keepAliveTimeout: KEEP_ALIVE_MS }), options)
    : NestFactory.create(OursBenchModule, options);
}

// ---------------------------------------------------------------- the official SDK

const sdkText = (value: string): SdkPart => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });

class SdkBenchExecutor implements SdkAgentExecutor {
  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = request;
    const text = userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('\n');
    const steps = parseHold(text);
    const status = (state: TaskState, message?: string) => ({
      state,
      message: message === undefined ? undefined : { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts: [sdkText(message)], metadata: undefined, extensions: [], referenceTaskIds: [] },
      timestamp: new Date().toISOString(),
    });
    const update = (state: TaskState, message?: string) => AgentEvent.statusUpdate({ taskId, contextId, status: status(state, message), metadata: undefined });
    if (steps === undefined && !text.startsWith('task ')) {
      bus.publish(
        AgentEvent.message({ messageId: randomUUID(), contextId, taskId: '', role: Role.ROLE_AGENT, parts: [sdkText(answerTo(text))], metadata: undefined, extensions: [], referenceTaskIds: [] }),
      );
      bus.finished();
      return;
    }
    bus.publish(AgentEvent.task({ id: taskId, contextId, status: status(TaskState.TASK_STATE_SUBMITTED), artifacts: [], history: [userMessage], metadata: undefined }));
    bus.publish(update(TaskState.TASK_STATE_WORKING));
    if (steps !== undefined) {
      await hold();
      for (let i = 0; i < steps; i++) bus.publish(update(TaskState.TASK_STATE_WORKING, `step-${i}`));
    } else {
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: { artifactId: randomUUID(), name: 'answer', description: '', parts: [sdkText(answerTo(text))], metadata: undefined, extensions: [] },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
    }
    bus.publish(update(TaskState.TASK_STATE_COMPLETED));
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

const SDK_CARD: AgentCard = {
  name: AGENT,
  description: 'wire benchmark',
  // the SDK accepts a binding's A2A-Version only when the card lists that binding with that version
  supportedInterfaces: [
    { url: `http://127.0.0.1${JSON_RPC_PATH}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    { url: `http://127.0.0.1${REST_PATH}`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
  ],
  provider: undefined,
  version: '1.0.0',
  documentationUrl: '',
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: SKILLS.map((s) => ({ ...s, examples: [], inputModes: [], outputModes: [], securityRequirements: [] })),
  signatures: [],
};

function sdk(): Server {
  const handler = new DefaultRequestHandler(SDK_CARD, new SdkInMemoryTaskStore(), new SdkBenchExecutor());
  const app = express();
  app.use(JSON_RPC_PATH, jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use(REST_PATH, restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
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
      case 'held': {
        const answer = () => reply({ type: 'held', id: request.id, count: held.length });
        return held.length >= request.atLeast ? answer() : void heldWaiters.push({ atLeast: request.atLeast, answer });
      }
      case 'release':
        for (const release of held.splice(0)) release();
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
