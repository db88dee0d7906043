/**
 * Traces and metrics, read through OpenTelemetry's in-memory exporters with an SDK installed as an
 * app would: the demo on 127.0.0.1, both bindings, streams, failures, the `traceparent` a caller
 * sends, the outbound calls of A2AClient, and the support agent's tool calls (whose trace crosses agents).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { A2ACircuitBreakers, A2AClient } from 'nestjs-a2a/client';
import { waitUntil } from 'nestjs-a2a/testing';
import { startBrokenPeer } from './support/broken-peer.js';
import { startDemo, type RunningApp } from './support/demo-app.js';
import { v03SdkServerForSuite } from './support/a2a-js-v03-server.js';
import { freePort } from './support/ports.js';
import { installTelemetry, pointsWith, spansWith, traceparentOf, type TestTelemetry } from './support/telemetry.js';
import { jsonRpcClient, restClient, userMessage, type BindingClient } from './support/wire-client.js';

const SEND = 'lf.a2a.v1.A2AService/SendMessage';
const STREAM = 'lf.a2a.v1.A2AService/SendStreamingMessage';

let telemetry: TestTelemetry;
let demo: RunningApp;
let clients: BindingClient[];

beforeAll(async () => {
  telemetry = installTelemetry();
  demo = await startDemo();
  clients = [jsonRpcClient(`${demo.url}/a2a/jsonrpc`), restClient(`${demo.url}/a2a/rest`)];
});

afterAll(async () => {
  await demo?.close();
  await telemetry?.shutdown();
});

/** The span of the operation on task `taskId`, once it has ended. */
async function serverSpan(name: string, taskId: string): Promise<ReadableSpan> {
  await waitUntil(() => spansWith(telemetry.spans(), name, { 'a2a.task.id': taskId }).length > 0);
  return spansWith(telemetry.spans(), name, { 'a2a.task.id': taskId })[0];
}

async function turnSpan(taskId: string): Promise<ReadableSpan> {
  await waitUntil(() => spansWith(telemetry.spans(), 'a2a.turn', { 'a2a.task.id': taskId }).length > 0);
  return spansWith(telemetry.spans(), 'a2a.turn', { 'a2a.task.id': taskId })[0];
}

describe.each([0, 1])('a send over each binding (%#)', (index) => {
  it('makes a SERVER span with the A2A attributes, a turn span under it, and the request, turn and task metrics', async () => {
    const client = clients[index];
    const res = await client.call('SendMessage', { message: userMessage('/task hello') });
    const task = res.result.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');

    const span = await serverSpan(SEND, task.id);
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.attributes).toMatchObject({
      'rpc.system': 'a2a',
      'rpc.service': 'lf.a2a.v1.A2AService',
      'rpc.method': 'SendMessage',
      'a2a.binding': client.name,
      'a2a.protocol.version': '1.0',
      'a2a.agent': 'echo',
      'a2a.context.id': task.contextId,
      'a2a.task.state': 'TASK_STATE_COMPLETED',
    });
    expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
    const turn = await turnSpan(task.id);
    expect(turn.spanContext().traceId).toBe(span.spanContext().traceId);
    expect(turn.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
    expect(turn.attributes).toMatchObject({ 'a2a.agent': 'echo', 'a2a.context.id': task.contextId, 'a2a.task.state': 'TASK_STATE_COMPLETED' });

    await telemetry.collect();
    const requests = pointsWith(telemetry.points('rpc.server.call.duration'), { 'rpc.method': 'SendMessage', 'a2a.binding': client.name, 'a2a.agent': 'echo' });
    expect(requests).toHaveLength(1);
    expect((requests[0].value as Histogram).count).toBeGreaterThanOrEqual(1);
    expect(requests[0].attributes['error.type']).toBeUndefined();
    expect(pointsWith(telemetry.points('a2a.task.finished'), { 'a2a.agent': 'echo', 'a2a.task.state': 'TASK_STATE_COMPLETED' })[0].value).toBeGreaterThanOrEqual(index + 1);
    expect(pointsWith(telemetry.points('a2a.turn.duration'), { 'a2a.agent': 'echo', 'a2a.task.state': 'TASK_STATE_COMPLETED' })).toHaveLength(1);
  });
});

