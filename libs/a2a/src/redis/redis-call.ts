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
