/**
 * The module as a host app uses it: registration variants, start-up validation, several agents,
 * extensions, card caching, media types, limits, the host's own body parser, SSE housekeeping.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  Body,
  Controller,
  Injectable,
  Module,
  Post,
  UnauthorizedException,
  type CanActivate,
  type DynamicModule,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
  type Provider,
} from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { request, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2A_OPTIONS, A2AAgent, A2AConfigurationError, A2AModule, InMemoryTaskBackend, type AgentExecutor, type TaskBackend, type TaskContext } from 'nestjs-a2a';
import { waitUntil } from 'nestjs-a2a/testing';
import { bodyKnownSoFar } from '../libs/a2a/src/server/http/request-body.js';
import { startApp } from './support/custom-app.js';
import { HOST_JSON_LIMIT, createPlatformApp, createTestApp, currentPlatform, describeOnEachPlatform } from './support/platforms.js';
import type { RunningApp } from './support/demo-app.js';
import { V1, jsonRpcClient, readSse, restClient, userMessage, type Json } from './support/wire-client.js';

/** 400 chunks of 64 KiB: 25 MiB of events. */
const FLOOD_CHUNKS = 400;

@A2AAgent({ name: 'alpha', description: 'First agent', skills: [{ id: 'a', name: 'A', description: 'a', tags: ['a'] }] })
@Injectable()
class AlphaAgent implements AgentExecutor {
  async execute(ctx: TaskContext) {
    if (ctx.text === 'slow') {
      await ctx.working();
      await sleep(1500, undefined, { signal: ctx.signal }).catch(() => undefined);
      return ctx.complete();
    }
    if (ctx.text === 'hang') {
      await ctx.working();
      await sleep(60_000, undefined, { signal: ctx.signal }).catch(() => undefined);
      return;
    }
    if (ctx.text === 'ext') return ctx.reply(`extensions: ${ctx.extensions.join(',')}`);
    if (ctx.text === 'flood') {
      // far more than a socket's buffers hold: a reader that stops reading holds the stream up
      for (let i = 0; i < FLOOD_CHUNKS; i++) await ctx.appendText('x'.repeat(64 * 1024));
      return ctx.complete();
    }
    await ctx.working();
    return ctx.complete(`alpha: ${ctx.text}`);
  }
}

@A2AAgent({
  name: 'beta',
  displayName: 'Beta Agent',
  description: 'Second agent',
  version: '2.1.0',
  skills: [{ id: 'b', name: 'B', description: 'b', tags: ['b'] }],
  extensions: [
    { uri: 'https://example.com/ext/required/v1', required: true },
    { uri: 'https://example.com/ext/optional/v1', description: 'optional' },
  ],
})
@Injectable()
class BetaAgent implements AgentExecutor {
  async execute(ctx: TaskContext) {
    return ctx.reply(`extensions: ${ctx.extensions.join(',')}`);
  }
}

const alphaOnly = (options: Json = {}, extras: Json = {}) => startApp(A2AModule.forRoot({ ...options, ...extras }), [AlphaAgent]);
const post = (url: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...V1, ...headers }, body });

