/**
 * Retries and circuit breakers (cockatiel).
 *
 * Retries: exponential backoff with decorrelated jitter, a small count, only for operations that
 * are safe to repeat, only on transient failures (connection errors, a connect timeout, HTTP
 * 502/503/504 and 429), honouring `Retry-After` up to a cap, never past the call's deadline.
 *
 * Breakers: one per origin, shared by every client that uses the same registry (by default one
 * registry per process), opened by consecutive failures of the peer itself (connection errors,
 * timeouts, 5xx). An A2A error answer (TaskNotFound …) shows the peer is alive: it counts as a
 * success, so a peer is never cut off for answering correctly.
 */
import {
  CircuitState,
  ConsecutiveBreaker,
  ExponentialBackoff,
  circuitBreaker,
  decorrelatedJitterGenerator,
  handleAll,
  handleWhen,
  isBrokenCircuitError,
  retry,
  type CircuitBreakerPolicy,
  type IBackoff,
  type IBackoffFactory,
  type IRetryBackoffContext,
} from 'cockatiel';
import { EgressRequestError } from '../net/egress-errors.js';
import { recordBreakerState } from '../telemetry/client-telemetry.js';
import { InternalError, ResourceExhaustedError, UnavailableError } from '../protocol/errors.js';
import type { CallControl } from './call-control.js';
import { A2ATimeoutError, CircuitOpenError } from './client-errors.js';
import { errorFacts, statusOf } from './error-mapping.js';

/** @publicApi */
export interface A2ARetryOptions {
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** First backoff delay, in milliseconds (jittered). Default 100. */
  initialDelayMs?: number;
  /** Longest backoff delay, in milliseconds. Default 2000. */
  maxDelayMs?: number;
  /**
   * A `Retry-After` longer than this is not waited for: the call fails at once with the answer it
   * got. Default 10000.
   */
  maxRetryAfterMs?: number;
  /**
   * Retry SendMessage too. It is always the same request, so the same `messageId`: an agent that
   * deduplicates by message id (spec §3.3.1) sees it once. Default true. SendStreamingMessage is
   * never retried.
   */
  sendMessage?: boolean;
}

export type ResolvedRetryOptions = Required<A2ARetryOptions>;

export const DEFAULT_RETRY: ResolvedRetryOptions = {
  maxRetries: 2,
  initialDelayMs: 100,
  maxDelayMs: 2000,
  maxRetryAfterMs: 10_000,
  sendMessage: true,
};

/** @publicApi */
export interface A2ACircuitBreakerOptions {
  /** Consecutive failures that open the breaker of an origin. Default 5. */
  failureThreshold?: number;
  /** How long an open breaker fails fast before it lets one trial call through, in milliseconds. Default 30000. */
  halfOpenAfterMs?: number;
}

/** @publicApi */
export type A2ACircuitState = 'closed' | 'open' | 'half-open' | 'isolated';

const STATE_NAMES: Record<CircuitState, A2ACircuitState> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half-open',
  [CircuitState.Isolated]: 'isolated',
};

/** Closed breakers beyond this many are forgotten, so a stream of one-off origins cannot grow the map forever. */
const MAX_IDLE_BREAKERS = 1000;

/**
 * The circuit breakers of a set of clients, one per origin. {@link A2ACircuitBreakers.shared} is
 * the process-wide default every client uses unless given another registry.
 * @publicApi
 */
export class A2ACircuitBreakers {
  private static sharedInstance: A2ACircuitBreakers | undefined;
  readonly failureThreshold: number;
  readonly halfOpenAfterMs: number;
  private readonly breakers = new Map<string, CircuitBreakerPolicy>();

  /** The process-wide registry (default options). */
  static get shared(): A2ACircuitBreakers {
    return (A2ACircuitBreakers.sharedInstance ??= new A2ACircuitBreakers());
  }

  constructor(options: A2ACircuitBreakerOptions = {}) {
    this.failureThreshold = options.failureThreshold ?? 5;
    this.halfOpenAfterMs = options.halfOpenAfterMs ?? 30_000;
  }

  /** The breaker of `origin` (`scheme://host:port`), created on first use. */
  forOrigin(origin: string): CircuitBreakerPolicy {
    let breaker = this.breakers.get(origin);
    if (breaker === undefined) {
      if (this.breakers.size >= MAX_IDLE_BREAKERS) this.forgetClosed();
      breaker = circuitBreaker(handleAll, { halfOpenAfter: this.halfOpenAfterMs, breaker: new ConsecutiveBreaker(this.failureThreshold) });
      breaker.onStateChange((state) => recordBreakerState(origin, STATE_NAMES[state]));
      this.breakers.set(origin, breaker);
    }
    return breaker;
  }

