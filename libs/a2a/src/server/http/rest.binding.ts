/**
 * The HTTP+JSON binding (spec §11): the route table, `google.rpc.Status` errors, SSE for streams;
 * with `v03`, the REST routes of `@a2a-js/sdk` 0.3 (`/v1/…` under the same base) for 0.3 requests.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { JSON_BODY_TYPES, checkContentType } from '../../protocol/json-body.js';
import { matchRestRoute, restParams } from '../../protocol/rest-routes.js';
import { PROTOCOL_VERSION } from '../../protocol/types.js';
import { matchV03RestRoute, v03RestCodecOf } from '../../protocol/v03/rest-routes.js';
import { encodeStreamEvent } from '../a2a-request-handler.js';
import { AgentRegistry, type PublishedAgent } from '../agent-registry.js';
import { HttpBinding, type Exchange, type RoutedRequest, type WireFormat } from './http-binding.js';
import { hasBody, readJsonBody } from './request-body.js';
import { sharedEventJson } from './shared-event-json.js';
import { V03RestFormat } from './v03-formats.js';

export const REST_FORMAT: WireFormat = {
  result: (result) => result,
  error: (error) => error.toRest(),
  errorStatus: (error) => error.httpStatus,
  event: (event) => sharedEventJson(event.event, encodeStreamEvent),
};

/** What a route without a body reads. */
const NO_BODY = Object.freeze({ known: undefined });

@Injectable()
export class RestBinding extends HttpBinding {
  readonly protocolBinding = 'HTTP+JSON';

  constructor(@Inject(AgentRegistry) private readonly registry: AgentRegistry) {
    super();
  }

  exchange(req: IncomingMessage): Exchange {
    const version = this.wireVersion(req);
    return this.exchangeWith(req, version === PROTOCOL_VERSION ? REST_FORMAT : new V03RestFormat(), version);
  }

  /** `subPath`: the request path after the interface URL, still percent-encoded. */
  async handle(routed: RoutedRequest, res: ServerResponse, subPath: string): Promise<void> {
    const req = routed.raw;
    const exchange = this.exchange(req);
    try {
      const agent = this.registry.resolve(routed.agent);
      if (exchange.format instanceof V03RestFormat) return await this.serveV03(routed, res, exchange, exchange.format, agent, subPath);
      const match = matchRestRoute(req.method ?? 'GET', subPath);
      const read = this.bodyOf(req, match.route);
      const body = 'known' in read ? read.known : await read;
      await this.serve(routed, res, exchange, agent, match.route.operation, restParams(match, routed.query as Record<string, unknown>, body));
    } catch (error) {
      this.answerError(req, res, error, exchange);
    }
  }

  /** A 0.3 request: the routes of `@a2a-js/sdk` 0.3 (`/v1/…`), read and answered by their 0.3 codec. */
  private async serveV03(routed: RoutedRequest, res: ServerResponse, exchange: Exchange, format: V03RestFormat, agent: PublishedAgent, subPath: string): Promise<void> {
    const req = routed.raw;
    const match = matchV03RestRoute(req.method ?? 'GET', subPath);
    format.route = match.route;
    const read = this.bodyOf(req, match.route);
    const body = 'known' in read ? read.known : await read;
    const codec = v03RestCodecOf(match.route.operation)!;
    await this.serveTranslated(routed, res, exchange, agent, match.route.operation, (options) =>
      codec.requestFromV03({ pathParams: match.pathParams, query: routed.query, body }, options),
    );
  }

  /** The JSON body of a route that takes one (its media type checked first); undefined for the others. */
  private bodyOf(req: IncomingMessage, route: { readonly body: '*' | 'none' }): ReturnType<typeof readJsonBody> {
    if (route.body !== '*') return NO_BODY;
    checkContentType(req.headers['content-type'], JSON_BODY_TYPES, hasBody(req));
    return readJsonBody(req, this.options.limits);
  }
}
