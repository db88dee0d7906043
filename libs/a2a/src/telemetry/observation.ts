/**
 * One observed piece of work: its span (when traces are recorded), its clock, and what it ends
 * with. The metrics are each caller's: they choose their own low-cardinality attributes.
 */
import { SpanKind, SpanStatusCode, context, createContextKey, trace, type AttributeValue, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { errorType, instruments, tracing, type A2AInstruments } from './telemetry-api.js';
import { ATTR } from './telemetry-names.js';

export { SpanKind };
export { observing } from './telemetry-api.js';

const CURRENT = createContextKey('nestjs-a2a observation');

export class Observation {
  /** The context the work runs in: its span's, or the parent's when nothing is traced. */
  readonly context: Context;
  readonly span: Span | undefined;
  readonly meters: A2AInstruments | undefined = instruments();
  private readonly startedAt = performance.now();
  private ended = false;

  /**
   * Callers check {@link observing} first: when nothing is recorded, they make no observation at all.
   * `attributes` may be a function, called only when a span is made (with metrics alone none is).
   */
  constructor(name: string, kind: SpanKind, attributes: Attributes | (() => Attributes), parent: Context = context.active()) {
    this.span = tracing()?.startSpan(name, { kind, attributes: typeof attributes === 'function' ? attributes() : attributes }, parent);
    this.context = this.span === undefined ? parent : trace.setSpan(parent, this.span);
  }

  /** The observation whose {@link run} the caller is in (the innermost one). */
  static current(): Observation | undefined {
    return context.active().getValue(CURRENT) as Observation | undefined;
  }

  /**
   * Runs `fn` with this observation current and its span active (a child span, an outbound call's
   * `traceparent`). Without a span (metrics only) nothing reads either: `fn` runs as it is, sparing
   * a context (a copied map) per observation.
   */
  run<T>(fn: () => T): T {
    if (this.span === undefined) return fn();
    return context.with(this.context.setValue(CURRENT, this), fn);
  }

  set(name: string, value: AttributeValue | undefined): void {
    if (value !== undefined) this.span?.setAttribute(name, value);
  }

  /** Marks the work failed: `error.type`, and the span's status (no message: it may quote a caller's input). */
  fail(error: unknown): string {
    const type = errorType(error);
    this.span?.setAttribute(ATTR.errorType, type);
    this.span?.setStatus({ code: SpanStatusCode.ERROR });
    return type;
  }

  /** Seconds since the start. */
  get seconds(): number {
    return (performance.now() - this.startedAt) / 1000;
  }

  /** Ends the span once; answers false when it had ended already. */
  end(): boolean {
    if (this.ended) return false;
    this.ended = true;
    this.span?.end();
    return true;
  }
}