  /** The state of `origin`'s breaker (`closed` when it has none yet). */
  state(origin: string): A2ACircuitState {
    const breaker = this.breakers.get(origin);
    return breaker === undefined ? 'closed' : STATE_NAMES[breaker.state];
  }

  private forgetClosed(): void {
    for (const [origin, breaker] of this.breakers) if (breaker.state === CircuitState.Closed) this.breakers.delete(origin);
  }
}

/**
 * Does `error` say the peer itself is failing (as opposed to answering)? Connection failures,
 * timeouts and server-side failures do; an A2A error answer does not.
 */
export function countsAgainstPeer(error: unknown): boolean {
  if (error instanceof EgressRequestError || error instanceof A2ATimeoutError) return true;
  if (error instanceof InternalError || error instanceof UnavailableError) return true;
  const status = statusOf(error);
  return status !== undefined && [500, 502, 503, 504].includes(status);
}

/**
 * Is a new attempt worth it and safe? Connection failures, a connect timeout (nothing was sent) and
 * HTTP 502/503/504/429, unless `Retry-After` asks for more than the cap or than the time left.
 */
export function isTransient(error: unknown, options: ResolvedRetryOptions, remainingMs: number): boolean {
  const transient =
    error instanceof EgressRequestError ||
    (error instanceof A2ATimeoutError && error.kind === 'connect') ||
    error instanceof UnavailableError ||
    error instanceof ResourceExhaustedError ||
    [429, 502, 503, 504].includes(statusOf(error) ?? 0);
  if (!transient) return false;
  const retryAfter = errorFacts(error)?.retryAfterMs;
  return retryAfter === undefined || (retryAfter <= options.maxRetryAfterMs && retryAfter < remainingMs);
}

type RetryContext = IRetryBackoffContext<unknown>;

/** Exponential backoff with jitter, stretched to `Retry-After` when the answer gave one, clipped to the time left. */
class RetryBackoff implements IBackoffFactory<RetryContext> {
  constructor(
    private readonly inner: IBackoffFactory<RetryContext>,
    private readonly remainingMs: () => number,
  ) {}

  next(context: RetryContext): IBackoff<RetryContext> {
    return this.wrap(this.inner.next(context), context);
  }

  private wrap(backoff: IBackoff<RetryContext>, context: RetryContext): IBackoff<RetryContext> {
    const error = 'error' in context.result ? context.result.error : undefined;
    const retryAfter = errorFacts(error)?.retryAfterMs ?? 0;
    const duration = Math.min(Math.max(backoff.duration, retryAfter), this.remainingMs());
    return { duration, next: (next) => this.wrap(backoff.next(next), next) };
  }
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface ResilientCall<T> {
  /** `scheme://host:port` of the target: the breaker's key. */
  origin: string;
  /** May this call be attempted again? */
  retryable: boolean;
  control: CallControl;
  breakers: A2ACircuitBreakers | undefined;
  retry: ResolvedRetryOptions | undefined;
  /** One attempt. */
  attempt: () => Promise<T>;
}

/** Runs `call.attempt` through the origin's breaker and, when allowed, the retry policy. */
export async function runResilient<T>(call: ResilientCall<T>): Promise<T> {
  const { control } = call;
  const breaker = call.breakers?.forOrigin(call.origin);
  const once = async (): Promise<T> => {
    if (control.aborted) throw control.failure(undefined);
    if (breaker === undefined) return call.attempt();
    let outcome: Outcome<T>;
    try {
      outcome = await breaker.execute(async (): Promise<Outcome<T>> => {
        try {
          return { ok: true, value: await call.attempt() };
        } catch (error) {
          // the failure the breaker counts is the peer's, not the caller's abort
          if (countsAgainstPeer(error) && !control.aborted) throw error;
          return { ok: false, error };
        }
      });
    } catch (error) {
      if (isBrokenCircuitError(error)) throw new CircuitOpenError(call.origin, call.breakers!.halfOpenAfterMs);
      throw error;
    }
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  };
  const options = call.retry;
  if (!call.retryable || options === undefined || options.maxRetries <= 0) return once();
  const policy = retry(
    handleWhen((error) => !control.aborted && isTransient(error, options, control.remainingMs())),
    {
      maxAttempts: options.maxRetries,
      backoff: new RetryBackoff(
        new ExponentialBackoff({ generator: decorrelatedJitterGenerator, initialDelay: options.initialDelayMs, maxDelay: options.maxDelayMs }),
        () => control.remainingMs(),
      ),
    },
  );
  // cockatiel's backoff delay cannot be interrupted: an abort during it is reported at once, and the
  // attempt that follows the delay sees the aborted call and sends nothing; the delay's timer is
  // unreferenced so that one left behind by an aborted call does not keep the process alive
  return control.race(policy.dangerouslyUnref().execute(once, control.signal));
}
