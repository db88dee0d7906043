/**
 * The library's handle on `@opentelemetry/api`: its tracer, its instruments, W3C trace context in
 * and out. Until the app installs an OpenTelemetry SDK the API is a no-op, and so is all of this:
 * `tracing()` and `instruments()` answer `undefined`, so callers skip even building attributes.
 */
import {
  ProxyTracerProvider,
  ROOT_CONTEXT,
  context,
  createNoopMeter,
  metrics,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Counter,
  type Gauge,
  type Histogram,
  type Meter,
  type MeterProvider,
  type Observable,
  type Tracer,
} from '@opentelemetry/api';
import { A2AError } from '../protocol/errors.js';
import { DURATION_BUCKETS_S, INSTRUMENTATION_SCOPE, METRIC } from './telemetry-names.js';

/** Delegates to whichever SDK is registered, now or later. */
const tracer: Tracer = trace.getTracer(INSTRUMENTATION_SCOPE);

/** The tracer, when an SDK's tracer provider is registered. */
export function tracing(): Tracer | undefined {
  const provider = trace.getTracerProvider();
  // the global proxy delegates to nothing until an SDK registers: then every span would be a no-op
  if (provider instanceof ProxyTracerProvider && provider.getDelegateTracer(INSTRUMENTATION_SCOPE) === undefined) return undefined;
  return tracer;
}

/** One attribute set's count in a {@link CountsPerAttributes}. */
export interface AttributeCount {
  readonly attributes: Attributes;
  count: number;
}

/**
 * Counts per attribute set, kept here and reported when the SDK collects (an observable counter or
 * up-down counter): a count costs a Map lookup, where a synchronous instrument's point costs the
 * SDK an attribute hash (it sorts and stringifies the attributes) and an aggregation, per point
 * (issue 14). A set once seen stays, reporting its count (0 once its streams are gone), as the sum
 * of a synchronous instrument does.
 */
export class CountsPerAttributes {
  private readonly counts = new Map<string, AttributeCount>();

  constructor(instrument: Observable) {
    instrument.addCallback((result) => this.counts.forEach(({ count, attributes }) => result.observe(count, attributes)));
  }

  /**
   * Counts one more in the set `key` names (`attributes()` makes the set the first time it is
   * seen); returns its count, which an up-down count takes one off again (a stream that ended).
   */
  add(key: string, attributes: () => Attributes): AttributeCount {
    let counted = this.counts.get(key);
    if (counted === undefined) this.counts.set(key, (counted = { attributes: attributes(), count: 0 }));
    counted.count++;
    return counted;
  }
}

/** The library's metric instruments on one meter. */
export class A2AInstruments {
  readonly serverDuration: Histogram;
  /** SSE streams open now (`a2a.server.open_streams`), by the request's attributes. */
  readonly openStreams: CountsPerAttributes;
  /** Tasks that reached a final state (`a2a.task.finished`), by agent and state. */
  readonly tasksFinished: CountsPerAttributes;
  readonly turnDuration: Histogram;
  readonly pushAttempts: Counter;
  readonly pushDeliveryAttempts: Histogram;
  readonly pushDeliveryLag: Histogram;
  readonly clientDuration: Histogram;
  readonly breakerState: Gauge;

  constructor(meter: Meter) {
    const seconds = (description: string) => ({ description, unit: 's', advice: { explicitBucketBoundaries: DURATION_BUCKETS_S } });
    this.serverDuration = meter.createHistogram(METRIC.serverDuration, seconds('Duration of inbound A2A operations (streams: until they end)'));
    this.openStreams = new CountsPerAttributes(meter.createObservableUpDownCounter(METRIC.openStreams, { description: 'A2A SSE streams open now', unit: '{stream}' }));
    this.tasksFinished = new CountsPerAttributes(meter.createObservableCounter(METRIC.tasksFinished, { description: 'Tasks that reached a final state', unit: '{task}' }));
    this.turnDuration = meter.createHistogram(METRIC.turnDuration, seconds('Duration of executor turns'));
    this.pushAttempts = meter.createCounter(METRIC.pushAttempts, { description: 'Push notification delivery attempts', unit: '{attempt}' });
    this.pushDeliveryAttempts = meter.createHistogram(METRIC.pushDeliveryAttempts, {
      description: 'Attempts a push notification took, by final outcome',
      unit: '{attempt}',
      advice: { explicitBucketBoundaries: [1, 2, 3, 4, 5, 6, 8, 10, 15, 20] },
    });
    this.pushDeliveryLag = meter.createHistogram(METRIC.pushDeliveryLag, seconds("From the event's enqueueing to its notification's final outcome"));
    this.clientDuration = meter.createHistogram(METRIC.clientDuration, seconds('Duration of outbound A2A calls (streams: until they end)'));
    this.breakerState = meter.createGauge(METRIC.breakerState, { description: "A peer's circuit breaker: 0 closed, 1 half-open, 2 open, 3 isolated" });
  }
}

/** The instruments of the registered meter provider (made again if the app registers another). */
let current: { provider: MeterProvider; instruments: A2AInstruments | undefined } | undefined;

/** The instruments, when an SDK's meter provider is registered. */
export function instruments(): A2AInstruments | undefined {
  const provider = metrics.getMeterProvider();
  if (current?.provider !== provider) {
    const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
    // the API has no proxy meter: instruments made before the SDK registers would stay no-ops
    current = { provider, instruments: meter === createNoopMeter() ? undefined : new A2AInstruments(meter) };
  }
  return current.instruments;
}

/** Is anything (traces or metrics) recorded? */
export function observing(): boolean {
  return tracing() !== undefined || instruments() !== undefined;
}

/**
 * The parent of an inbound request's span: the active span when the app's HTTP instrumentation
 * made one, else the W3C trace context (`traceparent`, `tracestate`) of the request's headers.
 * `undefined` when nothing is traced.
 */
export function inboundContext(headers: Readonly<Record<string, unknown>>): Context | undefined {
  if (tracing() === undefined) return undefined;
  const active = context.active();
  return trace.getSpan(active) ? active : propagation.extract(active, headers);
}

/** Adds the active trace context's W3C headers to `headers` (no-op when nothing is traced). */
export function injectTraceContext(headers: Record<string, string>, from: Context = context.active()): void {
  if (trace.getSpan(from) !== undefined) propagation.inject(from, headers);
}

/** The active trace context as W3C headers, to carry across a queue; `undefined` when there is none. */
export function captureTraceContext(): Record<string, string> | undefined {
  const active = context.active();
  if (trace.getSpan(active) === undefined) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/** A context carried across a queue by {@link captureTraceContext}. */
export function restoreTraceContext(carrier: Readonly<Record<string, string>> | undefined): Context {
  return carrier === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, carrier);
}

/**
 * `error.type` of a failure: an A2A error's ErrorInfo reason (`TASK_NOT_FOUND` …) or class, any
 * other error's class. Never its message, which may quote what a caller sent.
 */
export function errorType(error: unknown): string {
  if (error instanceof A2AError) return error.reason ?? error.name;
  return error instanceof Error ? error.name : '_OTHER';
}

export type { Attributes, Context };
