/**
 * An OpenTelemetry SDK installed in the test's process, as an app would install one, with the
 * in-memory exporters: every ended span, and the metrics on demand. Jest gives each test file its
 * own globals, so one file's SDK is its own.
 */
import { context, metrics, propagation, trace, type Attributes } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type DataPoint,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

export interface TestTelemetry {
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  /** The data points of metric `name` now (cumulative since the start), `[]` when it has none. */
  points(name: string): Array<DataPoint<unknown>>;
  /** Collects the metrics now (call before `points`). */
  collect(): Promise<MetricData[]>;
  shutdown(): Promise<void>;
}

export function installTelemetry(): TestTelemetry {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const spanExporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spanExporter)] });
  trace.setGlobalTracerProvider(tracerProvider);
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  // exports only when asked (collect): the interval is never reached in a test
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  let latest: MetricData[] = [];
  return {
    spans: () => spanExporter.getFinishedSpans(),
    points: (name) => latest.find((m) => m.descriptor.name === name)?.dataPoints ?? [],
    async collect() {
      await reader.forceFlush();
      latest = (metricExporter.getMetrics().at(-1)?.scopeMetrics ?? []).flatMap((s) => s.metrics);
      metricExporter.reset();
      return latest;
    },
    async shutdown() {
      await meterProvider.shutdown();
      await tracerProvider.shutdown();
      contextManager.disable();
      metrics.disable();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** The points whose attributes include every one of `attributes`. */
export function pointsWith<T>(points: Array<DataPoint<T>>, attributes: Attributes): Array<DataPoint<T>> {
  return points.filter((p) => Object.entries(attributes).every(([k, v]) => p.attributes[k] === v));
}

/** Spans named `name` whose attributes include every one of `attributes`. */
export function spansWith(spans: ReadableSpan[], name: string, attributes: Attributes = {}): ReadableSpan[] {
  return spans.filter((s) => s.name === name && Object.entries(attributes).every(([k, v]) => s.attributes[k] === v));
}

/** A W3C `traceparent` of a caller's span (ids made up by the test). */
export function traceparentOf(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-01`;
}
