/**
 * Express decodes a route's path parameters before the route runs: a path segment that is not
 * valid percent-encoding (`/tasks/%zz`, an agent named `%E2%82`) fails in the router, outside
 * every controller and filter, and would reach Nest's own error shape. This answers it in the
 * binding's shape, on the A2A paths only; other routes keep the app's own handling.
 */
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidRequestError } from '../../protocol/errors.js';
import { BindingRoutes } from './binding-routes.js';
import { JsonRpcBinding } from './json-rpc.binding.js';
import { RestBinding } from './rest.binding.js';

@Injectable()
export class RouterErrors implements OnModuleInit {
  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(BindingRoutes) private readonly routes: BindingRoutes,
    @Inject(JsonRpcBinding) private readonly jsonRpc: JsonRpcBinding,
    @Inject(RestBinding) private readonly rest: RestBinding,
  ) {}

  /** Nest registers the routes before onModuleInit and its own error handler after it: this one sits between. */
  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (adapter?.getType() === 'express') adapter.use(this.handler);
  }

  private readonly handler = (error: unknown, req: IncomingMessage & { originalUrl?: string }, res: ServerResponse, next: (error: unknown) => void): void => {
    const binding = this.routes.bindingOf(req.originalUrl ?? req.url);
    if (!(error instanceof URIError) || binding === undefined || res.headersSent) return next(error);
    (binding === 'jsonRpc' ? this.jsonRpc : this.rest).answerError(req, res, new InvalidRequestError('The request path is not valid percent-encoding'));
  };
}