let running: RunningApp | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describeOnEachPlatform('registration', () => {
  it('forRoot: options reach the card; custom paths are mounted and published', async () => {
    running = await startApp(
      A2AModule.forRoot({
        publicUrl: 'https://agents.example.com/base',
        card: { provider: { organization: 'Acme', url: 'https://acme.example.com' }, version: '3.0.0', documentationUrl: 'https://docs.example.com', maxAgeSeconds: 60 },
        paths: { jsonRpc: '/rpc', rest: '/api', agents: '/a' },
      }),
      [AlphaAgent],
    );
    const res = await fetch(`${running.url}/.well-known/agent-card.json`);
    const card: Json = await res.json();
    expect(card).toMatchObject({
      name: 'alpha',
      version: '3.0.0',
      provider: { organization: 'Acme', url: 'https://acme.example.com' },
      documentationUrl: 'https://docs.example.com',
      supportedInterfaces: [
        { url: 'https://agents.example.com/base/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'https://agents.example.com/base/api', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
      capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
    });
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    const agentCard: Json = await (await fetch(`${running.url}/a/alpha/.well-known/agent-card.json`)).json();
    expect(agentCard.supportedInterfaces.map((i: Json) => i.url)).toEqual(['https://agents.example.com/base/a/alpha/rpc', 'https://agents.example.com/base/a/alpha/api']);
    const reply = await jsonRpcClient(`${running.url}/rpc`).call('SendMessage', { message: userMessage('x') });
    expect(reply.result.task.status.message.parts[0].text).toBe('alpha: x');
  });

  it('forRootAsync with useFactory and inject', async () => {
    @Module({ providers: [{ provide: 'PUBLIC', useValue: 'https://async.example.com' }], exports: ['PUBLIC'] })
    class ConfigModule {}
    running = await startApp(
      A2AModule.forRootAsync({ imports: [ConfigModule], inject: ['PUBLIC'], useFactory: (publicUrl: string) => ({ publicUrl }) }),
      [AlphaAgent],
    );
    const card: Json = await (await fetch(`${running.url}/.well-known/agent-card.json`)).json();
    expect(card.supportedInterfaces[0].url).toBe('https://async.example.com/a2a/jsonrpc');
  });

  it('forRootAsync with useClass', async () => {
    class Options {
      create() {
        return { card: { version: '9.9.9' } };
      }
    }
    running = await startApp(A2AModule.forRootAsync({ useClass: Options }), [AlphaAgent]);
    const card: Json = await (await fetch(`${running.url}/.well-known/agent-card.json`)).json();
    expect(card.version).toBe('9.9.9');
  });

  it('mounts only the bindings asked for, and the card says so', async () => {
    running = await alphaOnly({}, { paths: { jsonRpc: false } });
    const card: Json = await (await fetch(`${running.url}/.well-known/agent-card.json`)).json();
    expect(card.supportedInterfaces.map((i: Json) => i.protocolBinding)).toEqual(['HTTP+JSON']);
    expect((await post(`${running.url}/a2a/jsonrpc`, '{}')).status).toBe(404);
  });

  it('prefixes card URLs and routes with the global prefix', async () => {
    @Module({ imports: [A2AModule.forRoot()], providers: [AlphaAgent] })
    class AppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const app = await createTestApp(moduleRef, { bodyParser: false, logger: false });
    app.setGlobalPrefix('api');
    await app.listen(0, '127.0.0.1');
    running = { app, url: await app.getUrl(), close: () => app.close() };
    const card: Json = await (await fetch(`${running.url}/api/.well-known/agent-card.json`)).json();
    expect(card.supportedInterfaces[0].url).toBe(`${running.url}/api/a2a/jsonrpc`);
    const reply = await restClient(`${running.url}/api/a2a/rest`).call('SendMessage', { message: userMessage('p') });
    expect(reply.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('start-up validation', () => {
  const compile = async (a2a: Json, providers: Json[]) => {
    @Module({ imports: [a2a], providers })
    class AppModule {}
    const app = (await Test.createTestingModule({ imports: [AppModule] }).compile()).createNestApplication({ logger: false });
    try {
      await app.init();
    } finally {
      await app.close().catch(() => undefined);
    }
  };

  it('fails clearly when no agent is published', async () => {
    await expect(compile(A2AModule.forRoot(), [])).rejects.toThrow(/no agent is published: add a provider marked @A2AAgent/);
  });

  it('lists every option problem at once, never echoing values', async () => {
    const error: Json = await compile(
      A2AModule.forRoot({ publicUrl: 'not a url secret-value', streaming: { heartbeatMs: 5 }, limits: { maxJsonDepth: 1 } }),
      [AlphaAgent],
    ).catch((e) => e);
    expect(error).toBeInstanceOf(A2AConfigurationError);
    expect(error.problems).toHaveLength(3);
    expect(error.message).toMatch(/publicUrl/);
    expect(error.message).toMatch(/streaming\.heartbeatMs/);
    expect(error.message).toMatch(/limits\.maxJsonDepth/);
    expect(error.message).not.toContain('secret-value');
  });

  it('refuses bad paths when the module is defined', () => {
    expect(() => A2AModule.forRoot({ paths: { jsonRpc: 'no-slash', rest: false } })).toThrow(A2AConfigurationError);
    expect(() => A2AModule.forRoot({ paths: { jsonRpc: false, rest: false } })).toThrow(/at least one binding/);
  });

  it('lists the problems of the options, the agents and defaultAgent in one error, forRootAsync too', async () => {
    @A2AAgent({ name: 'no execute', description: 'd', skills: [] })
    @Injectable()
    class NotAnExecutor {}
    const a2a = A2AModule.forRootAsync({ useFactory: () => ({ defaultAgent: 'gamma', streaming: { heartbeatMs: 5 }, limits: { maxBodyBytes: 1 } }) });
    const error: Json = await compile(a2a, [AlphaAgent, BetaAgent, NotAnExecutor]).catch((e) => e);
    expect(error).toBeInstanceOf(A2AConfigurationError);
    expect(error.problems).toEqual([
      'streaming.heartbeatMs: must be an integer of at least 1000',
      'limits.maxBodyBytes: must be an integer of at least 1024',
      expect.stringMatching(/^@A2AAgent NotAnExecutor: the class must implement AgentExecutor/),
      'defaultAgent: no agent is named "gamma" (published: alpha, beta)',
    ]);
  });

  it('asks which agent is the default when several are published, and checks the name', async () => {
    await expect(compile(A2AModule.forRoot(), [AlphaAgent, BetaAgent])).rejects.toThrow(/defaultAgent: 2 agents are published \(alpha, beta\)/);
    await expect(compile(A2AModule.forRoot({ defaultAgent: 'gamma' }), [AlphaAgent, BetaAgent])).rejects.toThrow(/no agent is named "gamma"/);
  });

  it('refuses an agent without execute(), a bad name and a card missing required fields, all at once', async () => {
    @A2AAgent({ name: 'no execute', description: 'd', skills: [] })
    @Injectable()
    class NotAnExecutor {}
    @A2AAgent({ name: 'tagless', description: 'd', skills: [{ id: 's', name: 'S', description: 's', tags: [] }] })
    @Injectable()
    class Tagless implements AgentExecutor {
      execute() {}
    }
    const error: Json = await compile(A2AModule.forRoot({ defaultAgent: 'tagless' }), [NotAnExecutor, Tagless]).catch((e) => e);
    expect(error).toBeInstanceOf(A2AConfigurationError);
    expect(error.message).toMatch(/NotAnExecutor: the class must implement AgentExecutor/);
    expect(error.message).toMatch(/Tagless: card field skills\[0\]\.tags is required/);
  });
});

describeOnEachPlatform('several agents', () => {
  it('gives each its card and bindings; the root serves the default; tasks stay with their agent', async () => {
    running = await startApp(A2AModule.forRoot({ defaultAgent: 'alpha' }), [AlphaAgent, BetaAgent]);
    const root: Json = await (await fetch(`${running.url}/.well-known/agent-card.json`)).json();
    expect(root.name).toBe('alpha');
    expect(root.supportedInterfaces[0].url).toBe(`${running.url}/a2a/jsonrpc`);
    const beta: Json = await (await fetch(`${running.url}/agents/beta/.well-known/agent-card.json`)).json();
    expect(beta).toMatchObject({ name: 'Beta Agent', version: '2.1.0' });
    expect(beta.supportedInterfaces.map((i: Json) => i.url)).toEqual([`${running.url}/agents/beta/a2a/jsonrpc`, `${running.url}/agents/beta/a2a/rest`]);
    expect(beta.capabilities.extensions).toEqual([
      { uri: 'https://example.com/ext/required/v1', required: true },
      { uri: 'https://example.com/ext/optional/v1', description: 'optional' },
    ]);

    const task = (await jsonRpcClient(`${running.url}/agents/alpha/a2a/jsonrpc`).call('SendMessage', { message: userMessage('t') })).result.task;
    expect((await restClient(`${running.url}/a2a/rest`).call('GetTask', { id: task.id })).result.id).toBe(task.id);
    const viaBeta = await restClient(`${running.url}/agents/beta/a2a/rest`).call('GetTask', { id: task.id }, { headers: { 'A2A-Extensions': 'https://example.com/ext/required/v1' } });
    expect(viaBeta.error?.reason).toBe('TASK_NOT_FOUND');

    expect((await fetch(`${running.url}/agents/gamma/.well-known/agent-card.json`)).status).toBe(404);
    const unknown = await jsonRpcClient(`${running.url}/agents/gamma/a2a/jsonrpc`).call('GetTask', { id: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.error?.code).toBe(-32601);
  });

  it('requires required extensions, activates the supported ones and echoes them', async () => {
    running = await startApp(A2AModule.forRoot({ defaultAgent: 'beta' }), [AlphaAgent, BetaAgent]);
    for (const client of [jsonRpcClient(`${running.url}/a2a/jsonrpc`), restClient(`${running.url}/a2a/rest`)]) {
      const refused = await client.call('SendMessage', { message: userMessage('x') });
      expect(refused.error?.reason).toBe('EXTENSION_SUPPORT_REQUIRED');
      expect(client.name === 'JSONRPC' ? refused.error?.code : refused.status).toBe(client.name === 'JSONRPC' ? -32008 : 400);
      const requested = 'https://example.com/ext/required/v1, https://example.com/ext/optional/v1, https://example.com/unknown';
      const ok = await client.call('SendMessage', { message: userMessage('x') }, { headers: { 'A2A-Extensions': requested } });
      expect(ok.result.message.parts[0].text).toBe('extensions: https://example.com/ext/required/v1,https://example.com/ext/optional/v1');
      expect(ok.headers.get('a2a-extensions')).toBe('https://example.com/ext/required/v1, https://example.com/ext/optional/v1');
    }
  });
});

describeOnEachPlatform('the Agent Card over HTTP', () => {
  it('sends Cache-Control, a strong ETag and Last-Modified, and 304 when unchanged', async () => {
    running = await alphaOnly();
    const url = `${running.url}/.well-known/agent-card.json`;
    const first = await fetch(url);
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const lastModified = first.headers.get('last-modified')!;
    expect(new Date(lastModified).getTime()).not.toBeNaN();
    expect((await fetch(url, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    expect((await fetch(url, { headers: { 'If-None-Match': `W/${etag}, "other"` } })).status).toBe(304);
    expect((await fetch(url, { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
    expect((await fetch(url, { headers: { 'If-Modified-Since': lastModified } })).status).toBe(304);
  });
});

describeOnEachPlatform('request validation on the wire', () => {
  it('refuses a Content-Type the binding does not take with 415 in the binding shape', async () => {
    running = await alphaOnly();
    const rpc = await post(`${running.url}/a2a/jsonrpc`, '{}', { 'content-type': 'text/plain' });
    expect(rpc.status).toBe(415);
    expect(((await rpc.json()) as Json).error).toMatchObject({ code: -32005, data: [{ reason: 'CONTENT_TYPE_NOT_SUPPORTED' }] });
    const rest = await post(`${running.url}/a2a/rest/message:send`, '{}', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(rest.status).toBe(415);
    expect(((await rest.json()) as Json).error).toMatchObject({ code: 415, status: 'INVALID_ARGUMENT', details: [{ reason: 'CONTENT_TYPE_NOT_SUPPORTED' }] });
  });

  it('answers in application/a2a+json when the request used or accepts it', async () => {
    running = await alphaOnly();
    const body = JSON.stringify({ message: userMessage('x') });
    const used = await post(`${running.url}/a2a/rest/message:send`, body, { 'content-type': 'application/a2a+json' });
    expect(used.status).toBe(200);
    expect(used.headers.get('content-type')).toMatch(/^application\/a2a\+json/);
    const accepted = await post(`${running.url}/a2a/rest/message:send`, body, { accept: 'application/a2a+json' });
    expect(accepted.headers.get('content-type')).toMatch(/^application\/a2a\+json/);
    const plain = await post(`${running.url}/a2a/rest/message:send`, body);
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('enforces the body size, the nesting depth and strict UTF-8, with the protocol errors', async () => {
    running = await alphaOnly({ limits: { maxBodyBytes: 2048, maxJsonDepth: 8 } });
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('x'.repeat(5000)) } });
    const tooBig = await post(`${running.url}/a2a/jsonrpc`, big);
    expect(tooBig.status).toBe(413);
    expect(((await tooBig.json()) as Json).error.code).toBe(-32600);
    const restBig = await post(`${running.url}/a2a/rest/message:send`, big);
    expect(restBig.status).toBe(413);

    const deep = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":${'['.repeat(20)}${']'.repeat(20)}}`;
    const tooDeep: Json = await (await post(`${running.url}/a2a/jsonrpc`, deep)).json();
    expect(tooDeep.error.code).toBe(-32600);
    expect(tooDeep.error.message).toMatch(/nesting/);

    const badUtf8 = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}}')]);
    const invalid: Json = await (await post(`${running.url}/a2a/jsonrpc`, badUtf8)).json();
    expect(invalid.error.code).toBe(-32700);
    const restInvalid = await post(`${running.url}/a2a/rest/message:send`, badUtf8);
    expect(restInvalid.status).toBe(400);

    const malformed = await post(`${running.url}/a2a/rest/message:send`, '{"message":');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as Json).error.status).toBe('INVALID_ARGUMENT');
  });

  it('answers JSON-RPC envelope errors per §9.5', async () => {
    running = await alphaOnly();
    const rpc = async (body: unknown) => (await (await post(`${running!.url}/a2a/jsonrpc`, JSON.stringify(body))).json()) as Json;
    expect((await rpc([{ jsonrpc: '2.0', id: 1, method: 'GetTask' }])).error.code).toBe(-32600);
    expect(await rpc({ id: 7, method: 'GetTask', params: {} })).toMatchObject({ id: 7, error: { code: -32600 } });
    expect(await rpc({ jsonrpc: '2.0', id: 'x', method: 'tasks/get', params: {} })).toMatchObject({ id: 'x', error: { code: -32601 } });
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: [1] })).error.code).toBe(-32600);
    expect((await rpc({ jsonrpc: '2.0', id: {}, method: 'GetTask' })).error.code).toBe(-32600);
    const get = await fetch(`${running.url}/a2a/jsonrpc`, { headers: V1 });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('answers unknown REST routes with 404 and wrong verbs with 405, in the REST error shape', async () => {
    running = await alphaOnly();
    const unknown = await fetch(`${running.url}/a2a/rest/no/such/route`, { headers: V1 });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as Json).error.status).toBe('NOT_FOUND');
    const wrongVerb = await fetch(`${running.url}/a2a/rest/message:send`, { headers: V1 });
    expect(wrongVerb.status).toBe(405);
    expect(wrongVerb.headers.get('allow')).toBe('POST');
  });

  // found by the fuzzer (test/fuzz.e2e-spec.ts): these reached Nest's own 400/404 shape
  it.each(['/a2a/rest', '/a2a/rest/', '/agents/alpha/a2a/rest/'])('answers the interface URL itself (%s) with 404 in the REST error shape', async (path) => {
    running = await alphaOnly();
    const res = await fetch(`${running.url}${path}`, { headers: V1 });
    expect(res.status).toBe(404);
    expect(((await res.json()) as Json).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
  });

  it('answers a path that is not valid percent-encoding in the binding shape', async () => {
    running = await alphaOnly();
    for (const path of ['/a2a/rest/tasks/%zz', '/a2a/rest/tasks/%E2%82:subscribe', '/a2a/rest/%ff/tasks', '/agents/%zz/a2a/rest/tasks/x']) {
      const res = await fetch(`${running.url}${path}`, { headers: V1 });
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: expect.stringMatching(/percent-encoding/) });
    }
    const rpc = await post(`${running.url}/agents/%zz/a2a/jsonrpc`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }));
    expect(rpc.status).toBe(200);
    expect(await rpc.json()).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'The request path is not valid percent-encoding' } });
  });

  // Fastify's router answers a route parameter over its maxParamLength (100) with its own 414
  it('answers an agent name longer than any agent can have with AgentNotFound in the binding shape', async () => {
    running = await alphaOnly();
    const agents = `${running.url}/agents/${'a'.repeat(150)}`;
    const rest = await fetch(`${agents}/a2a/rest/tasks/x`, { headers: V1 });
    expect(rest.status).toBe(404);
    expect(((await rest.json()) as Json).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    const rpc = await post(`${agents}/a2a/jsonrpc`, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 'x' } }));
    expect(rpc.status).toBe(404);
    expect(await rpc.json()).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32601 } });
  });

  it('answers a body that is not in the Content-Encoding it declares in the binding shape', async () => {
    running = await alphaOnly();
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const rpc = await post(`${running.url}/a2a/jsonrpc`, '{"jsonrpc":"2.0","id":1,"method":"GetTask"}', { 'content-encoding': encoding });
      expect(((await rpc.json()) as Json).error.code).toBe(-32005);
      const rest = await post(`${running.url}/a2a/rest/message:send`, '{}', { 'content-encoding': encoding });
      expect(((await rest.json()) as Json).error).toMatchObject({ code: rest.status, status: 'INVALID_ARGUMENT' });
    }
  });
});

