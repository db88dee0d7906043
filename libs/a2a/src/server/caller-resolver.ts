/** Turns a request, after the host's guards ran, into the caller every task operation is scoped by. */
import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { A2ACaller } from '../tasks/agent-executor.js';

/** The subject every unauthenticated caller shares. */
export const ANONYMOUS_SUBJECT = 'anonymous';

/**
 * Default: the subject is `req.user.sub`, `.id`, `.subject` or `.username` (the first that is a
 * string or number), or `req.user` itself when it is a string. Override by providing your own
 * class under this token.
 * @publicApi
 */
@Injectable()
export class A2ACallerResolver {
  resolve(req: IncomingMessage & { user?: unknown }): A2ACaller {
    const user = req.user;
    return { subject: subjectOf(user) ?? ANONYMOUS_SUBJECT, user };
  }
}

function subjectOf(user: unknown): string | undefined {
  if (typeof user === 'string' && user !== '') return user;
  if (typeof user !== 'object' || user === null) return undefined;
  for (const key of ['sub', 'id', 'subject', 'username']) {
    const value = (user as Record<string, unknown>)[key];
    if ((typeof value === 'string' && value !== '') || typeof value === 'number') return String(value);
  }
  return undefined;
}
