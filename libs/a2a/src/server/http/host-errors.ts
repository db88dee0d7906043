/** What the host's code throws (guards, a caller resolver) → the protocol's error. */
import { HttpException } from '@nestjs/common';
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

