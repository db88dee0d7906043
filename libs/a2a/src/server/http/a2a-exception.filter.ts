/**
 * Answers what is thrown on the A2A routes before (or outside) a binding's own handling: the
 * host's guards, the caller resolver, the card endpoint. The binding the request was for gives the
 * shape (`BindingRoutes`); the card and the JWKS answer in the HTTP+JSON one. Scoped to the A2A
 * controllers only: the app's other routes keep their own handling.
 */
import { Catch, Inject, Injectable, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { BindingRoutes } from './binding-routes.js';
import { JsonRpcBinding } from './json-rpc.binding.js';
import { responseOf, routedOf } from './platform-exchange.js';
import { RestBinding } from './rest.binding.js';

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
    const req = routedOf(http.getRequest()).raw;
    const url = (req as { originalUrl?: string }).originalUrl ?? req.url;
    const binding = this.routes.bindingOf(url) === 'jsonRpc' ? this.jsonRpc : this.rest;
    binding.answerError(req, responseOf(http.getResponse()), exception);
  }
}
