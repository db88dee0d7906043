/**
 * An A2A 0.3 agent built on the official `@a2a-js/sdk` 0.3.14 (its DefaultRequestHandler behind
 * its own Express handlers, code we did not write), on 127.0.0.1: JSON-RPC at `/a2a/jsonrpc`,
 * its REST transport at `/a2a/rest`, its card at `/.well-known/agent-card.json`.
 *
 * `/task [slow ms] text` runs a task (artifact `echo: text`), `/ask` asks for input, anything else
 * is answered with a message. Push configs are stored but nothing is ever sent (no outbound
 * traffic). Every request's method, path and headers are recorded.
 */
import { afterAll, beforeAll, jest } from '@jest/globals';
import express from 'express';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from 'a2a-sdk-v03';
import { DefaultRequestHandler, InMemoryPushNotificationStore, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-v03/server';
import { agentCardHandler, jsonRpcHandler, restHandler } from 'a2a-sdk-v03/server/express';

type Event = Message | Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

class EchoV03Executor implements AgentExecutor {
  private readonly canceled = new Set<string>();

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    this.canceled.add(taskId);
    bus.publish(status(taskId, this.contexts.get(taskId) ?? '', 'canceled', true));
    bus.finished();
  };

  private readonly contexts = new Map<string, string>();

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = context;
    const text = userMessage.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
    const publish = (event: Event) => this.canceled.has(taskId) || bus.publish(event);
    if (context.task?.status.state === 'input-required') {
      publish(artifact(taskId, contextId, `echo: ${text}`));
      publish(status(taskId, contextId, 'completed', true));
      return bus.finished();
    }
    if (!text.startsWith('/task') && !text.startsWith('/ask')) {
      publish({ kind: 'message', messageId: `r-${taskId}`, role: 'agent', contextId, parts: [{ kind: 'text', text: `echo: ${text}` }] });
      return bus.finished();
    }
    this.contexts.set(taskId, contextId);
    publish(context.task ?? { kind: 'task', id: taskId, contextId, status: { state: 'submitted', timestamp: new Date().toISOString() }, history: [userMessage] });
    publish(status(taskId, contextId, 'working', false));
    if (text.startsWith('/ask')) {
      publish(status(taskId, contextId, 'input-required', true, 'What next?'));
      return bus.finished();
    }
    const match = /^\/task(?: slow (\d+))?\s*(.*)$/s.exec(text)!;
    const until = Date.now() + Number(match[1] ?? 0);
    while (Date.now() < until) {
      if (this.canceled.has(taskId)) return;
      await sleep(20);
    }
    publish(artifact(taskId, contextId, `echo: ${match[2]}`));
    publish(status(taskId, contextId, 'completed', true));
    if (!this.canceled.has(taskId)) bus.finished();
  }
}

function status(taskId: string, contextId: string, state: TaskStatusUpdateEvent['status']['state'], final: boolean, question?: string): TaskStatusUpdateEvent {
  const message: Message | undefined = question === undefined ? undefined : { kind: 'message', messageId: `q-${taskId}`, role: 'agent', taskId, contextId, parts: [{ kind: 'text', text: question }] };
  return { kind: 'status-update', taskId, contextId, status: { state, timestamp: new Date().toISOString(), ...(message ? { message } : {}) }, final };
}

function artifact(taskId: string, contextId: string, text: string): TaskArtifactUpdateEvent {
  return { kind: 'artifact-update', taskId, contextId, artifact: { artifactId: 'a-1', name: 'echo', parts: [{ kind: 'text', text }] }, lastChunk: true };
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface V03SdkServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly card: AgentCard;
  /** Every request but the card's, in order. */
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts the agent. `card` changes the card it serves (what it says, not what it does). */
export async function startV03SdkServer(card: (base: string, card: AgentCard) => unknown = (_, c) => c): Promise<V03SdkServer> {
  const app = express();
  const requests: RecordedRequest[] = [];
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agentCard: AgentCard = {
    protocolVersion: '0.3.0',
    name: 'sdk-v03-echo',
    description: 'An echo agent on the official a2a-js 0.3 server',
    version: '0.3.14',
    url: `${base}/a2a/jsonrpc`,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [
      { url: `${base}/a2a/jsonrpc`, transport: 'JSONRPC' },
      { url: `${base}/a2a/rest`, transport: 'HTTP+JSON' },
    ],
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes what it is sent', tags: ['echo'] }],
    supportsAuthenticatedExtendedCard: true,
  };
  const extended: AgentCard = { ...agentCard, skills: [...agentCard.skills, { id: 'secret', name: 'Secret', description: 'For authenticated callers', tags: ['x'] }] };
  const noPush = { send: async () => undefined };
  const requestHandler = new DefaultRequestHandler(agentCard, new InMemoryTaskStore(), new EchoV03Executor(), undefined, new InMemoryPushNotificationStore(), noPush, extended);
  const served = card(base, agentCard);
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => served as AgentCard }));
  app.use(express.json(), (req, _res, next) => {
    requests.push({ method: req.method, path: req.originalUrl, headers: req.headers, body: req.body });
    next();
  });
  // every caller counts as authenticated: the SDK serves the extended card to those only
  const userBuilder = async () => ({ isAuthenticated: true, userName: 'tester' });
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder }));
  return {
    url: base,
    card: agentCard,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The agent for the enclosing `describe`: started before its tests, stopped after them, the
 * SDK's console output of the errors it answers silenced meanwhile. Returns a getter.
 */
export function v03SdkServerForSuite(card?: (base: string, card: AgentCard) => unknown): () => V03SdkServer {
  let server: V03SdkServer | undefined;
  const quiet: Array<{ mockRestore(): void }> = [];
  beforeAll(async () => {
    quiet.push(jest.spyOn(console, 'error').mockImplementation(() => undefined), jest.spyOn(console, 'warn').mockImplementation(() => undefined));
    server = await startV03SdkServer(card);
  });
  afterAll(async () => {
    await server?.close();
    quiet.splice(0).forEach((spy) => spy.mockRestore());
  });
  return () => server!;
}
