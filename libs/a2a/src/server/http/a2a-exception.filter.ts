/**
 * Answers what is thrown on the A2A routes before (or outside) a binding's own handling: the
 * host's guards, the caller resolver, the card endpoint. The binding the request was for gives the
 * shape (`BindingRoutes`); the card and the JWKS answer in the HTTP+JSON one. Scoped to the A2A
 * controllers only: the app's other routes keep their own handling.
 */
import { Catch, Inject, Injectable, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BindingRoutes } from './binding-routes.js';
import { JsonRpcBinding } from './json-rpc.binding.js';
import { RestBinding } from './rest.binding.js';

/** node's message of a platform's request or response (Fastify wraps them in `raw`). */
export function nodeOf<T extends IncomingMessage | ServerResponse>(value: unknown): T {
  return ((value as { raw?: T }).raw ?? value) as T;
}

@Catch()
@Injectable()
export class A2AExceptionFilter implements ExceptionFilter {
  constructor(
    @Inject(BindingRoutes) private readonly routes: BindingRoutes,
    @Inject(JsonRpcBinding) private readonly jsonRpc: JsonRpcBinding,
    @Inject(RestBinding) private readonly rest: RestBinding,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = nodeOf<IncomingMessage>(http.getRequest());
    const url = (req as { originalUrl?: string }).originalUrl ?? req.url;
    const binding = this.routes.bindingOf(url) === 'jsonRpc' ? this.jsonRpc : this.rest;
    binding.answerError(req, nodeOf<ServerResponse>(http.getResponse()), exception);
  }
}
