/**
 * Express only: reads the bodies of A2A requests ahead of the app's own parsers, so one limit
 * (`limits.maxBodyBytes`) holds on the A2A routes whatever the content type, in a default
 * `NestFactory.create(AppModule)` app too (Nest's JSON parser would refuse a body over 100 kB
 * before the route, and leave `application/a2a+json` alone). Other routes keep the app's parsers.
 *
 * The seam for another platform (Fastify) is here: a hook of its own that calls `readBodyAhead`
 * for the paths `BindingRoutes` recognises. Without one, the binding reads the body itself, or
 * uses what the platform's parser made of it.
 */
import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InjectA2AOptions } from '../../config/a2a.constants.js';
import type { ResolvedServerOptions } from '../server-options.js';
import { BindingRoutes } from './binding-routes.js';
import { exposeBody, readBodyAhead } from './request-body.js';

@Injectable()
export class ExpressBodyReader {
  constructor(
    @Inject(HttpAdapterHost) adapterHost: HttpAdapterHost,
    @Inject(BindingRoutes) private readonly routes: BindingRoutes,
    @InjectA2AOptions() private readonly options: ResolvedServerOptions,
  ) {
    // the adapter is set before the app registers its parsers (in init): a middleware added now runs before them
    adapterHost.init$.subscribe(() => {
      const adapter = adapterHost.httpAdapter;
      if (adapter?.getType() === 'express') adapter.use(this.middleware);
    });
  }

  private readonly middleware = (req: IncomingMessage & { body?: unknown }, _res: ServerResponse, next: () => void): void => {
    if (this.routes.bindingOf(req.url) === undefined) return next();
    void readBodyAhead(req, this.options.limits).then(() => {
      exposeBody(req, this.options.limits);
      next();
    }, next);
  };
}
