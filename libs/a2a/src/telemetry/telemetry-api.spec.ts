import { afterAll, describe, expect, it } from '@jest/globals';
import { metrics, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader, type HistogramMetricData, type SumMetricData } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { InvalidParamsError, TaskNotFoundError } from '../protocol/errors.js';
import type { StreamResponse } from '../protocol/types.js';
import type { ReceivingIterator, ResultReceiver } from '../tasks/event-log-follower.js';
import { observeRequest } from './request-telemetry.js';
import { captureTraceContext, errorType, inboundContext, instruments, observing, tracing } from './telemetry-api.js';
import { observeToolCall } from './tool-telemetry.js';
import { observeTurn, recordTaskFinished } from './turn-telemetry.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

afterAll(() => {
  metrics.disable();
  trace.disable();
  propagation.disable();
});

describe('without an SDK', () => {
  it('records nothing and makes nothing: no tracer, no instruments, no context, no observation', async () => {
    expect(tracing()).toBeUndefined();
    expect(instruments()).toBeUndefined();
    expect(observing()).toBe(false);
    expect(inboundContext({ traceparent: TRACEPARENT })).toBeUndefined();
    expect(captureTraceContext()).toBeUndefined();
    expect(observeTurn('echo', { taskId: 't', contextId: 'c', startedAt: performance.now() })).toBeUndefined();
    // the operation's own promise comes back, not one of ours around it
    const outcome = Promise.resolve({ result: 1 });
    expect(observeRequest({ agent: { name: 'echo' } }, 'GetTask', () => outcome)).toBe(outcome);
    // a tool call: its own invoke's promise, no span, no context
    const invoked = Promise.resolve('found');
    expect(observeToolCall('echo__echo', 1, () => invoked)).toBe(invoked);
  });
});

/** A reader the test collects from when it likes. */
class CollectingReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

describe('with metrics and no tracer', () => {
  it('measures requests and turns (error.type on a failure; a turn that only replied is its request), counts finished tasks, and runs them without a context of its own', async () => {
    const reader = new CollectingReader();
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    try {
      expect(observing()).toBe(true);
      expect(tracing()).toBeUndefined();
      const call = { agent: { name: 'echo' }, binding: 'JSONRPC', protocolVersion: '1.0' };
      const answered = await observeRequest(call, 'SendMessage', async () => {
        const turn = observeTurn('echo', { taskId: 't', contextId: 'c', startedAt: performance.now() });
        expect(turn).toBeDefined();
        expect(turn!.run(() => 'ran')).toBe('ran');
        turn!.end('replied');
        return { result: { message: {} } };
      });
      expect(answered).toEqual({ result: { message: {} } });
      const onTask = observeTurn('echo', { taskId: 't2', contextId: 'c', startedAt: performance.now() });
      onTask!.end('TASK_STATE_COMPLETED');
      const threwAfterReplying = observeTurn('echo', { taskId: 't3', contextId: 'c', startedAt: performance.now() });
      threwAfterReplying!.threw(new TypeError('secret'));
      threwAfterReplying!.end('replied');
      await expect(observeRequest(call, 'GetTask', () => Promise.reject(new TaskNotFoundError('Task x not found')))).rejects.toBeInstanceOf(TaskNotFoundError);
      // counted without a turn (a task canceled while none ran it), and for an agent whose name holds a line break
      recordTaskFinished('echo', 'TASK_STATE_COMPLETED');
      recordTaskFinished('echo', 'TASK_STATE_WORKING'); // not final: not counted
      recordTaskFinished('TASK_STATE_COMPLETED\necho', 'TASK_STATE_CANCELED');

      const { resourceMetrics } = await reader.collect();
      const points = (name: string) =>
        resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).filter((m) => m.descriptor.name === name).flatMap((m) => (m as HistogramMetricData).dataPoints);
      expect(points('rpc.server.call.duration').map((p) => [p.attributes, p.value.count])).toEqual([
        [{ 'rpc.method': 'SendMessage', 'a2a.agent': 'echo', 'a2a.binding': 'JSONRPC', 'a2a.protocol.version': '1.0' }, 1],
        [{ 'rpc.method': 'GetTask', 'a2a.agent': 'echo', 'a2a.binding': 'JSONRPC', 'a2a.protocol.version': '1.0', 'error.type': 'TASK_NOT_FOUND' }, 1],
      ]);
      const finished = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'a2a.task.finished') as SumMetricData;
      expect(finished.isMonotonic).toBe(true);
      expect(finished.dataPoints.map((p) => [p.attributes, p.value])).toEqual([
        [{ 'a2a.agent': 'echo', 'a2a.task.state': 'TASK_STATE_COMPLETED' }, 2],
        [{ 'a2a.agent': 'TASK_STATE_COMPLETED\necho', 'a2a.task.state': 'TASK_STATE_CANCELED' }, 1],
      ]);
      expect(points('a2a.turn.duration').map((p) => [p.attributes, p.value.count])).toEqual([
        [{ 'a2a.agent': 'echo', 'a2a.task.state': 'TASK_STATE_COMPLETED' }, 1],
        [{ 'a2a.agent': 'echo', 'a2a.task.state': 'replied', 'error.type': 'TypeError' }, 1],
      ]);
    } finally {
      metrics.disable();
    }
  });
});

