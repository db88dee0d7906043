/** What `fn` throws (undefined when it returns), for specs that inspect the error itself. @publicApi */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

/**
 * What `subject` (a promise, or a function called here) rejects with or throws; with `type`, the
 * error must be one (anything else is rethrown). Fails when it succeeds.
 */
export async function rejectionOf<E = unknown>(subject: PromiseLike<unknown> | (() => unknown), type?: abstract new (...args: never[]) => E): Promise<E> {
  try {
    await (typeof subject === 'function' ? subject() : subject);
  } catch (error) {
    if (type !== undefined && !(error instanceof type)) throw error;
    return error as E;
  }
  throw new Error(`expected ${type === undefined ? 'a rejection' : `a ${type.name}`}, got an answer`);
}
