/** What the host's code throws (guards, a caller resolver) → the protocol's error. */
import { HttpException } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import {
  A2AError,
  InternalError,
  InvalidRequestError,
  PermissionDeniedError,
  ResourceExhaustedError,
  UnauthenticatedError,
} from '../../protocol/errors.js';

/** Nest's HttpExceptions keep their meaning (401, 403, 429); anything unknown is an InternalError. */
export function fromHostException(exception: unknown): A2AError {
  if (exception instanceof A2AError) return exception;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 401) return new UnauthenticatedError();
    if (status === 403) return new PermissionDeniedError();
    if (status === 429) return new ResourceExhaustedError();
    if (status >= 400 && status < 500) return new InvalidRequestError('The request was refused');
  }
  return new InternalError();
}


/**
 * The `Retry-After` of a refusal for too many requests, when a host guard set only its suffixed
 * forms: `@nestjs/throttler` names each named throttler's wait `Retry-After-<name>`, which A2A
 * clients do not read. The longest wait is the one that holds. Undefined when a plain one is set.
 */
export function retryAfterOfNamedLimits(res: ServerResponse): string | undefined {
  if (res.hasHeader('retry-after')) return undefined;
  const waits = res
    .getHeaderNames()
    .filter((name) => name.startsWith('retry-after-'))
    .map((name) => Number(res.getHeader(name)))
    .filter((seconds) => Number.isInteger(seconds) && seconds >= 0);
  return waits.length > 0 ? String(Math.max(...waits)) : undefined;
}
