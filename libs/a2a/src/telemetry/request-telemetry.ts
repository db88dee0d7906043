/**
 * Inbound A2A operations: a SERVER span per operation (the whole stream for a streaming one),
 * `rpc.server.call.duration`, and the streams open now. Whatever binding or protocol version
 * brought the request: the caller says which.
 */
import type { Attributes, Context } from '@opentelemetry/api';
import type { StreamResponse } from '../protocol/types.js';
import { Observation, SpanKind } from './observation.js';
import { errorType, instruments, tracing, type A2AInstruments, type AttributeCount } from './telemetry-api.js';
import { A2A_RPC_SERVICE, A2A_RPC_SYSTEM, ATTR } from './telemetry-names.js';
import { DONE, nextTo, type ReceivingIterator, type ResultReceiver } from '../tasks/event-log-follower.js';

/** What the span needs of a request, beside its method. */
export interface ObservedCall {
  readonly agent: { readonly name: string };
  /** `JSONRPC` or `HTTP+JSON`; absent for a call without a binding (in process). */
  readonly binding?: string;
  /** The protocol version the request was made in (`1.0`, `0.3`). */
  readonly protocolVersion?: string;
  /** The parent of the request's span (see `inboundContext`). */
  readonly traceContext?: Context;
}

/** An operation's outcome as the request handler hands it to a binding. */
export type ObservedOutcome = { readonly result: unknown } | { readonly stream: AsyncIterable<{ readonly event: StreamResponse }> };

/**
 * Runs one inbound operation observed. A unary operation ends with its answer; a stream ends when
 * it does (its last event, an error, or the client leaving), and counts as open until then.
 */
export function observeRequest<R extends ObservedOutcome>(call: ObservedCall, method: string, run: () => Promise<R>): Promise<R> {
  const meters = instruments();
  const traced = tracing() !== undefined;
  // not observed: the operation itself, without even a promise or a string of ours around it
  if (meters === undefined && !traced) return run();
  const attributes = metricAttributes(call, method);
  // metrics alone need a clock and the attributes: no span, no name, no context
  const observation = traced ? new Observation(`${A2A_RPC_SERVICE}/${method}`, SpanKind.SERVER, () => spanAttributes(attributes), call.traceContext) : undefined;
  const request = new ObservedRequest(meters, attributes, observation);
  // a then, not an async function around an await: a promise and a turn fewer per request
  return (observation ? observation.run(run) : run()).then(
    (outcome) => {
      if ('stream' in outcome) return { ...outcome, stream: request.follow(outcome.stream) };
      request.sawResult(outcome.result);
      request.end();
      return outcome;
    },
    (error: unknown) => {
      request.end(error);
      throw error;
    },
  );
}

class ObservedRequest {
  private readonly startedAt = performance.now();
  private ended = false;
  /** The open streams' count this stream is in, while it is open. */
  private open: AttributeCount | undefined;

  constructor(
    private readonly meters: A2AInstruments | undefined,
    private readonly attributes: Attributes,
    /** The span's, when traces are recorded. */
    private readonly observation: Observation | undefined,
  ) {}

  /** A unary result's task (SendMessage's `task`, GetTask's and CancelTask's task itself), ProtoJSON. */
  sawResult(result: unknown): void {
    if (this.observation?.span === undefined) return; // only the span records the task
    const task = (result as { task?: unknown } | undefined)?.task ?? result;
    const { id, contextId, status } = (task ?? {}) as { id?: unknown; contextId?: unknown; status?: { state?: unknown } };
    if (typeof id === 'string' && status !== undefined) this.sawTask(id, contextId, status.state);
  }

  /** The stream's events, observed ({@link ObservedStream}); it counts as open until it ends. */
  follow<E extends { readonly event: StreamResponse }>(events: AsyncIterable<E>): AsyncIterable<E> {
    this.open = this.meters?.openStreams.add(attributesKey(this.attributes), () => this.attributes);
    return new ObservedStream(this, events[Symbol.asyncIterator]());
  }

