/** Turns a request, after the host's guards ran, into the caller every task operation is scoped by. */
import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { A2ACaller } from '../tasks/agent-executor.js';

/** The subject every unauthenticated caller shares. */
export const ANONYMOUS_SUBJECT = 'anonymous';

/** What the request asked for that scoping depends on. */
export interface RequestedScope {
  /** The request's `tenant` (REST path prefix, JSON-RPC `params.tenant`). */
  readonly tenant?: string;
}

/**
 * Default: the subject is `req.user.sub`, `.id`, `.subject` or `.username` (the first that is a
 * string or number), or `req.user` itself when it is a string; the tenant is the one the request
 * names. Subclass it and pass it as `callerResolver` to derive either from your own auth (throw
 * Nest's `ForbiddenException` to refuse a tenant the caller may not use).
 * @publicApi
 */
@Injectable()
export class A2ACallerResolver {
  resolve(req: IncomingMessage & { user?: unknown }, requested: RequestedScope): A2ACaller | Promise<A2ACaller> {
    const user = req.user;
    const subject = subjectOf(user);
    return { subject: subject ?? ANONYMOUS_SUBJECT, tenant: requested.tenant, user, authenticated: subject !== undefined };
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
