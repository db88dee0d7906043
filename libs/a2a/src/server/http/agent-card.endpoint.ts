/** Serves Agent Cards with HTTP caching: Cache-Control max-age, a content ETag (304), Last-Modified. */
import { Inject, Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { InjectA2AOptions } from '../../config/a2a.constants.js';
import { ifNoneMatchHits } from '../../protocol/agent-card.js';
import { MethodNotFoundError } from '../../protocol/errors.js';
import { VERSION_HEADER } from '../../protocol/service-params.js';
import { AgentCardService } from '../agent-card.service.js';
import { AgentRegistry } from '../agent-registry.js';
import type { ResolvedServerOptions } from '../server-options.js';
import { A2A_ANSWER_HEADERS, type RoutedRequest } from './http-binding.js';

const JSON_CONTENT = 'application/json; charset=utf-8';

/** An `A2A-Version` of 1.x: the reader wants the pure 1.0 card. */
function asksForV1(version: string | string[] | undefined): boolean {
  return typeof version === 'string' && /^\s*1\.\d+(?:\.\d+)?\s*$/.test(version);
}

/** Errors are thrown: the module's exception filter answers them in the HTTP+JSON shape. */
@Injectable()
export class AgentCardEndpoint {
  constructor(
    @Inject(AgentRegistry) private readonly registry: AgentRegistry,
    @Inject(AgentCardService) private readonly cards: AgentCardService,
    @InjectA2AOptions() private readonly options: ResolvedServerOptions,
  ) {}

  /**
   * `legacyPath`: asked at the 0.2 path (`/.well-known/agent.json`), which only 0.3 readers use.
   * With `v03`, a reader that does not ask for 1.0 (`A2A-Version: 1.0`) gets the hybrid card.
   */
  async handle(routed: RoutedRequest, res: ServerResponse, legacyPath = false): Promise<void> {
    if (legacyPath && !this.options.v03) throw new MethodNotFoundError('This agent speaks A2A 1.0: its card is at /.well-known/agent-card.json');
    const served = await this.cards.served(this.registry.resolve(routed.agent), routed.agent !== undefined);
    const hybrid = served.hybrid && (legacyPath || !asksForV1(routed.raw.headers[VERSION_HEADER.toLowerCase()])) ? served.hybrid : undefined;
    const { body, etag } = hybrid ?? served;
    const headers: Record<string, string> = {
      ...A2A_ANSWER_HEADERS,
      'Cache-Control': `public, max-age=${this.options.card.maxAgeSeconds}`,
      ETag: etag,
      'Last-Modified': served.lastModified,
      // caches keep the hybrid and the pure card apart
      ...(served.hybrid ? { Vary: VERSION_HEADER } : {}),
    };
    const ifNoneMatch = routed.raw.headers['if-none-match'];
    const ifModifiedSince = routed.raw.headers['if-modified-since'];
    const notModified =
      ifNoneMatch !== undefined
        ? ifNoneMatchHits(ifNoneMatch, etag)
        : ifModifiedSince !== undefined && Date.parse(ifModifiedSince) >= Date.parse(served.lastModified);
    if (notModified) {
      res.writeHead(304, headers).end();
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': JSON_CONTENT, 'Content-Length': Buffer.byteLength(body) }).end(body);
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
