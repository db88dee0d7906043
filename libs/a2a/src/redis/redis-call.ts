/** How a request's Redis commands fail: an unreachable Redis is UNAVAILABLE for now, not an internal error. */
import { A2AError, UnavailableError } from '../protocol/errors.js';

/**
 * Runs Redis commands for a request. A2A errors and server reply errors (a defect) pass through;
 * anything else (connection down, timeout) means Redis is unavailable for now, which the bindings
 * answer with 503 UNAVAILABLE instead of an internal error.
 */
export async function redisCall<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    if (error instanceof A2AError || (error as Error)?.name === 'ReplyError') throw error;
    throw new UnavailableError('The task store is temporarily unavailable; retry later');
  }
}

/** Does `client` answer a PING within `ms`? Never throws (health checks). */
export function answersPing(client: { ping(): Promise<string> }, ms: number): Promise<boolean> {
  const answered = client.ping().then((reply) => reply === 'PONG', () => false);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)));
  return Promise.race([answered, late]).finally(() => clearTimeout(timer));
}
