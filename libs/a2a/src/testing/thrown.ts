/** What `fn` throws (undefined when it returns), for specs that inspect the error itself. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}