describe('a streamed task', () => {
  it('has one span for the whole stream, ended with the final state, and counts as an open stream until it ends', async () => {
    const rest = clients[1];
    const stream = rest.stream('SendStreamingMessage', { message: userMessage('/task slow 1500 streamed') });
    await waitUntil(async () => {
      await telemetry.collect();
      return pointsWith(telemetry.points('a2a.server.open_streams'), { 'rpc.method': 'SendStreamingMessage' })[0]?.value === 1;
    });
    const { events } = await stream;
    const taskId = events[0].data.task.id;
    const span = await serverSpan(STREAM, taskId);
    expect(span.attributes).toMatchObject({ 'a2a.binding': 'HTTP+JSON', 'a2a.task.state': 'TASK_STATE_COMPLETED' });
    // the span lasted as long as the stream, the slow task included
    expect(span.duration[0] + span.duration[1] / 1e9).toBeGreaterThanOrEqual(1.4);
    await telemetry.collect();
    expect(pointsWith(telemetry.points('a2a.server.open_streams'), { 'rpc.method': 'SendStreamingMessage' })[0].value).toBe(0);
  });
});

describe('a request in A2A 0.3 (the demo serves it beside 1.0)', () => {
  it('makes the same SERVER span, saying 0.3, with the task it ran', async () => {
    const res = await fetch(`${demo.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' }, // no A2A-Version: 0.3
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { kind: 'message', messageId: 'v03-span', role: 'user', parts: [{ kind: 'text', text: '/task old' }] }, configuration: { blocking: true } } }),
    });
    const { result } = (await res.json()) as { result: { kind: string; id: string; status: { state: string } } };
    expect([result.kind, result.status.state]).toEqual(['task', 'completed']);
    const span = await serverSpan(SEND, result.id);
    expect(span.attributes).toMatchObject({ 'rpc.method': 'SendMessage', 'a2a.binding': 'JSONRPC', 'a2a.protocol.version': '0.3', 'a2a.task.state': 'TASK_STATE_COMPLETED' });
    expect((await turnSpan(result.id)).parentSpanContext?.spanId).toBe(span.spanContext().spanId);
  });
});

describe('failures', () => {
  it('a failed task: FAILED on the turn, the request span and the task count', async () => {
    const res = await clients[0].call('SendMessage', { message: userMessage('/fail') });
    const task = res.result.task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect((await serverSpan(SEND, task.id)).attributes['a2a.task.state']).toBe('TASK_STATE_FAILED');
    expect((await turnSpan(task.id)).attributes['a2a.task.state']).toBe('TASK_STATE_FAILED');
    await telemetry.collect();
    expect(pointsWith(telemetry.points('a2a.task.finished'), { 'a2a.task.state': 'TASK_STATE_FAILED' })[0].value).toBeGreaterThanOrEqual(1);
  });

  it('a task canceled while it waits for input (no turn runs it): CANCELED is counted too', async () => {
    const asked = await clients[0].call('SendMessage', { message: userMessage('/ask') });
    expect(asked.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect((await turnSpan(asked.result.task.id)).attributes['a2a.task.state']).toBe('TASK_STATE_INPUT_REQUIRED');
    await telemetry.collect();
    const before = pointsWith(telemetry.points('a2a.task.finished'), { 'a2a.task.state': 'TASK_STATE_CANCELED' })[0]?.value ?? 0;
    const canceled = await clients[0].call('CancelTask', { id: asked.result.task.id });
    expect(canceled.result.status.state).toBe('TASK_STATE_CANCELED');
    await telemetry.collect();
    expect(pointsWith(telemetry.points('a2a.task.finished'), { 'a2a.agent': 'echo', 'a2a.task.state': 'TASK_STATE_CANCELED' })[0].value).toBe(Number(before) + 1);
    expect((await serverSpan('lf.a2a.v1.A2AService/CancelTask', asked.result.task.id)).attributes['a2a.task.state']).toBe('TASK_STATE_CANCELED');
  });

  it('an executor that throws: its class as error.type on the turn, never its message', async () => {
    const res = await clients[1].call('SendMessage', { message: userMessage('/throw') });
    const task = res.result.task;
    const turn = await turnSpan(task.id);
    expect(turn.status.code).toBe(SpanStatusCode.ERROR);
    expect(turn.status.message).toBeUndefined();
    expect(turn.attributes).toMatchObject({ 'error.type': 'Error', 'a2a.task.state': 'TASK_STATE_FAILED' });
    expect(JSON.stringify([turn.attributes, turn.events])).not.toContain('SECRET-');
  });

  it('a refused operation: its ErrorInfo reason as error.type, on the span and the duration metric', async () => {
    const res = await clients[0].call('GetTask', { id: 'no-such-task' });
    expect(res.error?.reason).toBe('TASK_NOT_FOUND');
    await waitUntil(() => spansWith(telemetry.spans(), 'lf.a2a.v1.A2AService/GetTask', { 'error.type': 'TASK_NOT_FOUND' }).length === 1);
    const [span] = spansWith(telemetry.spans(), 'lf.a2a.v1.A2AService/GetTask');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    await telemetry.collect();
    expect(pointsWith(telemetry.points('rpc.server.call.duration'), { 'rpc.method': 'GetTask', 'error.type': 'TASK_NOT_FOUND', 'a2a.binding': 'JSONRPC' })).toHaveLength(1);
  });
});

describe('W3C trace context', () => {
  it("a caller's traceparent is the parent of the operation's span, on both bindings", async () => {
    for (const [n, client] of clients.entries()) {
      const traceId = `${'ab'.repeat(15)}0${n}`;
      const spanId = 'cd'.repeat(8);
      const res = await client.call('SendMessage', { message: userMessage('/task traced') }, { headers: { traceparent: traceparentOf(traceId, spanId) } });
      const span = await serverSpan(SEND, res.result.task.id);
      expect(span.spanContext().traceId).toBe(traceId);
      expect(span.parentSpanContext?.spanId).toBe(spanId);
    }
  });

  it('A2AClient: a CLIENT span per call, whose traceparent goes on the wire to our own demo (its span is the server span’s parent)', async () => {
    const client = new A2AClient({ cardUrl: demo.url, egress: { allowHttp: true, allowHosts: ['127.0.0.1'] } });
    const root = trace.getTracer('test').startSpan('caller');
    try {
      const answer = await context.with(trace.setSpan(context.active(), root), () => client.sendMessage({ message: userMessage('/task outbound') }));
      const taskId = 'task' in answer ? answer.task.id : '';
      const server = await serverSpan(SEND, taskId);
      const [outbound] = spansWith(telemetry.spans(), SEND).filter((s) => s.kind === SpanKind.CLIENT && s.parentSpanContext?.spanId === root.spanContext().spanId);
      expect(outbound.attributes).toMatchObject({
        'rpc.method': 'SendMessage',
        'a2a.peer': new URL(demo.url).origin,
        'a2a.binding': 'JSONRPC',
        'a2a.protocol.version': '1.0',
        'server.address': '127.0.0.1',
      });
      expect(server.spanContext().traceId).toBe(root.spanContext().traceId);
      expect(server.parentSpanContext?.spanId).toBe(outbound.spanContext().spanId);
      await telemetry.collect();
      const calls = pointsWith(telemetry.points('rpc.client.call.duration'), { 'rpc.method': 'SendMessage', 'a2a.peer': new URL(demo.url).origin });
      expect((calls[0].value as Histogram).count).toBeGreaterThanOrEqual(1);
    } finally {
      root.end();
      await client.close();
    }
  });

  it("A2AClient's stream: one CLIENT span until the stream ends, the server's stream span its child", async () => {
    const client = new A2AClient({ cardUrl: demo.url, egress: { allowHttp: true, allowHosts: ['127.0.0.1'] }, preferredBinding: 'HTTP+JSON' });
    let taskId = '';
    try {
      for await (const event of client.sendStreamingMessage({ message: userMessage('/task streamed out') })) if ('task' in event) taskId = event.task.id;
    } finally {
      await client.close();
    }
    const server = await serverSpan(STREAM, taskId);
    const outbound = telemetry.spans().find((s) => s.spanContext().spanId === server.parentSpanContext?.spanId);
    expect(outbound?.kind).toBe(SpanKind.CLIENT);
    expect(outbound?.name).toBe(STREAM);
    expect(outbound?.attributes).toMatchObject({ 'a2a.binding': 'HTTP+JSON', 'a2a.protocol.version': '1.0' });
    expect(outbound?.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('one trace follows a task across agents: support → its peer tool (echo, over HTTP) → echo’s turn', async () => {
    const support = jsonRpcClient(`${demo.url}/agents/support/a2a/jsonrpc`);
    const delegated = await support.call('SendMessage', { message: userMessage('/delegate echo__echo across') });
    const task = delegated.result.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const supportTurn = await turnSpan(task.id);
    const traceId = supportTurn.spanContext().traceId;
    const inTrace = telemetry.spans().filter((s) => s.spanContext().traceId === traceId);
    // the peer tool's call: a tool span under the turn, the outbound call under the tool span
    const tool = inTrace.find((s) => s.name === 'a2a.tool.call' && s.parentSpanContext?.spanId === supportTurn.spanContext().spanId);
    expect(tool?.attributes).toMatchObject({ 'a2a.tool.name': 'echo__echo', 'a2a.tool.step': 1 });
    const outbound = inTrace.find((s) => s.kind === SpanKind.CLIENT && s.parentSpanContext?.spanId === tool!.spanContext().spanId);
    expect(outbound).toBeDefined();
    const echoServer = inTrace.find((s) => s.kind === SpanKind.SERVER && s.parentSpanContext?.spanId === outbound!.spanContext().spanId);
    expect(echoServer?.attributes['a2a.agent']).toBe('echo');
  });
});

describe('tool calls (ctx.runTool)', () => {
  it('/research: a span per tool step under the turn, with the tool and its step, never the text it was given', async () => {
    const support = restClient(`${demo.url}/agents/support/a2a/rest`);
    const research = 'RESEARCH-TEXT quantum teapots';
    const { result } = await support.call('SendMessage', { message: userMessage(`/research ${research}`) });
    expect(result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const turn = await turnSpan(result.task.id);
    await waitUntil(() => spansWith(telemetry.spans(), 'a2a.tool.call').filter((s) => s.parentSpanContext?.spanId === turn.spanContext().spanId).length === 3);
    const tools = spansWith(telemetry.spans(), 'a2a.tool.call')
      .filter((s) => s.parentSpanContext?.spanId === turn.spanContext().spanId)
      .sort((a, b) => Number(a.attributes['a2a.tool.step']) - Number(b.attributes['a2a.tool.step']));
    expect(tools.map((s) => [s.kind, s.attributes['a2a.tool.name'], s.attributes['a2a.tool.step']])).toEqual([
      [SpanKind.INTERNAL, 'echo__echo', 1],
      [SpanKind.INTERNAL, 'echo__echo', 2],
      [SpanKind.INTERNAL, 'echo__echo', 3],
    ]);
    for (const tool of tools) {
      expect(tool.spanContext().traceId).toBe(turn.spanContext().traceId);
      expect(tool.status.code).not.toBe(SpanStatusCode.ERROR);
      expect(tool.attributes['error.type']).toBeUndefined();
      // each tool's outbound A2A call is its child
      expect(telemetry.spans().filter((s) => s.kind === SpanKind.CLIENT && s.parentSpanContext?.spanId === tool.spanContext().spanId)).toHaveLength(1);
    }
    // the arguments and results are the caller's: no span of the trace quotes them
    const inTrace = telemetry.spans().filter((s) => s.spanContext().traceId === turn.spanContext().traceId);
    expect(JSON.stringify(inTrace.map((s) => [s.name, s.attributes, s.events]))).not.toContain('RESEARCH-TEXT');
  });

  it("a tool that throws: its span ends in error with the error's class as error.type, the turn fails", async () => {
    // a peer whose card lists an interface nobody answers on: its tool is listed, its calls fail
    const closed = await freePort();
    const peer = await startBrokenPeer(`http://127.0.0.1:${closed}/rpc`);
    const other = await startDemo({ DEMO_PEERS: `broken=http://127.0.0.1:${peer.port}` });
    try {
      const support = jsonRpcClient(`${other.url}/agents/support/a2a/jsonrpc`);
      const { result } = await support.call('SendMessage', { message: userMessage('/research SECRET-question') });
      expect(result.task.status.state).toBe('TASK_STATE_FAILED');
      const turn = await turnSpan(result.task.id);
      const [tool] = spansWith(telemetry.spans(), 'a2a.tool.call').filter((s) => s.parentSpanContext?.spanId === turn.spanContext().spanId);
      expect(tool.attributes).toMatchObject({ 'a2a.tool.name': 'broken__fix', 'a2a.tool.step': 1, 'error.type': 'ToolUnavailableError' });
      expect(tool.status.code).toBe(SpanStatusCode.ERROR);
      expect(tool.status.message).toBeUndefined();
      expect(JSON.stringify([tool.attributes, tool.events])).not.toContain('SECRET-');
    } finally {
      await other.close();
      await peer.close();
    }
  });
});

describe('outbound failures', () => {
  it("a peer that refuses connections: the call's error.type, and its breaker's state (2: open) by peer", async () => {
    const port = await freePort(); // nothing listens there
    const url = `http://127.0.0.1:${port}/a2a/jsonrpc`;
    const card = {
      name: 'gone',
      description: 'nothing listens',
      version: '1.0.0',
      supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 's', description: 's', tags: ['t'] }],
    };
    const client = new A2AClient({ card, egress: { allowHttp: true, allowHosts: ['127.0.0.1'] }, retry: false, circuitBreakers: new A2ACircuitBreakers({ failureThreshold: 1 }) });
    try {
      await expect(client.getTask({ id: 't' })).rejects.toThrow();
      const peer = `http://127.0.0.1:${port}`;
      const [span] = spansWith(telemetry.spans(), 'lf.a2a.v1.A2AService/GetTask', { 'a2a.peer': peer });
      expect(span.kind).toBe(SpanKind.CLIENT);
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.attributes['error.type']).toBe('EgressRequestError');
      await telemetry.collect();
      expect(pointsWith(telemetry.points('rpc.client.call.duration'), { 'a2a.peer': peer, 'error.type': 'EgressRequestError' })).toHaveLength(1);
      expect(pointsWith(telemetry.points('a2a.client.breaker.state'), { 'a2a.peer': peer })[0].value).toBe(2);
    } finally {
      await client.close();
    }
  });
});

