/** The HTTP+JSON binding (spec §11): the route table, `google.rpc.Status` errors, SSE for streams. */
import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { JSON_BODY_TYPES, checkContentType } from '../../protocol/json-body.js';
import { matchRestRoute, restParams } from '../../protocol/rest-routes.js';
import { encodeStreamEvent } from '../a2a-request-handler.js';
import { AgentRegistry } from '../agent-registry.js';
import { HttpBinding, type Exchange, type RoutedRequest, type WireFormat } from './http-binding.js';
import { hasBody, readJsonBody } from './request-body.js';

export const REST_FORMAT: WireFormat = {
  result: (result) => result,
  error: (error) => error.toRest(),
  errorStatus: (error) => error.httpStatus,
  event: (event) => encodeStreamEvent(event.event),
};

@Injectable()
export class RestBinding extends HttpBinding {
  readonly protocolBinding = 'HTTP+JSON';

  constructor(@Inject(AgentRegistry) private readonly registry: AgentRegistry) {
    super();
  }

  exchange(req: IncomingMessage): Exchange {
    return this.exchangeWith(req, REST_FORMAT);
  }

  /** `subPath`: the request path after the interface URL, still percent-encoded. */
  async handle(routed: RoutedRequest, res: ServerResponse, subPath: string): Promise<void> {
    const req = routed.raw;
    const exchange = this.exchange(req);
    try {
      const agent = this.registry.resolve(routed.agent);
      const match = matchRestRoute(req.method ?? 'GET', subPath);
      let body: unknown;
      if (match.route.body === '*') {
        checkContentType(req.headers['content-type'], JSON_BODY_TYPES, hasBody(req));
        body = await readJsonBody(req, this.options.limits);
      }
      await this.serve(routed, res, exchange, agent, match.route.operation, restParams(match, routed.query as Record<string, unknown>, body));
    } catch (error) {
      this.answerError(req, res, error, exchange);
    }
  }
}
