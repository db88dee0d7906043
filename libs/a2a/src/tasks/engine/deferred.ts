/** A promise with its resolve and reject at hand (Promise.withResolvers needs Node 22). */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** A handler for a rejection nobody needs (one function, not a closure per promise). */
export const ignore = () => undefined;

/** Its rejection is handled already: a turn nobody waits for must not raise an unhandled rejection. */
export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(ignore);
  return { promise, resolve, reject };
}

/** One settled promise for every chain that starts empty. */
export const RESOLVED: Promise<void> = Promise.resolve();

/**
 * A moment that comes once and never fails, its promise made only when somebody waits for it
 * before it comes: most turns end with nobody waiting on their `settled` or `done` (a Message
 * answer, a task answered as soon as it started), and a deferred costs a promise, its two
 * resolvers and a handler.
 */
export class Latch {
  private passed = false;
  private waiting?: Deferred<void>;

  get promise(): Promise<void> {
    if (this.passed) return RESOLVED;
    return (this.waiting ??= deferred<void>()).promise;
  }

  resolve(): void {
    this.passed = true;
    this.waiting?.resolve();
  }
}

/**
 * A value that comes once (or fails once), its promise made only when somebody asks for it: a
 * Message answer usually comes before its turn's caller asks, and is then handed over as a settled
 * promise, not through a deferred. A failure nobody asked about raises no unhandled rejection.
 */
export class Eventual<T> {
  private outcome?: { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };
  private waiting?: Deferred<T>;

  get promise(): Promise<T> {
    const outcome = this.outcome;
    if (outcome?.ok) return Promise.resolve(outcome.value);
    if (outcome) {
      const failed = Promise.reject(outcome.error);
      failed.catch(ignore); // as a deferred's: a getter read without a handler raises nothing
      return failed;
    }
    return (this.waiting ??= deferred<T>()).promise;
  }

  /** The value, if it has come (a failure, or nothing yet: undefined). */
  now(): T | undefined {
    const outcome = this.outcome;
    return outcome?.ok ? outcome.value : undefined;
  }

  resolve(value: T): void {
    if (this.outcome) return;
    this.outcome = { ok: true, value };
    this.waiting?.resolve(value);
  }

  reject(error: unknown): void {
    if (this.outcome) return;
    this.outcome = { ok: false, error };
    this.waiting?.reject(error);
  }
}
