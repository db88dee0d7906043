/**
 * Answers what the host's guards (or anything else before a binding's handler) throw in the
 * binding's own error shape: 401 with `WWW-Authenticate`, 403, 429. Scoped to the A2A
 * controllers only; the app's other routes keep their own handling.
 */
import { Catch, Inject, Injectable, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { HttpBinding } from '../http/http-binding.js';
import { JsonRpcBinding } from '../http/json-rpc.binding.js';
import { RestBinding } from '../http/rest.binding.js';

abstract class BindingExceptionFilter implements ExceptionFilter {
  constructor(private readonly binding: HttpBinding) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.binding.answerError(http.getRequest<Request>(), http.getResponse<Response>(), exception);
  }
}

@Catch()
@Injectable()
export class JsonRpcExceptionFilter extends BindingExceptionFilter {
  constructor(@Inject(JsonRpcBinding) binding: JsonRpcBinding) {
    super(binding);
  }
}

@Catch()
@Injectable()
export class RestExceptionFilter extends BindingExceptionFilter {
  constructor(@Inject(RestBinding) binding: RestBinding) {
    super(binding);
  }
}
