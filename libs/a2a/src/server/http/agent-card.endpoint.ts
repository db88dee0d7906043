/** Serves Agent Cards with HTTP caching: Cache-Control max-age, a content ETag (304), Last-Modified. */
import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { ResolvedA2AOptions } from '../../config/a2a-options.js';
import { ifNoneMatchHits } from '../../protocol/agent-card.js';
import { A2AError, toA2AError } from '../../protocol/errors.js';
import { A2A_OPTIONS } from '../a2a-options.provider.js';
import { AgentCardService } from '../agent-card.service.js';
import { AgentRegistry } from '../agent-registry.js';

@Injectable()
export class AgentCardEndpoint {
  constructor(
    @Inject(AgentRegistry) private readonly registry: AgentRegistry,
    @Inject(AgentCardService) private readonly cards: AgentCardService,
    @Inject(A2A_OPTIONS) private readonly options: ResolvedA2AOptions,
  ) {}

  handle(req: Request, res: Response): void {
    try {
      const name = req.params.agent as string | undefined;
      const served = this.cards.served(this.registry.resolve(name), name !== undefined);
      res.set({
        'Cache-Control': `public, max-age=${this.options.card.maxAgeSeconds}`,
        ETag: served.etag,
        'Last-Modified': served.lastModified,
      });
      const ifNoneMatch = req.headers['if-none-match'];
      const ifModifiedSince = req.headers['if-modified-since'];
      const notModified =
        ifNoneMatch !== undefined
          ? ifNoneMatchHits(ifNoneMatch, served.etag)
          : ifModifiedSince !== undefined && Date.parse(ifModifiedSince) >= Date.parse(served.lastModified);
      if (notModified) {
        res.status(304).end();
        return;
      }
      res.status(200).type('application/json').send(served.body);
    } catch (error) {
      const a2aError: A2AError = toA2AError(error);
      res.status(a2aError.httpStatus).type('application/json').send(JSON.stringify(a2aError.toRest()));
    }
  }
}
