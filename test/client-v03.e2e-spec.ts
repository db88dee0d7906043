/**
 * The client's 0.3 path against hand-written peers on 127.0.0.1, for what a real SDK does not
 * show on demand: when it falls back to 0.3 and when it does not, a `final` event that ends a
 * stream the peer keeps open, and 0.3 answers that are not valid 0.3.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { A2AClient, CredentialsWithheldError, InvalidAgentResponseError, MethodNotFoundError, VersionNotSupportedError, type AgentCard } from 'nestjs-a2a';
import { startHttpServer, type LoopbackServer } from '../libs/a2a/src/net/testing/loopback-server.js';
import { rejectionOf } from '../libs/a2a/src/testing/thrown.js';
import { describeEvent, json } from './support/client-results.js';
import { userMessage } from './support/wire-client.js';

const LOCAL = { allowHttp: true, allowPrivate: true } as const;
const V03_MESSAGE = { kind: 'message', messageId: 'r-1', role: 'agent', parts: [{ kind: 'text', text: 'hi from 0.3' }] };

const open: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** A peer whose card claims JSON-RPC 1.0 at /rpc; `answer` answers each JSON-RPC call. */
async function peer(answer: (call: { method: string; params: unknown; id: unknown }, res: ServerResponse, req: IncomingMessage) => void): Promise<LoopbackServer> {
  const server = await startHttpServer((req, res, body) => {
    if (req.method === 'GET') {
      const card: AgentCard = {
        name: 'peer',
        description: 'a hand-written peer',
        version: '1',
        supportedInterfaces: [{ url: `http://127.0.0.1:${server.port}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
        capabilities: { streaming: true },
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [],
      };
      return json(res, 200, card);
    }
    answer(JSON.parse(body), res, req);
  });
  open.push(server);
  return server;
}

const methods = (server: LoopbackServer) => server.requests.filter((r) => r.method === 'POST').map((r) => JSON.parse(r.body).method as string);
const error = (res: ServerResponse, id: unknown, code: number, message: string, data?: unknown) => json(res, 200, { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } });

describe('falling back to 0.3', () => {
  it('VersionNotSupported that names 0.3 among the versions: sent again at 0.3', async () => {
    const server = await peer(({ method, id }, res) =>
      method === 'SendMessage' ? error(res, id, -32009, 'speaks 0.3', [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'VERSION_NOT_SUPPORTED', domain: 'a2a-protocol.org', metadata: { supportedVersions: '0.3' } }]) : json(res, 200, { jsonrpc: '2.0', id, result: V03_MESSAGE }),
    );
    const client = new A2AClient({ cardUrl: `http://127.0.0.1:${server.port}`, egress: LOCAL, circuitBreakers: false });
    expect(await client.sendMessage({ message: userMessage('x') })).toEqual({ message: { messageId: 'r-1', role: 'ROLE_AGENT', parts: [{ text: 'hi from 0.3' }] } });
    expect(methods(server)).toEqual(['SendMessage', 'message/send']);
    await client.close();
  });

  it('VersionNotSupported that rules 0.3 out: no fall back, the error as answered', async () => {
    const server = await peer(({ id }, res) => error(res, id, -32009, 'speaks 2.0 only', [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'VERSION_NOT_SUPPORTED', domain: 'a2a-protocol.org', metadata: { supportedVersions: '2.0' } }]));
    const client = new A2AClient({ cardUrl: `http://127.0.0.1:${server.port}`, egress: LOCAL, circuitBreakers: false });
    await expect(client.sendMessage({ message: userMessage('x') })).rejects.toThrow(VersionNotSupportedError);
    expect(methods(server)).toEqual(['SendMessage']);
    await client.close();
  });

  it('a peer that knows neither method: the 1.0 error stands, and the next call tries 1.0 again', async () => {
    const server = await peer(({ method, id }, res) => error(res, id, -32601, `Method not found: ${method}`));
    const client = new A2AClient({ cardUrl: `http://127.0.0.1:${server.port}`, egress: LOCAL, circuitBreakers: false });
    const first = await rejectionOf(client.getTask({ id: 't' }), MethodNotFoundError);
    expect(first.message).toBe('Method not found: GetTask');
    await expect(client.getTask({ id: 't' })).rejects.toThrow('Method not found: GetTask');
    expect(methods(server)).toEqual(['GetTask', 'tasks/get', 'GetTask', 'tasks/get']);
    expect((await client.getInterface()).protocolVersion).toBe('1.0');
    await client.close();
  });

  it('ListTasks has no 0.3 form: the 1.0 error stands, nothing else is sent', async () => {
    const server = await peer(({ method, id }, res) => error(res, id, -32601, `Method not found: ${method}`));
    const client = new A2AClient({ cardUrl: `http://127.0.0.1:${server.port}`, egress: LOCAL, circuitBreakers: false });
    await expect(client.listTasks()).rejects.toThrow(MethodNotFoundError);
    expect(methods(server)).toEqual(['ListTasks']);
    await client.close();
  });
});

describe('0.3 answers', () => {
  it('a status update with final: true ends the stream, even when the peer keeps it open', async () => {
    const server = await peer(({ method, id }, res) => {
      if (method === 'SendStreamingMessage') return error(res, id, -32601, 'Method not found');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = (result: unknown) => res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
      event({ kind: 'task', id: 't', contextId: 'c', status: { state: 'submitted' } });
      event({ kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'auth-required' }, final: false });
      event({ kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'completed' }, final: true });
      // and nothing more: no end, no heartbeat
    });
    const client = new A2AClient({ cardUrl: `http://127.0.0.1:${server.port}`, egress: LOCAL, circuitBreakers: false, streamIdleTimeoutMs: 60_000 });
    const events = await client.sendStreamingMessage({ message: userMessage('x') }).toArray();
    expect(events.map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_AUTH_REQUIRED', 'status:TASK_STATE_COMPLETED']);
    await client.close();
  });

  it('an answer that is not valid 0.3 is the peer’s fault, named as such', async () => {
    const server = await peer(({ method, id }, res) =>
      method === 'GetTask' ? error(res, id, -32601, 'Method not found') : json(res, 200, { jsonrpc: '2.0', id, result: { kind: 'task', id: 't', status: { state: 'TASK_STATE_WORKING' } } }),
    );
    const client = new A2AClient({ cardUrl: `http://127.0.0.1:${server.port}`, egress: LOCAL, circuitBreakers: false });
    const failure = await rejectionOf(client.getTask({ id: 't' }), InvalidAgentResponseError);
    expect(failure.message).toBe(
      `http://127.0.0.1:${server.port}/rpc: the tasks/get result is not valid A2A 0.3 (status.state must be one of submitted, working, input-required, completed, canceled, failed, rejected, auth-required, unknown; contextId is required)`,
    );
    await client.close();
  });
});

describe('credentials at 0.3 follow the rules they follow at 1.0', () => {
  it('an unsigned 0.3 card naming another origin gets no credentials there, unless that origin is allowed', async () => {
    const agent = await startHttpServer((_req, res, body) => json(res, 200, { jsonrpc: '2.0', id: JSON.parse(body).id, result: V03_MESSAGE }));
    open.push(agent);
    const agentUrl = `http://127.0.0.1:${agent.port}`;
    const cards = await startHttpServer((_req, res) =>
      json(res, 200, { protocolVersion: '0.3.0', name: 'elsewhere', description: 'names another origin', version: '1', url: `${agentUrl}/rpc`, capabilities: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [] }),
    );
    open.push(cards);
    // another port is another origin
    const options = { cardUrl: `http://127.0.0.1:${cards.port}`, egress: LOCAL, circuitBreakers: false as const, headers: { authorization: 'Bearer SECRET-v03' } };
    const withheld = new A2AClient(options);
    await expect(withheld.sendMessage({ message: userMessage('x') })).rejects.toThrow(CredentialsWithheldError);
    expect(agent.requests).toEqual([]);
    await withheld.close();
    const allowed = new A2AClient({ ...options, credentialOrigins: [agentUrl] });
    expect(await allowed.sendMessage({ message: userMessage('x') })).toMatchObject({ message: { messageId: 'r-1' } });
    expect(agent.requests.map((r) => r.headers.authorization)).toEqual(['Bearer SECRET-v03']);
    expect(cards.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
    await allowed.close();
  });
});
