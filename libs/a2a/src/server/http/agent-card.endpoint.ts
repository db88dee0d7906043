/** Serves Agent Cards with HTTP caching: Cache-Control max-age, a content ETag (304), Last-Modified. */
import { Inject, Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { InjectA2AOptions } from '../../config/a2a.constants.js';
import { ifNoneMatchHits } from '../../protocol/agent-card.js';
import { MethodNotFoundError } from '../../protocol/errors.js';
import { AgentCardService } from '../agent-card.service.js';
import { AgentRegistry } from '../agent-registry.js';
import type { ResolvedServerOptions } from '../server-options.js';
import { A2A_ANSWER_HEADERS, type RoutedRequest } from './http-binding.js';

const JSON_CONTENT = 'application/json; charset=utf-8';

/** Errors are thrown: the module's exception filter answers them in the HTTP+JSON shape. */
@Injectable()
export class AgentCardEndpoint {
  constructor(
    @Inject(AgentRegistry) private readonly registry: AgentRegistry,
    @Inject(AgentCardService) private readonly cards: AgentCardService,
    @InjectA2AOptions() private readonly options: ResolvedServerOptions,
  ) {}

  async handle(routed: RoutedRequest, res: ServerResponse): Promise<void> {
    const served = await this.cards.served(this.registry.resolve(routed.agent), routed.agent !== undefined);
    const headers = {
      ...A2A_ANSWER_HEADERS,
      'Cache-Control': `public, max-age=${this.options.card.maxAgeSeconds}`,
      ETag: served.etag,
      'Last-Modified': served.lastModified,
    };
    const ifNoneMatch = routed.raw.headers['if-none-match'];
    const ifModifiedSince = routed.raw.headers['if-modified-since'];
    const notModified =
      ifNoneMatch !== undefined
        ? ifNoneMatchHits(ifNoneMatch, served.etag)
        : ifModifiedSince !== undefined && Date.parse(ifModifiedSince) >= Date.parse(served.lastModified);
    if (notModified) {
      res.writeHead(304, headers).end();
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': JSON_CONTENT, 'Content-Length': Buffer.byteLength(served.body) }).end(served.body);
  }

  /** The public keys of the card and notification signatures (404 when nothing is signed). */
  async jwks(res: ServerResponse): Promise<void> {
    if (!this.cards.servesJwks) throw new MethodNotFoundError('Neither Agent Cards nor push notifications are signed here: there is no JWKS');
    const body = JSON.stringify(await this.cards.jwks());
    res
      .writeHead(200, {
        ...A2A_ANSWER_HEADERS,
        'Cache-Control': `public, max-age=${this.options.card.maxAgeSeconds}`,
        'Content-Type': JSON_CONTENT,
        'Content-Length': Buffer.byteLength(body),
      })
      .end(body);
  }
}