describe('an outbound call to an A2A 0.3 agent (the official a2a-js 0.3 server)', () => {
  const v03 = v03SdkServerForSuite();

  it("its span says 0.3, and the traceparent on the wire is the span's own", async () => {
    const client = new A2AClient({ cardUrl: v03().url, egress: { allowHttp: true, allowHosts: ['127.0.0.1'] } });
    try {
      const answer = await client.sendMessage({ message: userMessage('/task at 0.3') });
      expect('task' in answer && answer.task.status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      await client.close();
    }
    const [span] = spansWith(telemetry.spans(), SEND, { 'a2a.peer': v03().url }).filter((s) => s.kind === SpanKind.CLIENT);
    expect(span.attributes).toMatchObject({ 'a2a.protocol.version': '0.3', 'a2a.binding': 'JSONRPC' });
    const sent = v03().requests.filter((r) => r.path === '/a2a/jsonrpc').map((r) => r.headers.traceparent);
    expect(sent).toEqual([traceparentOf(span.spanContext().traceId, span.spanContext().spanId)]);
  });
});

// last: its GetTask and CancelTask spans would be the first such spans the tests above look for
describe('a stream whose client leaves', () => {
  it('ends at once, not at its task\'s next event: it stops counting as open while the task still works', async () => {
    const rest = clients[1];
    const { events } = await rest.stream('SendStreamingMessage', { message: userMessage('/task slow 10000 left') }, { stopAfter: 2 });
    const taskId = events[0].data.task.id;
    await waitUntil(async () => {
      await telemetry.collect();
      return pointsWith(telemetry.points('a2a.server.open_streams'), { 'rpc.method': 'SendStreamingMessage' })[0]?.value === 0;
    });
    await telemetry.collect();
    expect(pointsWith(telemetry.points('a2a.server.open_streams'), { 'rpc.method': 'SendStreamingMessage' })[0].value).toBe(0);
    // the stream's end came through its return(), before the task's next event
    expect((await rest.call('GetTask', { id: taskId })).result.status.state).toBe('TASK_STATE_WORKING');
    await rest.call('CancelTask', { id: taskId });
  });
});
