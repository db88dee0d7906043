/**
 * One call's cancellation: the caller's signal, the overall deadline and, for streams, the idle
 * timer all abort one controller, whose reason says which of them fired. Every request and body
 * read of the call runs under {@link CallControl.signal}, so a server trickling bytes is cut by
 * the same timer as a silent one.
 *
 * @internal
 */
import { A2ATimeoutError } from './client-errors.js';

export class CallControl {
  private readonly controller = new AbortController();
  private deadlineTimer: NodeJS.Timeout | undefined;
  private deadlineAt: number | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private idleMs: number | undefined;
  private readonly onCallerAbort: (() => void) | undefined;

  /** The redacted target named by timeout errors; updated once the interface is known. */
  target = '(A2A call)';

  constructor(private readonly callerSignal?: AbortSignal) {
    if (callerSignal?.aborted) {
      this.controller.abort(callerSignal.reason);
    } else if (callerSignal) {
      this.onCallerAbort = () => this.controller.abort(callerSignal.reason);
      callerSignal.addEventListener('abort', this.onCallerAbort, { once: true });
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.controller.signal.aborted;
  }

  /** Milliseconds left before the deadline (Infinity without one). */
  remainingMs(): number {
    return this.deadlineAt === undefined ? Infinity : Math.max(0, this.deadlineAt - Date.now());
  }

  /** Arms the overall deadline: `timeoutMs` from now, the whole call (retries included). */
  startDeadline(timeoutMs: number): void {
    this.clearDeadline();
    this.deadlineAt = Date.now() + timeoutMs;
    this.deadlineTimer = setTimeout(() => this.abort(new A2ATimeoutError('deadline', this.target, timeoutMs)), timeoutMs);
    this.deadlineTimer.unref();
  }

  clearDeadline(): void {
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    this.deadlineAt = undefined;
  }

  /** Starts (or restarts) the idle timer of a stream. */
  touchIdle(idleMs = this.idleMs): void {
    if (idleMs === undefined) return;
    this.idleMs = idleMs;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.abort(new A2ATimeoutError('idle', this.target, idleMs)), idleMs);
    this.idleTimer.unref();
  }

  /** While the consumer holds an event, the peer is not the one keeping the stream quiet. */
  pauseIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /**
   * Settles with `promise`, or rejects with the abort reason as soon as the call is aborted (work
   * that cannot be interrupted, such as a backoff delay, then finishes unobserved).
   */
  race<T>(promise: Promise<T>): Promise<T> {
    return raceSignal(promise, this.controller.signal);
  }

  abort(reason: unknown): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  /**
   * The error to report for a failure of this call: once the call was aborted, the abort's reason
   * (the caller's own reason, or the timeout that fired) explains it better than whatever the
   * interrupted I/O threw.
   */
  failure(error: unknown): unknown {
    return this.controller.signal.aborted ? this.controller.signal.reason : error;
  }

  dispose(): void {
    this.clearDeadline();
    this.pauseIdle();
    if (this.onCallerAbort) this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }
}

/** Resolves a promise, or rejects as soon as `signal` aborts (the work itself goes on, unobserved). */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
