/**
 * PeerToolProvider: peers as tools, against the demo and against scripted peers on 127.0.0.1.
 * Tools follow the peer's card, grants are narrowed at every call, credentials are resolved by
 * name at call time, deadlines and the breaker turn failures into TOOL_TIMEOUT / TOOL_UNAVAILABLE,
 * and nothing secret reaches an error, a log line or the diagnostics. Nothing here dials anything
 * but 127.0.0.1 (an unreachable peer is a closed port on 127.0.0.1).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, type INestApplication, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  A2AAgent,
  A2AConfigurationError,
  A2ACredentialStrategy,
  A2AModule,
  PeerToolProvider,
  TaskNotFoundError,
  ToolApprovalDeniedError,
  ToolInputError,
  ToolNotGrantedError,
  ToolTimeoutError,
  ToolUnavailableError,
  type A2AModuleOptions,
  type AgentCard,
  type AgentExecutor,
  type CredentialContext,
  type CredentialRequest,
  type CredentialResolver,
  type CredentialStrategy,
  type PeerTool,
  type TaskContext,
  type ToolApproval,
  type ToolApprovalRequest,
} from 'nestjs-a2a';
import { startHttpServer, type LoopbackServer } from '../libs/a2a/src/net/testing/loopback-server.js';
import { rejectionOf } from '../libs/a2a/src/testing/thrown.js';
import { json, messages } from './support/client-results.js';
import { v03SdkServerForSuite } from './support/a2a-js-v03-server.js';
import { startDemo, type RunningApp } from './support/demo-app.js';
import { sleep } from './support/wire-client.js';

const LOCAL = { allowHttp: true, allowHosts: ['127.0.0.1'] };
const ALICE = { subject: 'alice' };
const SECRET = 'SECRET-8f3a9c2e71d4';

@A2AAgent({ name: 'host', description: 'the app that uses the tools', skills: [{ id: 'x', name: 'X', description: 'x', tags: ['x'] }] })
@Injectable()
class HostAgent implements AgentExecutor {
  execute(ctx: TaskContext) {
    return ctx.reply('ok');
  }
}

const apps: INestApplication[] = [];
const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

interface Built {
  app: INestApplication;
  peers: PeerToolProvider;
}

/** An app with the given outbound options (started: required peers are looked up). */
async function build(options: A2AModuleOptions, extras: { providers?: Type[]; toolApproval?: Type<ToolApproval> } = {}): Promise<Built> {
  const moduleRef = await Test.createTestingModule({
    imports: [A2AModule.forRoot({ ...options, ...(extras.toolApproval ? { toolApproval: extras.toolApproval } : {}) })],
    providers: [HostAgent, ...(extras.providers ?? [])],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  apps.push(app);
  await app.init();
  return { app, peers: app.get(PeerToolProvider) };
}

interface ScriptedPeer {
  server: LoopbackServer;
  url: string;
  /** The card's skills (change them to change the card). */
  skills: AgentCard['skills'];
  /** Answers SendMessage: the JSON-RPC result, or a function writing the answer itself. */
  answer: (params: any, req: IncomingMessage, res: ServerResponse, id: unknown) => void; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** The JSON-RPC calls received. */
  calls: Array<{ method: string; params: any; headers: IncomingMessage['headers'] }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Overrides the interface URL the card lists. */
  interfaceUrl?: string;
  /** Drop every connection (a peer that is down). */
  down?: boolean;
}

/** A peer speaking JSON-RPC on 127.0.0.1 whose card and answers a test scripts. */
async function scriptedPeer(cardHeaders: Record<string, string> = { 'cache-control': 'max-age=60' }): Promise<ScriptedPeer> {
  const peer: ScriptedPeer = {
    server: undefined as never,
    url: '',
    skills: [
      { id: 'search', name: 'Search', description: 'Searches', tags: ['search'] },
      { id: 'search.deep', name: 'Deep search', description: 'Searches deeply', tags: ['search'] },
      { id: 'admin-purge', name: 'Purge', description: 'Deletes everything', tags: ['admin'] },
    ],
    calls: [],
    answer: (params, _req, res, id) => {
      const text = params.message.parts.map((p: { text?: string }) => p.text ?? '').join('');
      json(res, 200, { jsonrpc: '2.0', id, result: { message: { messageId: 'r-1', role: 'ROLE_AGENT', parts: [{ text: `peer: ${text}` }] } } });
    },
  };
  peer.server = await startHttpServer((req, res, body) => {
    if (peer.down) return void req.socket.destroy();
    const base = `http://127.0.0.1:${peer.server.port}`;
    if (req.method === 'GET') {
      const card: AgentCard = {
        name: 'scripted',
        description: 'a scripted peer',
        version: '1.0.0',
        supportedInterfaces: [{ url: peer.interfaceUrl ?? `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
        capabilities: {},
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: peer.skills,
      };
      return json(res, 200, card, cardHeaders);
    }
    const call = JSON.parse(body);
    peer.calls.push({ method: call.method, params: call.params, headers: req.headers });
    peer.answer(call.params, req, res, call.id);
  });
  servers.push(peer.server);
  peer.url = `http://127.0.0.1:${peer.server.port}`;
  return peer;
}

function toolNamed(tools: PeerTool[], name: string): PeerTool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} among ${tools.map((t) => t.name).join(', ')}`);
  return tool;
}

describe('PeerToolProvider against the demo', () => {
  let demo: RunningApp;
  beforeAll(async () => {
    demo = await startDemo();
  });
  afterAll(() => demo.close());

  it("one tool per skill of the peer's card, named {peer}__{skill}, whose answer is marked untrusted", async () => {
    const { peers } = await build({ peers: [{ name: 'echo', url: demo.url, egress: LOCAL }] });
    const tools = await peers.tools(ALICE);
    expect(tools.map((t) => t.name)).toEqual(['echo__echo']);
    const [tool] = tools;
    expect(tool.description).toMatch(/^Echo: Answers with the text it was sent/);
    expect(tool.inputSchema).toMatchObject({ type: 'object', required: ['text'], properties: { text: { type: 'string' }, data: { type: 'object' } } });

    const reply = await tool.invoke({ text: 'hello' }, { caller: ALICE });
    expect(reply).toMatchObject({ untrusted: true, kind: 'message', text: 'echo: hello', peer: 'echo', skill: 'echo', tool: 'echo__echo' });
    const task = await tool.invoke({ text: '/task hi' }, { caller: ALICE });
    expect(task).toMatchObject({ untrusted: true, kind: 'task', text: 'echo: hi', state: 'TASK_STATE_COMPLETED' });
    expect(task.artifacts[0].parts[0].text).toBe('echo: hi');
    expect(peers.diagnostics()).toEqual([
      expect.objectContaining({ name: 'echo', state: 'reachable', cardName: 'echo', tools: ['echo__echo'], breaker: 'closed', clients: 1, optional: false }),
    ]);
  });

  it('A2A errors the peer answered with surface as themselves; a per-agent card is a peer of its own', async () => {
    const { peers } = await build({
      peers: [
        { name: 'echo', url: demo.url, egress: LOCAL },
        { name: 'support', url: `${demo.url}/agents/support/.well-known/agent-card.json`, egress: LOCAL, allow: ['deleg*'] },
      ],
    });
    const tools = await peers.tools(ALICE);
    expect(tools.map((t) => t.name)).toEqual(['echo__echo', 'support__delegate']);
    await expect(toolNamed(tools, 'echo__echo').invoke({ text: 'again', taskId: 'no-such-task' }, { caller: ALICE })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(toolNamed(tools, 'echo__echo').invoke({ text: 3 } as never, { caller: ALICE })).rejects.toBeInstanceOf(ToolInputError);
  });
});

describe('PeerToolProvider against an A2A 0.3 agent (@a2a-js/sdk 0.3 server)', () => {
  const sdk = v03SdkServerForSuite();

  it('its skills are tools; a call is a message or a task, as with a 1.0 peer; its errors surface as themselves', async () => {
    const { peers } = await build({ peers: [{ name: 'legacy', url: sdk().url, egress: LOCAL }] });
    const tools = await peers.tools(ALICE);
    expect(tools.map((t) => t.name)).toEqual(['legacy__echo']);
    const [tool] = tools;
    expect(await tool.invoke({ text: 'hello' }, { caller: ALICE })).toMatchObject({ untrusted: true, kind: 'message', text: 'echo: hello', peer: 'legacy', skill: 'echo' });
    const task = await tool.invoke({ text: '/task hi' }, { caller: ALICE });
    expect(task).toMatchObject({ untrusted: true, kind: 'task', text: 'echo: hi', state: 'TASK_STATE_COMPLETED' });
    await expect(tool.invoke({ text: 'again', taskId: 'no-such-task' }, { caller: ALICE })).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(peers.diagnostics()).toEqual([expect.objectContaining({ name: 'legacy', state: 'reachable', cardName: 'sdk-v03-echo', tools: ['legacy__echo'] })]);
  });
});

describe('PeerToolProvider: tools follow the card', () => {
  it('allow globs choose the skills', async () => {
    const peer = await scriptedPeer();
    const { peers } = await build({ peers: [{ name: 'research', url: peer.url, egress: LOCAL, allow: ['search*'] }] });
    expect((await peers.tools(ALICE)).map((t) => t.name)).toEqual(['research__search', 'research__search_deep']);
  });

  it('tools appear and disappear as the card changes; a tool obtained before its skill left fails clearly, without calling', async () => {
    const peer = await scriptedPeer({ 'cache-control': 'max-age=3600' });
    // the peer says an hour; the app caps freshness at 100 ms
    const { peers } = await build({ peers: [{ name: 'research', url: peer.url, egress: LOCAL }], outbound: { cardCache: { maxTtlMs: 100 } } });
    const before = await peers.tools(ALICE);
    expect(before.map((t) => t.name)).toEqual(['research__search', 'research__search_deep', 'research__admin-purge']);

    peer.skills = peer.skills.filter((s) => s.id !== 'admin-purge');
    peer.skills.push({ id: 'summarise', name: 'Summarise', description: 'Summarises', tags: ['text'] });
    // still fresh: nothing changed yet
    expect((await peers.tools(ALICE)).map((t) => t.name)).toContain('research__admin-purge');
    await sleep(150);
    expect((await peers.tools(ALICE)).map((t) => t.name)).toEqual(['research__search', 'research__search_deep', 'research__summarise']);

    const error = await rejectionOf(toolNamed(before, 'research__admin-purge').invoke({ text: 'purge it all' }, { caller: ALICE }));
    expect(error).toBeInstanceOf(ToolNotGrantedError);
    expect(error).toMatchObject({ code: 'TOOL_NOT_GRANTED', retriable: false, tool: 'research__admin-purge', peer: 'research' });
    expect((error as Error).message).toBe('research__admin-purge: the peer no longer grants skill "admin-purge" (it left the peer\'s card, or the allow patterns no longer match it)');
    expect(peer.calls).toEqual([]);
    // a tool still granted works
    await expect(toolNamed(before, 'research__search').invoke({ text: 'q' }, { caller: ALICE })).resolves.toMatchObject({ text: 'peer: q' });
    expect(peers.diagnostics()[0].tools).toEqual(['research__search', 'research__search_deep', 'research__summarise']);
  });

  it('one client per (caller, peer, credential, tenant); a tool listed for one caller is not another caller’s', async () => {
    const peer = await scriptedPeer();
    const { peers } = await build({ peers: [{ name: 'research', url: peer.url, egress: LOCAL, allow: ['search'] }] });
    const [forAlice] = await peers.tools(ALICE);
    await forAlice.invoke({ text: 'a' }, { caller: ALICE });
    await forAlice.invoke({ text: 'b' }, { caller: ALICE });
    expect(peers.diagnostics()[0].clients).toBe(1);
    const [forBob] = await peers.tools({ subject: 'bob' });
    await forBob.invoke({ text: 'c' }, { caller: { subject: 'bob' } });
    expect(peers.diagnostics()[0].clients).toBe(2);
    await expect(forAlice.invoke({ text: 'd' }, { caller: { subject: 'bob' } })).rejects.toBeInstanceOf(ToolNotGrantedError);
    expect(peer.calls).toHaveLength(3);
  });

  it("sends the peer's own tenant and extensions on every call", async () => {
    const peer = await scriptedPeer();
    const { peers } = await build({ peers: [{ name: 'research', url: peer.url, egress: LOCAL, allow: ['search'], tenant: 'acme', extensions: ['https://ext.example.com/v1'] }] });
    const [tool] = await peers.tools(ALICE);
    await tool.invoke({ text: 'q' }, { caller: ALICE });
    expect(peer.calls[0].params.tenant).toBe('acme');
    expect(peer.calls[0].headers['a2a-extensions']).toBe('https://ext.example.com/v1');
  });
});

describe('PeerToolProvider: required and optional peers', () => {
  it('an optional peer is not looked up at start-up; unreachable, its tools are omitted and diagnostics say why', async () => {
    const peer = await scriptedPeer();
    const { peers } = await build({
      peers: [
        { name: 'research', url: peer.url, egress: LOCAL, allow: ['search'] },
        { name: 'billing', url: 'http://127.0.0.1:1', egress: LOCAL, optional: true },
      ],
      outbound: { retry: false },
    });
    expect(peers.diagnostics().find((d) => d.name === 'billing')).toMatchObject({ state: 'unknown', tools: [] });
    expect((await peers.tools(ALICE)).map((t) => t.name)).toEqual(['research__search']);
    const billing = peers.diagnostics().find((d) => d.name === 'billing');
    expect(billing).toMatchObject({ name: 'billing', url: 'http://127.0.0.1:1/', optional: true, state: 'unreachable', tools: [] });
    expect(billing?.lastError).toMatch(/ECONNREFUSED/);
    expect(billing?.lastErrorAt).toEqual(expect.any(String));
  });

  it('an optional peer that comes up later gets its tools', async () => {
    const peer = await scriptedPeer();
    peer.down = true;
    const { peers } = await build({ peers: [{ name: 'late', url: peer.url, egress: LOCAL, optional: true, allow: ['search'] }], outbound: { retry: false } });
    expect(await peers.tools(ALICE)).toEqual([]);
    expect(peers.diagnostics()[0]).toMatchObject({ state: 'unreachable', lastError: expect.stringMatching(/EgressRequestError/) });
    peer.down = false;
    expect((await peers.tools(ALICE)).map((t) => t.name)).toEqual(['late__search']);
    expect(peers.diagnostics()[0]).toMatchObject({ state: 'reachable', tools: ['late__search'] });
    expect(peers.diagnostics()[0].lastError).toBeUndefined();
  });

  it('a required peer that is unreachable fails start-up, naming it', async () => {
    const error = await rejectionOf(build({ peers: [{ name: 'billing', url: 'http://127.0.0.1:1', egress: LOCAL }], outbound: { retry: false } }));
    expect(error).toBeInstanceOf(A2AConfigurationError);
    expect((error as A2AConfigurationError).problems).toEqual([
      expect.stringMatching(/^peers: the required peer "billing" could not be reached or used at start-up \(EgressRequestError: .*ECONNREFUSED.*\); make it reachable, or declare it optional: true$/),
    ]);
  });

  it('a required peer that answers lets start-up through', async () => {
    const peer = await scriptedPeer();
    const { peers } = await build({ peers: [{ name: 'research', url: peer.url, egress: LOCAL }] });
    expect(peers.diagnostics()[0]).toMatchObject({ state: 'reachable', cardName: 'scripted', cardFetchedAt: expect.any(String) });
  });
});

describe('PeerToolProvider: deadlines and the breaker', () => {
  it('a slow peer: TOOL_TIMEOUT within the budget', async () => {
    const peer = await scriptedPeer();
    const timers: NodeJS.Timeout[] = [];
    peer.answer = (_params, _req, res, id) => {
      timers.push(setTimeout(() => json(res, 200, { jsonrpc: '2.0', id, result: { message: { messageId: 'x', role: 'ROLE_AGENT', parts: [{ text: 'late' }] } } }), 3000));
    };
    const { peers } = await build({ peers: [{ name: 'slow', url: peer.url, egress: LOCAL, allow: ['search'], timeoutMs: 300 }] });
    const [tool] = await peers.tools(ALICE);
    const started = Date.now();
    const error = await rejectionOf(tool.invoke({ text: 'q' }, { caller: ALICE }));
    timers.forEach(clearTimeout);
    expect(error).toBeInstanceOf(ToolTimeoutError);
    expect(error).toMatchObject({ code: 'TOOL_TIMEOUT', retriable: true, timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(peers.diagnostics()[0].lastError).toMatch(/TOOL_TIMEOUT|no complete answer within 300 ms/);
  });

  it('a trickling peer (a byte every 50 ms, forever): TOOL_TIMEOUT all the same', async () => {
    const peer = await scriptedPeer();
    const timers: NodeJS.Timeout[] = [];
    peer.answer = (_params, _req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      timers.push(setInterval(() => res.write(' '), 50));
    };
    const { peers } = await build({ peers: [{ name: 'trickle', url: peer.url, egress: LOCAL, allow: ['search'], timeoutMs: 400 }] });
    const [tool] = await peers.tools(ALICE);
    const started = Date.now();
    const error = await rejectionOf(tool.invoke({ text: 'q' }, { caller: ALICE }));
    timers.forEach(clearInterval);
    expect(error).toBeInstanceOf(ToolTimeoutError);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('the breaker opens after consecutive failures (TOOL_UNAVAILABLE at once, nothing sent) and closes after the half-open delay', async () => {
    const peer = await scriptedPeer();
    let healthy = false;
    const healthyAnswer = peer.answer;
    peer.answer = (params, req, res, id) => (healthy ? healthyAnswer(params, req, res, id) : json(res, 503, { error: 'down' }));
    const { peers } = await build({
      peers: [{ name: 'flaky', url: peer.url, egress: LOCAL, allow: ['search'] }],
      outbound: { retry: false, circuitBreaker: { failureThreshold: 2, halfOpenAfterMs: 300 } },
    });
    const [tool] = await peers.tools(ALICE);
    for (let i = 0; i < 2; i++) {
      const error = await rejectionOf(tool.invoke({ text: 'q' }, { caller: ALICE }));
      expect(error).toBeInstanceOf(ToolUnavailableError);
      expect(error).toMatchObject({ code: 'TOOL_UNAVAILABLE', retriable: true });
    }
    expect(peer.calls).toHaveLength(2);
    const started = Date.now();
    const open = await rejectionOf(tool.invoke({ text: 'q' }, { caller: ALICE }));
    expect(open).toBeInstanceOf(ToolUnavailableError);
    expect((open as Error).message).toMatch(/circuit breaker is open/);
    expect(Date.now() - started).toBeLessThan(100);
    expect(peer.calls).toHaveLength(2);
    expect(peers.diagnostics()[0]).toMatchObject({ breaker: 'open', state: 'unreachable' });

    healthy = true;
    await sleep(350);
    await expect(tool.invoke({ text: 'back' }, { caller: ALICE })).resolves.toMatchObject({ text: 'peer: back' });
    expect(peers.diagnostics()[0]).toMatchObject({ breaker: 'closed', state: 'reachable' });
  });
});

describe('PeerToolProvider: credentials, approval, redaction', () => {
  afterEach(() => {
    delete process.env.PEER_E2E_TOKEN;
    delete process.env.A2A_PEER_E2E_KEY;
  });

  it('literal secrets in the options are refused at start-up, never repeating the value', async () => {
    const error = await rejectionOf(
      build({
        peers: [
          { name: 'a', url: 'https://a.example.com', token: SECRET } as never,
          { name: 'b', url: `https://b.example.com/?api_key=${SECRET}` },
          { name: 'c', url: 'https://c.example.com', credential: `Bearer ${SECRET}` },
        ],
      }),
    );
    expect(error).toBeInstanceOf(A2AConfigurationError);
    expect((error as A2AConfigurationError).problems).toHaveLength(3);
    expect(messages(error)).not.toContain(SECRET);
  });

  it('a named credential is resolved from the environment at call time: a changed variable changes the header', async () => {
    const peer = await scriptedPeer();
    const { peers } = await build({ peers: [{ name: 'research', url: peer.url, egress: LOCAL, allow: ['search'], credential: 'peer-e2e-token' }] });
    const [tool] = await peers.tools(ALICE);

    const missing = await rejectionOf(tool.invoke({ text: 'q' }, { caller: ALICE }));
    expect(missing).toBeInstanceOf(ToolUnavailableError);
    expect(missing).toMatchObject({ retriable: false });
    expect((missing as Error).message).toBe('research__search: credential "peer-e2e-token" is not set (looked for in the environment variable PEER_E2E_TOKEN)');
    expect(peer.calls).toEqual([]);

    process.env.PEER_E2E_TOKEN = 'first-value';
    await tool.invoke({ text: 'q' }, { caller: ALICE });
    process.env.PEER_E2E_TOKEN = 'second-value\n';
    await tool.invoke({ text: 'q' }, { caller: ALICE });
    expect(peer.calls.map((c) => c.headers.authorization)).toEqual(['Bearer first-value', 'Bearer second-value']);
    // the card is public: no credential goes with it
    expect(peer.server.requests.filter((r) => r.method === 'GET').every((r) => r.headers.authorization === undefined)).toBe(true);
  });

  it("a card naming an interface on another origin gets no credential, unless that origin is in the peer's credentialOrigins", async () => {
    const cardHost = await scriptedPeer();
    const api = await scriptedPeer();
    cardHost.interfaceUrl = `${api.url}/rpc`;
    process.env.PEER_E2E_TOKEN = SECRET;
    const { peers } = await build({
      peers: [
        { name: 'elsewhere', url: cardHost.url, egress: LOCAL, allow: ['search'], credential: 'peer-e2e-token' },
        { name: 'allowed', url: cardHost.url, egress: LOCAL, allow: ['search'], credential: 'peer-e2e-token', credentialOrigins: [api.url] },
      ],
    });
    const tools = await peers.tools(ALICE);

    const withheld = await rejectionOf(toolNamed(tools, 'elsewhere__search').invoke({ text: 'q' }, { caller: ALICE }));
    expect(withheld).toBeInstanceOf(ToolUnavailableError);
    expect(withheld).toMatchObject({ retriable: false });
    expect((withheld as Error).message).toMatch(/names an interface at another origin.*nothing was sent/);
    expect(messages(withheld)).not.toContain(SECRET);
    expect(api.server.requests).toEqual([]);

    await toolNamed(tools, 'allowed__search').invoke({ text: 'q' }, { caller: ALICE });
    expect(api.calls.map((c) => c.headers.authorization)).toEqual([`Bearer ${SECRET}`]);
    expect(cardHost.server.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
  });

  it('credentialOrigins must be http(s) URLs', async () => {
    const error = await rejectionOf(build({ peers: [{ name: 'p', url: 'https://p.example.com', credentialOrigins: [`ftp://${SECRET}@x`] }] }));
    expect(error).toBeInstanceOf(A2AConfigurationError);
    expect((error as A2AConfigurationError).problems).toEqual(['peers[0].credentialOrigins (peer "p"): entry 0 must be an absolute http(s) URL or origin']);
    expect(messages(error)).not.toContain(SECRET);
  });

  it('the apiKey scheme, an env prefix, and a custom strategy registered as a provider', async () => {
    @A2ACredentialStrategy('signed')
    @Injectable()
    class SignedStrategy implements CredentialStrategy {
      async headers(context: CredentialContext) {
        return { 'x-signature': `sig(${context.request.operation}:${context.scope.subject}:${(await context.secret()).length})` };
      }
    }
    const peer = await scriptedPeer();
    process.env.A2A_PEER_E2E_KEY = 'k-1';
    const { peers } = await build(
      {
        credentials: { envPrefix: 'A2A_' },
        peers: [
          { name: 'keyed', url: peer.url, egress: LOCAL, allow: ['search'], credential: 'peer-e2e-key', scheme: 'apiKey', apiKeyHeader: 'X-Peer-Key' },
          { name: 'signed', url: peer.url, egress: LOCAL, allow: ['search'], credential: 'peer-e2e-key', scheme: 'signed' },
        ],
      },
      { providers: [SignedStrategy] },
    );
    const tools = await peers.tools(ALICE);
    await toolNamed(tools, 'keyed__search').invoke({ text: 'q' }, { caller: ALICE });
    await toolNamed(tools, 'signed__search').invoke({ text: 'q' }, { caller: ALICE });
    expect(peer.calls[0].headers['x-peer-key']).toBe('k-1');
    expect(peer.calls[1].headers['x-signature']).toBe('sig(SendMessage:alice:3)');
  });

  it("forRootAsync, and the app's own CredentialResolver, told the peer and the caller", async () => {
    const asked: Array<{ name: string; request: CredentialRequest }> = [];
    @Injectable()
    class VaultCredentials implements CredentialResolver {
      resolve(name: string, request: CredentialRequest) {
        asked.push({ name, request });
        return `vault-${name}-${request.scope.subject}`;
      }
    }
    const peer = await scriptedPeer();
    const moduleRef = await Test.createTestingModule({
      imports: [
        A2AModule.forRootAsync({
          useFactory: async () => ({ peers: [{ name: 'research', url: peer.url, egress: LOCAL, allow: ['search'], credential: 'research-token' }] }),
          credentialResolver: VaultCredentials,
        }),
      ],
      providers: [HostAgent],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    apps.push(app);
    await app.init();
    const [tool] = await app.get(PeerToolProvider).tools({ subject: 'carol', tenant: 't1' });
    await tool.invoke({ text: 'q' }, { caller: { subject: 'carol', tenant: 't1' } });
    expect(peer.calls[0].headers.authorization).toBe('Bearer vault-research-token-carol');
    expect(asked).toEqual([{ name: 'research-token', request: { peer: 'research', scope: { subject: 'carol', tenant: 't1' } } }]);
  });

  it('a scheme with no strategy fails start-up', async () => {
    const error = await rejectionOf(build({ peers: [{ name: 'p', url: 'https://p.example.com', credential: 'p-token', scheme: 'hmac', optional: true }] }));
    expect(error).toBeInstanceOf(A2AConfigurationError);
    expect((error as Error).message).toMatch(/peers\[0\]\.scheme \(peer "p"\): no credential strategy is named "hmac"/);
  });

  it("the app's approval hook sees every call with the caller's identity, and a denial sends nothing", async () => {
    const seen: ToolApprovalRequest[] = [];
    @Injectable()
    class NoPurging implements ToolApproval {
      approve(request: ToolApprovalRequest) {
        seen.push(request);
        return request.args.text.includes('forbidden') ? { approved: false, reason: 'forbidden words' } : true;
      }
    }
    const peer = await scriptedPeer();
    const { peers } = await build({ peers: [{ name: 'research', url: peer.url, egress: LOCAL, allow: ['search'] }] }, { toolApproval: NoPurging });
    const [tool] = await peers.tools(ALICE);
    const caller = { subject: 'alice', user: { sub: 'alice', roles: ['analyst'] }, authenticated: true };
    await expect(tool.invoke({ text: 'fine' }, { caller })).resolves.toMatchObject({ text: 'peer: fine' });
    const denied = await rejectionOf(tool.invoke({ text: 'forbidden' }, { caller }));
    expect(denied).toBeInstanceOf(ToolApprovalDeniedError);
    expect(denied).toMatchObject({ code: 'TOOL_DENIED', retriable: false, message: 'research__search: the call was not approved: forbidden words' });
    expect(peer.calls).toHaveLength(1);
    expect(seen).toEqual([
      { tool: 'research__search', peer: 'research', skill: 'search', args: { text: 'fine' }, caller },
      { tool: 'research__search', peer: 'research', skill: 'search', args: { text: 'forbidden' }, caller },
    ]);
  });

  it('errors and diagnostics redact URLs: a token in a URL the peer publishes never appears', async () => {
    const peer = await scriptedPeer();
    // the card sends calls to a closed port, with a secret in the query
    peer.interfaceUrl = `http://127.0.0.1:1/rpc?token=${SECRET}`;
    const { peers } = await build({ peers: [{ name: 'leaky', url: peer.url, egress: LOCAL, allow: ['search'] }], outbound: { retry: false } });
    const [tool] = await peers.tools(ALICE);
    const error = await rejectionOf(tool.invoke({ text: 'q' }, { caller: ALICE }));
    expect(error).toBeInstanceOf(ToolUnavailableError);
    expect((error as Error).message).toContain('http://127.0.0.1:1/rpc?token=REDACTED');
    expect(messages(error)).not.toContain(SECRET);
    expect(JSON.stringify(peers.diagnostics())).not.toContain(SECRET);
    expect(peers.diagnostics()[0].lastError).toContain('token=REDACTED');
  });
});