describe('a stream with metrics', () => {
  it('passes nextTo through (an event there now at once, a later one to the receiver), counting the stream open until it ends', async () => {
    const reader = new CollectingReader();
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    try {
      const events = [{ event: { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } } }, { event: { message: {} } }] as unknown as Array<{ event: StreamResponse }>;
      // a receiving iterator: the first event now, the second to the receiver later, then done
      let waiting: ResultReceiver<{ event: StreamResponse }> | undefined;
      const inner: ReceivingIterator<{ event: StreamResponse }> = {
        next: () => Promise.reject(new Error('next() called: nextTo was not passed through')),
        nextTo: (receiver) => {
          if (events.length === 2) return { done: false, value: events.shift()! };
          waiting = receiver;
          return undefined;
        },
      };
      const outcome = await observeRequest({ agent: { name: 'echo' }, binding: 'JSONRPC', protocolVersion: '1.0' }, 'SendStreamingMessage', () =>
        Promise.resolve({ stream: { [Symbol.asyncIterator]: () => inner } }),
      );
      const observed = (outcome as { stream: AsyncIterable<{ event: StreamResponse }> }).stream[Symbol.asyncIterator]() as ReceivingIterator<{ event: StreamResponse }>;
      const openNow = async () => {
        const { resourceMetrics } = await reader.collect();
        const metric = resourceMetrics.scopeMetrics.flatMap((m) => m.metrics).find((m) => m.descriptor.name === 'a2a.server.open_streams');
        return (metric?.dataPoints as Array<{ value: number }> | undefined)?.map((p) => p.value);
      };
      const received: Array<IteratorResult<{ event: StreamResponse }>> = [];
      const receiver: ResultReceiver<{ event: StreamResponse }> = { receive: (r) => received.push(r), fail: (e) => received.push({ done: true, value: e }) };

      const [first, second] = events;
      expect(observed.nextTo(receiver)).toEqual({ done: false, value: first });
      expect(observed.nextTo(receiver)).toBeUndefined();
      expect(await openNow()).toEqual([1]);
      waiting!.receive({ done: false, value: events.shift()! });
      expect(received).toEqual([{ done: false, value: second }]);
      waiting = undefined;
      expect(observed.nextTo(receiver)).toBeUndefined();
      waiting!.receive({ done: true, value: undefined });
      expect(received[1]).toEqual({ done: true, value: undefined });
      expect(await openNow()).toEqual([0]);
      expect(observed.nextTo(receiver)).toEqual({ done: true, value: undefined });
    } finally {
      metrics.disable();
    }
  });
});

describe('once an SDK registers (after the library loaded)', () => {
  it('finds its tracer and makes instruments on its meter provider, again when the app registers another', () => {
    const first = new MeterProvider();
    metrics.setGlobalMeterProvider(first);
    const made = instruments();
    expect(made).toBeDefined();
    expect(instruments()).toBe(made);
    metrics.disable();
    metrics.setGlobalMeterProvider(new MeterProvider());
    expect(instruments()).not.toBe(made);

    expect(tracing()).toBeUndefined();
    trace.setGlobalTracerProvider(new BasicTracerProvider());
    expect(tracing()).toBeDefined();
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const parent = inboundContext({ traceparent: TRACEPARENT });
    expect(trace.getSpanContext(parent!)?.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
  });
});

describe('errorType', () => {
  it("is an A2A error's ErrorInfo reason, else its class, else the class of any error; never a message", () => {
    expect(errorType(new TaskNotFoundError('Task secret-id not found'))).toBe('TASK_NOT_FOUND');
    expect(errorType(InvalidParamsError.field('message', 'is required'))).toBe('InvalidParamsError');
    expect(errorType(new TypeError('secret'))).toBe('TypeError');
    expect(errorType('a string')).toBe('_OTHER');
  });
});
