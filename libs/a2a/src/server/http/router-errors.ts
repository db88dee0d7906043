/**
 * The platforms' routers decode a route's path parameters before the route runs: a path segment
 * that is not valid percent-encoding (`/tasks/%zz`, an agent named `%E2%82`) fails in the router,
 * outside every controller and filter, and would reach the platform's own error shape. This
 * answers it in the binding's shape, on the A2A paths only; other routes keep the app's own handling.
 * Express passes the router's URIError to its error middleware. Fastify answers such a URL (and a
 * route parameter over its `maxParamLength`, which no agent name can be) before any hook or error
 * handler runs, so on Fastify the check runs first, in front of its request listener.
 */
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { InjectA2AOptions } from '../../config/a2a.constants.js';
import { AgentNotFoundError, InvalidRequestError, type A2AError } from '../../protocol/errors.js';
import { BindingRoutes, pathOf } from './binding-routes.js';
import { JsonRpcBinding } from './json-rpc.binding.js';
import type { ResolvedServerOptions } from '../server-options.js';
import { readBodyAhead } from './request-body.js';
import { RestBinding } from './rest.binding.js';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** What is read of a Fastify instance: its router's longest route parameter. */
interface FastifyLike {
  readonly initialConfig: { maxParamLength?: number; routerOptions?: { maxParamLength?: number } };
}

const BAD_PERCENT_ENCODING = 'The request path is not valid percent-encoding';

@Injectable()
export class RouterErrors implements OnModuleInit {
  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(BindingRoutes) private readonly routes: BindingRoutes,
    @Inject(JsonRpcBinding) private readonly jsonRpc: JsonRpcBinding,
    @Inject(RestBinding) private readonly rest: RestBinding,
    @InjectA2AOptions() private readonly options: ResolvedServerOptions,
  ) {}

  /** Nest registers the routes before onModuleInit and its own error handler after it: this one sits between. */
  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (adapter?.getType() === 'express') adapter.use(this.expressHandler);
    if (adapter?.getType() === 'fastify') this.guardFastify(adapter.getHttpServer() as Server, adapter.getInstance<FastifyLike>());
  }

  private readonly expressHandler = (error: unknown, req: IncomingMessage & { originalUrl?: string }, res: ServerResponse, next: (error: unknown) => void): void => {
    const binding = this.routes.bindingOf(req.originalUrl ?? req.url);
    if (!(error instanceof URIError) || binding === undefined || res.headersSent) return next(error);
    this.answer(binding, req, res, new InvalidRequestError(BAD_PERCENT_ENCODING));
  };

  /** Puts the check in front of Fastify's request listener, which the server got when Fastify made it. */
  private guardFastify(server: Server, fastify: FastifyLike): void {
    const maxParamLength = fastify.initialConfig.routerOptions?.maxParamLength ?? fastify.initialConfig.maxParamLength ?? 100;
    const listeners = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    for (const listener of listeners) {
      server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        const refusal = this.routerRefusal(req.url, maxParamLength);
        if (!refusal) return listener(req, res);
        // read first, as on Express: the JSON-RPC answer carries the request's id
        readBodyAhead(req, this.options.limits, () => this.answer(refusal.binding, req, res, refusal.error));
      });
    }
  }

  /** What Fastify's router would refuse of an A2A path, as the binding answers it; undefined for any other path. */
  private routerRefusal(url: string | undefined, maxParamLength: number): { binding: 'jsonRpc' | 'rest'; error: A2AError } | undefined {
    const path = pathOf(url ?? '');
    if (!path.includes('%') && path.length <= maxParamLength) return undefined;
    const binding = this.routes.bindingOf(url);
    if (binding === undefined) return undefined;
    try {
      decodeURIComponent(path);
    } catch {
      return { binding, error: new InvalidRequestError(BAD_PERCENT_ENCODING) };
    }
    const agent = this.routes.agentOf(url);
    if (agent !== undefined && agent.length > maxParamLength) return { binding, error: new AgentNotFoundError('No agent has so long a name') };
    return undefined;
  }

  private answer(binding: 'jsonRpc' | 'rest', req: IncomingMessage, res: ServerResponse, error: A2AError): void {
    (binding === 'jsonRpc' ? this.jsonRpc : this.rest).answerError(req, res, error);
  }
}
