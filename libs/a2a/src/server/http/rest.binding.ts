/** The HTTP+JSON binding (spec §11): the route table, `google.rpc.Status` errors, SSE for streams. */
import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { JSON_BODY_TYPES, checkContentType } from '../../protocol/json-body.js';
import { matchRestRoute, restParams } from '../../protocol/rest-routes.js';
import { encodeStreamEvent } from '../a2a-request-handler.js';
import { AgentRegistry } from '../agent-registry.js';
import { HttpBinding, type WireFormat } from './http-binding.js';
import { hasBody, readJsonBody } from './request-body.js';

export const REST_FORMAT: WireFormat = {
  result: (result) => result,
  error: (error) => error.toRest(),
  errorStatus: (error) => error.httpStatus,
  event: (event) => encodeStreamEvent(event.event),
};

@Injectable()
export class RestBinding extends HttpBinding {
  constructor(@Inject(AgentRegistry) private readonly registry: AgentRegistry) {
    super();
  }

  answerError(req: Request, res: Response, error: unknown): void {
    this.fail(res, error, this.exchange(req, REST_FORMAT));
  }

  /** `subPath`: the request path after the interface URL, still percent-encoded. */
  async handle(req: Request, res: Response, subPath: string): Promise<void> {
    const exchange = this.exchange(req, REST_FORMAT);
    try {
      const agent = this.registry.resolve(req.params.agent as string | undefined);
      const match = matchRestRoute(req.method, subPath);
      let body: unknown;
      if (match.route.body === '*') {
        checkContentType(req.headers['content-type'], JSON_BODY_TYPES, hasBody(req));
        body = await readJsonBody(req, this.options.limits);
      }
      await this.serve(req, res, exchange, agent, match.route.operation, restParams(match, req.query as Record<string, unknown>, body));
    } catch (error) {
      this.fail(res, error, exchange);
    }
  }
}
