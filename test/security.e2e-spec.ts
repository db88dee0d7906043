/**
 * The host's own auth governs every A2A route: the demo's ordinary API-key guard (an APP_GUARD)
 * against every route of both bindings, caller isolation, an honest card, the extended card.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { A2A_PUBLIC, A2AAgent, A2AModule, A2APublic, A2ASecurity, SecuritySchemes, type AgentExecutor, type TaskContext } from 'nestjs-a2a';
// every route of the protocol's table, to prove each one is guarded
import { REST_ROUTES } from '../libs/a2a/src/protocol/rest-routes.js';
import { startApp } from './support/custom-app.js';
import { startDemo, type RunningApp } from './support/demo-app.js';
import { BearerGuard, VaultAgent } from './support/vault-agent.js';
import { describeOnEachPlatform } from './support/platforms.js';
import { V1, jsonRpcClient, restClient, userMessage, type BindingClient, type Json } from './support/wire-client.js';

const ALICE = { 'X-API-Key': 'key-alice' };
const BOB = { 'X-API-Key': 'key-bob' };
const WRONG = { 'X-API-Key': 'not-a-key' };

describeOnEachPlatform('the demo with DEMO_API_KEYS', () => {
  let demo: RunningApp;
  beforeAll(async () => {
    demo = await startDemo({ DEMO_API_KEYS: 'alice:key-alice,bob:key-bob' });
  });
  afterAll(() => demo.close());

  const JSONRPC_CALLS: Array<[string, Json]> = [
    ['SendMessage', { message: userMessage('hello') }],
    ['SendStreamingMessage', { message: userMessage('hello') }],
    ['GetTask', { id: 'x' }],
    ['ListTasks', {}],
    ['CancelTask', { id: 'x' }],
    ['SubscribeToTask', { id: 'x' }],
    ['CreateTaskPushNotificationConfig', { taskId: 'x', url: 'https://example.com/hook' }],
    ['GetTaskPushNotificationConfig', { taskId: 'x', id: 'c' }],
    ['ListTaskPushNotificationConfigs', { taskId: 'x' }],
    ['DeleteTaskPushNotificationConfig', { taskId: 'x', id: 'c' }],
    ['GetExtendedAgentCard', {}],
  ];

  /** Every route of the HTTP+JSON table, plain and tenant-prefixed, as a concrete request. */
  const REST_CALLS = REST_ROUTES.flatMap((route) =>
    ['', '/acme'].map((prefix) => {
      const path = prefix + route.path.replace('{id}', 'x').replace('{taskId}', 'x');
      const body = route.method === 'POST' ? JSON.stringify(route.operation.includes('Message') ? { message: userMessage('hello') } : {}) : undefined;
      return [`${route.method} ${path}`, route.method, path, body] as const;
    }),
  );

  const rpc = (method: string, params: Json, headers: Record<string, string>) =>
    fetch(`${demo.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...V1, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  const rest = (method: string, path: string, body: string | undefined, headers: Record<string, string>) =>
    fetch(`${demo.url}/a2a/rest${path}`, { method, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...V1, ...headers }, body });

  describe.each([
    ['no credentials', {}],
    ['wrong credentials', WRONG],
  ])('%s', (_label, headers) => {
    it.each(JSONRPC_CALLS)('JSON-RPC %s answers 401 with WWW-Authenticate in the JSON-RPC shape, with the request id', async (method, params) => {
      const res = await rpc(method, params, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^ApiKey realm="a2a", name="X-API-Key", in="header"$/);
      const body: Json = await res.json();
      expect(body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32000, data: [{ reason: 'UNAUTHENTICATED', domain: 'nestjs-a2a' }] } });
    });

    it.each(REST_CALLS)('HTTP+JSON %s answers 401 with WWW-Authenticate in the REST shape', async (_name, method, path, body) => {
      const res = await rest(method, path, body, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('ApiKey');
      expect(((await res.json()) as Json).error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED', details: [{ reason: 'UNAUTHENTICATED' }] });
    });

    it('leaves the public Agent Card open', async () => {
      expect((await fetch(`${demo.url}/.well-known/agent-card.json`, { headers })).status).toBe(200);
      expect((await fetch(`${demo.url}/agents/echo/.well-known/agent-card.json`, { headers })).status).toBe(200);
    });

    it('answers a refused JSON-RPC request whose body cannot be read with id null', async () => {
      const res = await fetch(`${demo.url}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', ...V1, ...headers }, body: '{"id": 5, "jsonrpc"' });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    });
  });

  describe('right credentials', () => {
    it.each(JSONRPC_CALLS)('JSON-RPC %s reaches the operation', async (method, params) => {
      const res = await rpc(method, params, ALICE);
      expect([401, 403]).not.toContain(res.status);
      if (res.headers.get('content-type')?.startsWith('text/event-stream')) return void (await res.body?.cancel());
      const body: Json = await res.json();
      expect(body.error?.data?.[0]?.reason).not.toBe('UNAUTHENTICATED');
    });

    it.each(REST_CALLS)('HTTP+JSON %s reaches the operation', async (_name, method, path, body) => {
      const res = await rest(method, path, body, ALICE);
      expect([401, 403]).not.toContain(res.status);
      await res.body?.cancel();
    });
  });

  it('publishes exactly the scheme the guard declares', async () => {
    const card: Json = await (await fetch(`${demo.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json();
    expect(card.securitySchemes).toEqual({ apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key', description: 'A demo API key' } } });
    expect(card.securityRequirements).toEqual([{ schemes: { apiKey: {} } }]);
  });

  describe.each([
    ['JSON-RPC', (url: string) => jsonRpcClient(`${url}/a2a/jsonrpc`)],
    ['HTTP+JSON', (url: string) => restClient(`${url}/a2a/rest`)],
  ])('caller isolation over %s', (_name, make) => {
    let client: BindingClient;
    let running: Json;
    let asked: Json;
    beforeAll(async () => {
      client = make(demo.url);
      running = (await client.call('SendMessage', { message: userMessage('/task slow 3000 mine'), configuration: { returnImmediately: true } }, { headers: ALICE })).result.task;
      asked = (await client.call('SendMessage', { message: userMessage('/ask') }, { headers: ALICE })).result.task;
    });

    it("answers another caller's task exactly like a missing one", async () => {
      const missing = await client.call('GetTask', { id: 'no-such-task' }, { headers: BOB });
      const foreign = await client.call('GetTask', { id: running.id }, { headers: BOB });
      expect(foreign.status).toBe(missing.status);
      expect(foreign.error?.reason).toBe('TASK_NOT_FOUND');
      expect(foreign.error?.code).toBe(missing.error?.code);
    });

    it.each([
      ['CancelTask', (t: Json) => ({ id: t.id })],
      ['SendMessage', (t: Json) => ({ message: userMessage('my answer', { taskId: t.id }) })],
    ])('refuses %s on the other caller\'s task with TaskNotFound', async (operation, params) => {
      const res = await client.call(operation, params(asked), { headers: BOB });
      expect(res.error?.reason).toBe('TASK_NOT_FOUND');
    });

    it('refuses SubscribeToTask on the other caller\'s task with TaskNotFound', async () => {
      const stream = await client.stream('SubscribeToTask', { id: running.id }, { headers: BOB });
      expect(stream.events).toEqual([]);
      expect(stream.error?.reason).toBe('TASK_NOT_FOUND');
    });

    it('never lists the other caller\'s tasks', async () => {
      const bobs = (await client.call('ListTasks', {}, { headers: BOB })).result.tasks.map((t: Json) => t.id);
      expect(bobs).not.toContain(running.id);
      expect(bobs).not.toContain(asked.id);
      const alices = (await client.call('ListTasks', {}, { headers: ALICE })).result.tasks.map((t: Json) => t.id);
      expect(alices).toEqual(expect.arrayContaining([running.id, asked.id]));
    });

    it('leaves the owner every operation', async () => {
      expect((await client.call('GetTask', { id: running.id }, { headers: ALICE })).result.id).toBe(running.id);
      expect((await client.call('CancelTask', { id: running.id }, { headers: ALICE })).result.status.state).toBe('TASK_STATE_CANCELED');
      const answered = (await client.call('SendMessage', { message: userMessage('x', { taskId: asked.id }) }, { headers: ALICE })).result.task;
      expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    });
  });
});

// ---- the card publishes what the agent does, never how it is built ----

const INTERNAL = 'SECRET-internal-value';

@A2AAgent({
  name: 'leaky',
  description: 'An agent full of internals',
  skills: [{ id: 's', name: 'S', description: 'does s', tags: ['declared-tag'], internalNote: INTERNAL } as Json],
  databaseUrl: `postgres://admin:${INTERNAL}@db/prod`,
  extensions: [{ uri: 'https://example.com/ext', params: { mode: 'public' }, secret: INTERNAL } as Json],
} as Json)
@Injectable()
class LeakyAgent implements AgentExecutor {
  readonly apiKey = INTERNAL;
  readonly options = { token: INTERNAL };
  execute(ctx: TaskContext) {
    return ctx.reply('ok');
  }
}
Reflect.defineMetadata('custom:secret', INTERNAL, LeakyAgent);

/** A guard that enforces something but declares nothing. */
@Injectable()
class SilentGuard implements CanActivate {
  canActivate() {
    return true;
  }
}

describeOnEachPlatform('an honest card', () => {
  let running: RunningApp;
  afterAll(() => running?.close());

  it('holds nothing that was not declared, and nothing a silent guard did not declare', async () => {
    running = await startApp(A2AModule.forRoot({ guards: [SilentGuard] }), [LeakyAgent]);
    const text = await (await fetch(`${running.url}/.well-known/agent-card.json`)).text();
    expect(text).not.toContain(INTERNAL);
    expect(text).not.toMatch(/internalNote|databaseUrl|apiKey|"secret"|token/);
    const card = JSON.parse(text);
    expect(card.skills).toEqual([{ id: 's', name: 'S', description: 'does s', tags: ['declared-tag'] }]);
    expect(card.capabilities.extensions).toEqual([{ uri: 'https://example.com/ext', params: { mode: 'public' } }]);
    expect(card).not.toHaveProperty('securitySchemes');
    expect(card).not.toHaveProperty('securityRequirements');
  });
});

// ---- module guards, @A2APublic, combined requirements, the extended card ----

/** A second guard: every request also needs a tenant header (both requirements add up). */
@A2ASecurity({ schemes: { tenantKey: SecuritySchemes.apiKey('X-Tenant', 'header') } })
@Injectable()
class TenantGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}
  canActivate(context: ExecutionContext) {
    if (this.reflector.getAllAndOverride<boolean>(A2A_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    return context.switchToHttp().getRequest().headers['x-tenant'] === 'acme';
  }
}

describeOnEachPlatform('guards given to the module, and the extended card', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp(A2AModule.forRoot({ guards: [BearerGuard] }), [VaultAgent, { provide: APP_GUARD, useClass: TenantGuard }]);
  });
  afterAll(() => running.close());

  const headers = (token?: string) => ({ 'X-Tenant': 'acme', ...(token ? { Authorization: `Bearer t-${token}` } : {}) });

  it('combines the requirements of every guard and declares the extended card', async () => {
    const card: Json = await (await fetch(`${running.url}/.well-known/agent-card.json`)).json();
    expect(Object.keys(card.securitySchemes).sort()).toEqual(['bearer', 'tenantKey']);
    expect(card.securityRequirements).toEqual([{ schemes: { tenantKey: {}, bearer: {} } }]);
    expect(card.capabilities.extendedAgentCard).toBe(true);
  });

  it('answers 401 (Bearer challenge) and 403 in the binding shape', async () => {
    const client = restClient(`${running.url}/a2a/rest`);
    const unauthenticated = await client.call('GetTask', { id: 'x' }, { headers: headers() });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('www-authenticate')).toContain('Bearer realm="a2a"');
    const forbidden = await jsonRpcClient(`${running.url}/a2a/jsonrpc`).call('GetTask', { id: 'x' }, { headers: { Authorization: 'Bearer t-ann' } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.raw.error).toMatchObject({ code: -32000, data: [{ reason: 'PERMISSION_DENIED' }] });
  });

  it('gives the caller to the executor', async () => {
    const res = await jsonRpcClient(`${running.url}/a2a/jsonrpc`).call('SendMessage', { message: userMessage('hi') }, { headers: headers('ann') });
    expect(res.result.message.parts[0].text).toBe('hello ann');
  });

  it('serves the extended card by caller, on both bindings', async () => {
    for (const client of [jsonRpcClient(`${running.url}/a2a/jsonrpc`), restClient(`${running.url}/a2a/rest`)]) {
      const gold = await client.call('GetExtendedAgentCard', {}, { headers: headers('gold') });
      expect(gold.result).toMatchObject({ name: 'vault', description: 'Gold description', skills: [{ id: 'gold' }] });
      expect(gold.result.supportedInterfaces).toHaveLength(2);
      expect(gold.result.securitySchemes.bearer).toBeDefined();
      const basic = await client.call('GetExtendedAgentCard', {}, { headers: headers('ann') });
      expect(basic.error?.reason).toBe('EXTENDED_AGENT_CARD_NOT_CONFIGURED');
    }
  });
});

describeOnEachPlatform('@A2APublic', () => {
  it('is on the card routes, so a host guard can honour it', () => {
    expect(Reflect.getMetadata(A2A_PUBLIC, class {})).toBeUndefined();
    @A2APublic()
    class Marked {}
    expect(Reflect.getMetadata(A2A_PUBLIC, Marked)).toBe(true);
  });
});
