/**
 * The host app's JSON parser (Nest registers one for `application/json` by default) reads A2A
 * bodies before any route, and its failures never reach our controllers. This answers them in the
 * binding's own error shape, on A2A paths only; other routes keep the app's own handling.
 */
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { A2A_ROUTES } from '../../a2a.constants.js';
import type { ResolvedA2APaths } from '../../config/a2a-options.js';
import { InvalidRequestError, JsonParseError, PayloadTooLargeError, UnsupportedMediaTypeError, type A2AError } from '../../protocol/errors.js';
import { responseMediaType } from '../../protocol/json-body.js';
import { bindingPaths } from '../agent-card.service.js';
import { PublicUrl } from '../public-url.js';
import { JsonRpcFormat } from './json-rpc.binding.js';
import { A2A_ANSWER_HEADERS, type WireFormat } from './http-binding.js';
import { REST_FORMAT } from './rest.binding.js';

/** body-parser's error `type` → the protocol's error; undefined for errors that are not about the body. */
function fromBodyParser(error: { type?: unknown; status?: unknown }): A2AError | undefined {
  switch (error.type) {
    case 'entity.parse.failed':
      return new JsonParseError();
    case 'entity.too.large':
      return new PayloadTooLargeError();
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new UnsupportedMediaTypeError('The request body uses an unsupported charset or Content-Encoding');
    default:
      return typeof error.status === 'number' && error.status >= 400 && error.status < 500 && typeof error.type === 'string'
        ? new InvalidRequestError('The request body could not be read')
        : undefined;
  }
}

@Injectable()
export class HostBodyParserErrors implements OnModuleInit {
  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(A2A_ROUTES) private readonly paths: ResolvedA2APaths,
    @Inject(PublicUrl) private readonly publicUrl: PublicUrl,
  ) {}

  /** Runs before Nest adds its own error handler (after onModuleInit), so this one is asked first. */
  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter || adapter.getType() !== 'express') return;
    for (const agent of [undefined, ':agent']) {
      const { jsonRpc, rest } = bindingPaths(this.paths, agent);
      if (jsonRpc) adapter.use(this.publicUrl.prefixed(jsonRpc), this.handler(() => new JsonRpcFormat()));
      if (rest) adapter.use(this.publicUrl.prefixed(rest), this.handler(() => REST_FORMAT));
    }
  }

  private handler(format: () => WireFormat) {
    return (error: { type?: unknown; status?: unknown }, req: Request, res: Response, next: NextFunction): void => {
      const a2aError = res.headersSent ? undefined : fromBodyParser(error ?? {});
      if (!a2aError) return next(error);
      const wire = format();
      res
        .set(A2A_ANSWER_HEADERS)
        .status(wire.errorStatus(a2aError))
        .type(responseMediaType(req.headers['content-type'], req.headers.accept))
        .send(JSON.stringify(wire.error(a2aError)));
    };
  }
}