describeOnEachPlatform("the host app's own JSON body parser", () => {
  @Controller('host')
  class HostController {
    @Post('echo')
    echo(@Body() body: unknown) {
      return { got: body };
    }
  }

  /** What a host's global guard sees of the request body (Nest's parser used to fill it in). */
  @Injectable()
  class BodyPeekingGuard implements CanActivate {
    static seen: unknown[] = [];
    canActivate(context: ExecutionContext): boolean {
      const req = context.switchToHttp().getRequest<{ method: string; body?: { method?: unknown; message?: unknown } }>();
      // the module's own start-up look at the card (a GET) passes here too
      if (req.method === 'POST') BodyPeekingGuard.seen.push(req.body?.method ?? (req.body?.message === undefined ? undefined : 'message'));
      return true;
    }
  }

  /** A default app, as `NestFactory.create(AppModule)` makes it: the platform's own body parsers on (JSON: 100 kB on Express, 1 MiB on Fastify). */
  async function defaultApp(a2a: DynamicModule, extraProviders: Provider[] = []): Promise<RunningApp> {
    @Module({ imports: [a2a], providers: [AlphaAgent, ...extraProviders], controllers: [HostController] })
    class AppModule {}
    const app = await createPlatformApp(AppModule, { logger: false, abortOnError: false });
    await app.listen(0, '127.0.0.1');
    return { app, url: await app.getUrl(), close: () => app.close() };
  }

  it('leaves the host routes to the app parser and reads A2A bodies with the module limits, in the binding shape', async () => {
    @Module({ imports: [A2AModule.forRoot()], providers: [AlphaAgent], controllers: [HostController] })
    class HostApp {}
    const moduleRef = await Test.createTestingModule({ imports: [HostApp] }).compile();
    const app = await createTestApp(moduleRef, { logger: false }); // the platform's default JSON parser is on
    await app.listen(0, '127.0.0.1');
    running = { app, url: await app.getUrl(), close: () => app.close() };

    const host: Json = await (await post(`${running.url}/host/echo`, '{"a":1}')).json();
    expect(host).toEqual({ got: { a: 1 } });
    const hostBad = await post(`${running.url}/host/echo`, '{bad');
    expect(hostBad.status).toBe(400);
    expect(((await hostBad.json()) as Json).jsonrpc).toBeUndefined();

    const rpcBad = await post(`${running.url}/a2a/jsonrpc`, '{bad');
    expect(rpcBad.status).toBe(200);
    expect(await rpcBad.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Invalid JSON payload' } });
    const restBad = await post(`${running.url}/a2a/rest/message:send`, '{bad');
    expect(restBad.status).toBe(400);
    expect(((await restBad.json()) as Json).error.status).toBe('INVALID_ARGUMENT');
    // over Nest's 100 kB, under the module's 1 MiB (Fastify's parser would take it: the next test goes beyond its limit)
    const large = await jsonRpcClient(`${running.url}/a2a/jsonrpc`).call('SendMessage', { message: userMessage('x'.repeat(200_000)) });
    expect(large.status).toBe(200);
    expect(large.result.task.status.state).toBe('TASK_STATE_COMPLETED');

    const ok = await jsonRpcClient(`${running.url}/a2a/jsonrpc`).call('SendMessage', { message: userMessage('read by the module') });
    expect(ok.result.task.status.message.parts[0].text).toBe('alpha: read by the module');
    const a2aJson = await restClient(`${running.url}/a2a/rest`).call('SendMessage', { message: userMessage('x') }, { headers: { 'content-type': 'application/a2a+json' } });
    expect(a2aJson.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  // found by the fuzzer: Nest's parser takes `Content-Length: 0` for a body, and one it cannot inflate got Nest's 400
  it('answers an empty body in a Content-Encoding in the binding shape, not the host parser’s', async () => {
    running = await defaultApp(A2AModule.forRoot());
    for (const encoding of ['deflate', 'gzip', 'x-custom']) {
      const headers = { 'content-type': 'application/json', 'content-encoding': encoding, ...V1 };
      const rpc = await fetch(`${running.url}/a2a/jsonrpc`, { method: 'POST', headers, body: '' });
      expect(((await rpc.json()) as Json)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32005 } });
      const rest = await fetch(`${running.url}/a2a/rest/message:send`, { method: 'POST', headers, body: '' });
      expect(((await rest.json()) as Json).error).toMatchObject({ code: rest.status });
    }
  });

  // a body kept past its answer survives young-generation GCs in V8 (a WeakMap entry): issue 14
  it('lets go of what it read of an A2A body once the answer is written (the platform request keeps its body)', async () => {
    @Injectable()
    class RawRequests implements NestInterceptor {
      static seen: Array<{ raw: IncomingMessage & { body?: unknown }; platformBody: unknown }> = [];
      intercept(context: ExecutionContext, next: CallHandler) {
        const req = context.switchToHttp().getRequest<{ raw?: IncomingMessage; body?: unknown; method: string }>();
        if (req.method === 'POST') RawRequests.seen.push({ raw: (req.raw ?? req) as IncomingMessage, platformBody: req.body });
        return next.handle();
      }
    }
    running = await defaultApp(A2AModule.forRoot(), [RawRequests, { provide: APP_INTERCEPTOR, useExisting: RawRequests }]);
    const rpc = await jsonRpcClient(`${running.url}/a2a/jsonrpc`).call('SendMessage', { message: userMessage('answered') });
    expect(rpc.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const rest = await restClient(`${running.url}/a2a/rest`).call('SendMessage', { message: userMessage('answered') });
    expect(rest.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(RawRequests.seen).toHaveLength(2);
    for (const { raw, platformBody } of RawRequests.seen) {
      expect(JSON.stringify(platformBody)).toContain('"text":"answered"');
      delete raw.body; // Express's request is its own platform request: what the module read is the question
      expect(bodyKnownSoFar(raw, { maxBodyBytes: 1 << 20, maxJsonDepth: 32 })).toBeUndefined();
    }
  });

  it('holds limits.maxBodyBytes on the A2A routes of a default NestFactory.create(AppModule) app, whatever the content type', async () => {
    // the platform parser's own limit: Nest's 100 kB on Express, Fastify's 1 MiB
    const hostLimit = HOST_JSON_LIMIT[currentPlatform()];
    running = await defaultApp(A2AModule.forRoot({ limits: { maxBodyBytes: 3 * hostLimit, maxPartBytes: 3 * hostLimit } }));
    const text = (size: number) => userMessage('x'.repeat(size));
    for (const contentType of ['application/json', 'application/a2a+json']) {
      const headers = { headers: { 'content-type': contentType } };
      // above the platform parser's limit, below the module's: both bindings take it
      const rpc = await jsonRpcClient(`${running.url}/a2a/jsonrpc`).call('SendMessage', { message: text(2 * hostLimit) }, headers);
      expect([contentType, rpc.status, rpc.result?.task.status.state]).toEqual([contentType, 200, 'TASK_STATE_COMPLETED']);
      const rest = await restClient(`${running.url}/a2a/rest`).call('SendMessage', { message: text(2 * hostLimit) }, headers);
      expect([contentType, rest.status, rest.result?.task.status.state]).toEqual([contentType, 200, 'TASK_STATE_COMPLETED']);
      // above the module's limit: refused by it, in each binding's shape, the JSON-RPC id lost with the body
      const rpcTooLarge = await jsonRpcClient(`${running.url}/a2a/jsonrpc`).call('SendMessage', { message: text(4 * hostLimit) }, headers);
      expect([contentType, rpcTooLarge.status, rpcTooLarge.raw.id, rpcTooLarge.raw.error.code]).toEqual([contentType, 413, null, -32600]);
      const restTooLarge = await restClient(`${running.url}/a2a/rest`).call('SendMessage', { message: text(4 * hostLimit) }, headers);
      expect([contentType, restTooLarge.status, restTooLarge.raw.error.status]).toEqual([contentType, 413, 'INVALID_ARGUMENT']);
    }
    // the app's own routes keep the platform's parser and its limit
    expect((await post(`${running.url}/host/echo`, JSON.stringify({ pad: 'x'.repeat(2 * hostLimit) }))).status).toBe(413);
    expect(await (await post(`${running.url}/host/echo`, '{"a":1}')).json()).toEqual({ got: { a: 1 } });
  });

  it("gives the app's global guards the parsed A2A body, as Nest's parser did", async () => {
    BodyPeekingGuard.seen = [];
    running = await defaultApp(A2AModule.forRoot(), [{ provide: APP_GUARD, useClass: BodyPeekingGuard }]);
    await jsonRpcClient(`${running.url}/a2a/jsonrpc`).call('SendMessage', { message: userMessage('x') });
    await restClient(`${running.url}/a2a/rest`).call('SendMessage', { message: userMessage('x') }, { headers: { 'content-type': 'application/a2a+json' } });
    expect(BodyPeekingGuard.seen).toEqual(['SendMessage', 'message']);
  });

  it("answers a host guard's refusal with the JSON-RPC request's id in a default app", async () => {
    @Injectable()
    class RefusingGuard implements CanActivate {
      canActivate(): boolean {
        throw new UnauthorizedException();
      }
    }
    running = await defaultApp(A2AModule.forRoot({ allowUnauthenticated: true }), [{ provide: APP_GUARD, useClass: RefusingGuard }]);
    const refused = await post(`${running.url}/a2a/jsonrpc`, JSON.stringify({ jsonrpc: '2.0', id: 'req-7', method: 'GetTask', params: { id: 'x' } }));
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', id: 'req-7', error: { code: -32000, data: [{ reason: 'UNAUTHENTICATED' }] } });
    const unreadable = await post(`${running.url}/a2a/jsonrpc`, '{"jsonrpc":"2.0","id":8,');
    expect(unreadable.status).toBe(401);
    expect(((await unreadable.json()) as Json).id).toBeNull();
  });
});

describeOnEachPlatform('SSE housekeeping', () => {
  it('sends a heartbeat comment on quiet streams', async () => {
    running = await alphaOnly({ streaming: { heartbeatMs: 1000 } });
    const res = await post(`${running.url}/a2a/rest/message:stream`, JSON.stringify({ message: userMessage('slow') }));
    const text = await res.text();
    expect(text).toContain(': keep-alive\n\n');
    expect(text).toContain('TASK_STATE_COMPLETED');
  });

  it('opens a reconnecting stream at once and heartbeats it while its task is quiet', async () => {
    running = await alphaOnly({ streaming: { heartbeatMs: 1000 } });
    const rest = restClient(`${running.url}/a2a/rest`);
    const task = (await rest.call('SendMessage', { message: userMessage('slow'), configuration: { returnImmediately: true } })).result.task;
    // caught up after WORKING (seq 2): the next event is 1.5 s away, so a heartbeat comes first
    const res = await fetch(`${running.url}/a2a/rest/tasks/${task.id}:subscribe`, { method: 'POST', headers: { ...V1, 'Last-Event-ID': '2' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // the headers did not wait for the next event
    expect((await rest.call('GetTask', { id: task.id })).result.status.state).toBe('TASK_STATE_WORKING');
    const text = await res.text();
    expect(text).toContain(': keep-alive\n\n');
    expect(text).toMatch(/^id: 3\ndata: .*TASK_STATE_COMPLETED/m);
  });

  it('frees the stream when the client goes away; the task goes on', async () => {
    running = await alphaOnly({ streaming: { maxStreamsPerCaller: 1 } });
    const { SseStreams } = await import('../libs/a2a/src/server/http/sse-streams.js');
    const streams = running.app.get(SseStreams);
    const res = await post(`${running.url}/a2a/rest/message:stream`, JSON.stringify({ message: userMessage('slow') }), {});
    const reader = res.body!.getReader();
    await reader.read();
    expect(streams.size).toBe(1);

    const second = await post(`${running.url}/a2a/jsonrpc`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: userMessage('x') } }));
    expect(second.status).toBe(429);

    await reader.cancel();
    await waitUntil(() => streams.size === 0, { attempts: 50, intervalMs: 20 });
    expect(streams.size).toBe(0);
    const tasks = (await restClient(`${running.url}/a2a/rest`).call('ListTasks', {})).result.tasks;
    // the task goes on without its stream ('slow' takes 1.5 s)
    const stateOf = async () => (await restClient(`${running!.url}/a2a/rest`).call('GetTask', { id: tasks[0].id })).result.status.state;
    await waitUntil(async () => (await stateOf()) === 'TASK_STATE_COMPLETED', { attempts: 60, intervalMs: 50 });
    expect(await stateOf()).toBe('TASK_STATE_COMPLETED');
  });

  it('waits for a slow reader: the stream stays open with its events unsent until the client reads them', async () => {
    running = await alphaOnly();
    const { SseStreams } = await import('../libs/a2a/src/server/http/sse-streams.js');
    const streams = running.app.get(SseStreams);
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(`${running!.url}/a2a/rest/message:stream`, { method: 'POST', headers: { 'content-type': 'application/json', ...V1 } }, resolve);
      req.on('error', reject);
      req.end(JSON.stringify({ message: userMessage('flood') }));
    });
    res.pause();
    const rest = restClient(`${running.url}/a2a/rest`);
    const stateOf = async () => (await rest.call('ListTasks', {})).result.tasks[0]?.status.state;
    await waitUntil(async () => (await stateOf()) === 'TASK_STATE_COMPLETED', { attempts: 200, intervalMs: 50 });
    // the task is over, its 25 MiB of events are not: the stream waits for the client
    expect(streams.size).toBe(1);
    res.setEncoding('utf8');
    let text = '';
    for await (const chunk of res) text += chunk;
    // every chunk, and the last-chunk mark complete() closes the artifact with
    expect(text.match(/"artifactUpdate"/g)).toHaveLength(FLOOD_CHUNKS + 1);
    expect(text).toMatch(/TASK_STATE_COMPLETED[^\n]*\n\n$/);
    await waitUntil(() => streams.size === 0, { attempts: 50, intervalMs: 20 });
    expect(streams.size).toBe(0);
  }, 60_000);

  it('by default one caller cannot take every stream slot; the demo sets 20000 and more itself', async () => {
    running = await alphaOnly();
    const { startDemo } = await import('./support/demo-app.js');
    const defaults = running.app.get(A2A_OPTIONS).streaming;
    expect(defaults).toMatchObject({ maxStreams: 20_000, maxStreamsPerCaller: 1_000 });
    const demo = await startDemo();
    try {
      const { maxStreams, maxStreamsPerCaller } = demo.app.get(A2A_OPTIONS).streaming;
      expect(maxStreams).toBeGreaterThanOrEqual(20_000);
      expect(maxStreamsPerCaller).toBeGreaterThanOrEqual(20_000);
    } finally {
      await demo.close();
    }
  });

  it('reports an event id on every task event', async () => {
    running = await alphaOnly();
    const res = await post(`${running.url}/a2a/rest/message:stream`, JSON.stringify({ message: userMessage('x') }));
    const events = await readSse(res);
    expect(events.map((e) => e.id)).toEqual(['1', '2', '3']);
  });
});

describe('executor deadline', () => {
  it('fails a task whose executor outlives executorTimeoutMs and aborts its signal', async () => {
    running = await alphaOnly({ limits: { executorTimeoutMs: 300 } });
    const t0 = Date.now();
    const res = await jsonRpcClient(`${running.url}/a2a/jsonrpc`).call('SendMessage', { message: userMessage('hang') });
    expect(res.result.task.status.state).toBe('TASK_STATE_FAILED');
    expect(res.result.task.status.message.parts[0].text).toBe('The agent did not finish in time.');
    expect(Date.now() - t0).toBeLessThan(3000);
  });
});

describeOnEachPlatform('shutdown', () => {
  it('fails running tasks with a clear message, delivers it to open streams, and closes without hanging', async () => {
    const app = await alphaOnly();
    const res = await post(`${app.url}/a2a/rest/message:stream`, JSON.stringify({ message: userMessage('hang') }));
    const reading = readSse(res);
    const working = async () => (await restClient(`${app.url}/a2a/rest`).call('ListTasks', { status: 'TASK_STATE_WORKING' })).result.tasks.length === 1;
    await waitUntil(working, { attempts: 50, intervalMs: 20 });
    const t0 = Date.now();
    await app.close();
    expect(Date.now() - t0).toBeLessThan(3000);
    const events = await reading;
    const last = JSON.parse(events[events.length - 1].data);
    expect(last.statusUpdate.status).toMatchObject({ state: 'TASK_STATE_FAILED', message: { parts: [{ text: 'The agent was stopped because the server is shutting down.' }] } });
  });
});

describeOnEachPlatform('unexpected failures', () => {
  it('answer InternalError with a fixed message on both bindings, leaking nothing', async () => {
    const memory = new InMemoryTaskBackend();
    const failing: TaskBackend = {
      store: {
        get: async () => {
          throw new Error('SECRET-db-password=hunter2');
        },
        save: async () => {
          throw new Error('SECRET');
        },
        list: async () => {
          throw new Error('SECRET');
        },
      },
      log: memory.log,
      coordinator: memory.coordinator,
      commit: async () => {
        throw new Error('SECRET');
      },
      admit: async () => undefined,
      close: () => memory.close(),
    };
    @Module({ imports: [A2AModule.forRoot({ taskBackend: failing })], providers: [AlphaAgent] })
    class AppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const app = await createTestApp(moduleRef, { bodyParser: false, logger: false });
    await app.listen(0, '127.0.0.1');
    running = { app, url: await app.getUrl(), close: () => app.close() };
    const rpc = await jsonRpcClient(`${running.url}/a2a/jsonrpc`).call('GetTask', { id: 'x' });
    expect(rpc.status).toBe(200);
    expect(rpc.raw.error).toEqual({ code: -32603, message: 'Internal error' });
    const rest = await restClient(`${running.url}/a2a/rest`).call('ListTasks', {});
    expect(rest.status).toBe(500);
    expect(rest.raw).toEqual({ error: { code: 500, status: 'INTERNAL', message: 'Internal error', details: [] } });
  });
});
