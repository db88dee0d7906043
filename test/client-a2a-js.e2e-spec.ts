/**
 * Interop, the other way round: our client drives a server built on the official `@a2a-js/sdk`
 * (its DefaultRequestHandler behind its own Express handlers, code we did not write), over both
 * of its transports.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { AGENT_CARD_PATH, AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { TaskNotCancelableError, TaskNotFoundError } from 'nestjs-a2a';
import { A2ACircuitBreakers, A2AClient, type A2ABinding } from 'nestjs-a2a/client';
import { describeEvent, taskOf } from './support/client-results.js';
import { userMessage } from './support/wire-client.js';

/** `/task [slow ms] text` runs a task (artifact `echo: text`); anything else is answered with a message. */
class EchoExecutor implements AgentExecutor {
  private readonly canceled = new Set<string>();

  cancelTask = async (taskId: string): Promise<void> => {
    this.canceled.add(taskId);
  };

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = context;
    const part = context.userMessage.parts[0]?.content;
    const text = part?.$case === 'text' ? part.value : '';
    if (!text.startsWith('/task')) {
      bus.publish(AgentEvent.message(Message.fromJSON({ messageId: `r-${taskId}`, role: 'ROLE_AGENT', contextId, parts: [{ text: `echo: ${text}` }] })));
      return;
    }
    const match = /^\/task(?: slow (\d+))?\s*(.*)$/s.exec(text)!;
    const status = (state: string) => AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId, contextId, status: { state, timestamp: new Date().toISOString() } }));
    bus.publish(AgentEvent.task(context.task ?? Task.fromJSON({ id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' }, history: [Message.toJSON(context.userMessage)] })));
    bus.publish(status('TASK_STATE_WORKING'));
    const until = Date.now() + Number(match[1] ?? 0);
    while (Date.now() < until) {
      if (this.canceled.has(taskId)) {
        bus.publish(status('TASK_STATE_CANCELED'));
        return;
      }
      await sleep(20);
    }
    bus.publish(
      AgentEvent.artifactUpdate(
        TaskArtifactUpdateEvent.fromJSON({ taskId, contextId, artifact: { artifactId: 'a-1', name: 'echo', parts: [{ text: `echo: ${match[2]}` }] }, lastChunk: true }),
      ),
    );
    bus.publish(status('TASK_STATE_COMPLETED'));
  }
}

let server: Server;
let base: string;

// the SDK logs every error it answers with console.error; expected errors are this file's business
const quiet = jest.spyOn(console, 'error').mockImplementation(() => undefined);

beforeAll(async () => {
  const app = express();
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = AgentCard.fromJSON({
    name: 'sdk-echo',
    description: 'An echo agent on the official a2a-js server',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes', tags: ['echo'] }],
  });
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor());
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
});

afterAll(async () => {
  quiet.mockRestore();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe.each<A2ABinding>(['JSONRPC', 'HTTP+JSON'])('A2AClient on %s against an @a2a-js/sdk server', (binding) => {
  let client: A2AClient;
  beforeAll(() => {
    client = new A2AClient({ cardUrl: base, preferredBinding: binding, egress: { allowHttp: true, allowPrivate: true }, circuitBreakers: new A2ACircuitBreakers() });
  });
  afterAll(() => client.close());

  it('reads the SDK-served card and selects the binding', async () => {
    expect((await client.getAgentCard()).name).toBe('sdk-echo');
    expect((await client.getInterface()).binding).toBe(binding);
  });

  it('SendMessage: a message, and a blocking task', async () => {
    const reply = await client.sendMessage({ message: userMessage('hello') });
    expect('message' in reply && reply.message.parts[0].text).toBe('echo: hello');
    const task = taskOf(await client.sendMessage({ message: userMessage('/task hi') }));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts?.[0].parts[0].text).toBe('echo: hi');
  });

  it('SendStreamingMessage: the lifecycle in order', async () => {
    const events = await client.sendStreamingMessage({ message: userMessage('/task streamed') }).toArray();
    expect(events.map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_WORKING', 'artifact:echo: streamed', 'status:TASK_STATE_COMPLETED']);
  });

  it('GetTask and CancelTask (and their typed errors)', async () => {
    const task = taskOf(await client.sendMessage({ message: userMessage('/task slow 3000 x'), configuration: { returnImmediately: true } }));
    expect((await client.getTask({ id: task.id })).id).toBe(task.id);
    const canceled = await client.cancelTask({ id: task.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const done = taskOf(await client.sendMessage({ message: userMessage('/task done') }));
    await expect(client.cancelTask({ id: done.id })).rejects.toBeInstanceOf(TaskNotCancelableError);
    await expect(client.getTask({ id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('SubscribeToTask: the snapshot, then the events to COMPLETED', async () => {
    const task = taskOf(await client.sendMessage({ message: userMessage('/task slow 300 sub'), configuration: { returnImmediately: true } }));
    const events = await client.subscribeToTask({ id: task.id }).toArray();
    expect(describeEvent(events[0])).toMatch(/^task:/);
    expect(events.map(describeEvent).slice(-2)).toEqual(['artifact:echo: sub', 'status:TASK_STATE_COMPLETED']);
    await expect(client.subscribeToTask({ id: 'no-such-task' }).toArray()).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});