  /** The stream ended: its last event, an error, or the client leaving. */
  streamEnded(error?: unknown): void {
    if (this.open !== undefined) this.open.count--;
    this.open = undefined;
    this.end(error);
  }

  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    const type = error === undefined ? undefined : (this.observation?.fail(error) ?? errorType(error));
    this.observation?.end();
    this.meters?.serverDuration.record((performance.now() - this.startedAt) / 1000, type === undefined ? this.attributes : { ...this.attributes, [ATTR.errorType]: type });
  }

  sawEvent(event: StreamResponse): void {
    if ('task' in event) this.sawTask(event.task.id, event.task.contextId, event.task.status.state);
    else if ('statusUpdate' in event) this.sawTask(event.statusUpdate.taskId, event.statusUpdate.contextId, event.statusUpdate.status.state);
  }

  private sawTask(id: string, contextId: unknown, state: unknown): void {
    const span = this.observation?.span;
    if (span === undefined) return;
    span.setAttribute(ATTR.taskId, id);
    if (typeof contextId === 'string' && contextId !== '') span.setAttribute(ATTR.contextId, contextId);
    if (typeof state === 'string') span.setAttribute(ATTR.taskState, state);
  }
}

/**
 * A stream's events, observed: an iterator object rather than an async generator, so that
 * `return()` (the client left) reaches the stream at once, where a generator would answer it only
 * after its pending `next()`, i.e. at the task's next event, keeping a gone client's follower till then.
 * It passes `nextTo` through (the binding's way to wait), so that an observed stream, like one that
 * is not, waits with no promise and takes each event that is there at once without one.
 */
class ObservedStream<E extends { readonly event: StreamResponse }> implements AsyncIterableIterator<E>, ReceivingIterator<E>, ResultReceiver<E> {
  private ended = false;
  /** Who waits for the next event ({@link nextTo}) while the events are awaited. */
  private receiver?: ResultReceiver<E>;

  constructor(
    private readonly request: ObservedRequest,
    private readonly events: AsyncIterator<E>,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<E>> {
    if (this.ended) return Promise.resolve(DONE);
    return this.events.next().then(
      (next) => this.saw(next),
      (error: unknown) => {
        this.end(error);
        throw error;
      },
    );
  }

  nextTo(receiver: ResultReceiver<E>): IteratorResult<E> | undefined {
    if (this.ended) return DONE;
    this.receiver = receiver;
    let next: IteratorResult<E> | undefined;
    try {
      next = nextTo(this.events, this);
    } catch (error) {
      this.receiver = undefined;
      this.end(error);
      throw error;
    }
    if (next === undefined) return undefined;
    this.receiver = undefined;
    return this.saw(next);
  }

  /** @internal The next event, for the receiver that waits. */
  receive(next: IteratorResult<E>): void {
    const receiver = this.receiver!;
    this.receiver = undefined;
    receiver.receive(this.saw(next));
  }

  /** @internal The events failed. */
  fail(error: unknown): void {
    const receiver = this.receiver!;
    this.receiver = undefined;
    this.end(error);
    receiver.fail(error);
  }

  async return(): Promise<IteratorResult<E>> {
    this.end();
    await this.events.return?.();
    return DONE;
  }

  private saw(next: IteratorResult<E>): IteratorResult<E> {
    if (next.done) this.end();
    else this.request.sawEvent(next.value.event);
    return next;
  }

  private end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.request.streamEnded(error);
  }
}

function spanAttributes(metricAttributes: Attributes): Attributes {
  return { [ATTR.rpcSystem]: A2A_RPC_SYSTEM, [ATTR.rpcService]: A2A_RPC_SERVICE, ...metricAttributes };
}

/**
 * Names a set of {@link metricAttributes}: the agent's name, the one part that may hold any
 * character, comes last, so no two sets share a key (cheaper than the set's JSON, per stream).
 */
function attributesKey(attributes: Attributes): string {
  return `${attributes[ATTR.rpcMethod]}\n${attributes[ATTR.binding] ?? ''}\n${attributes[ATTR.protocolVersion] ?? ''}\n${attributes[ATTR.agent]}`;
}

/** Low-cardinality: no ids. */
function metricAttributes(call: ObservedCall, method: string): Attributes {
  const attributes: Attributes = { [ATTR.rpcMethod]: method, [ATTR.agent]: call.agent.name };
  if (call.binding !== undefined) attributes[ATTR.binding] = call.binding;
  if (call.protocolVersion !== undefined) attributes[ATTR.protocolVersion] = call.protocolVersion;
  return attributes;
}
