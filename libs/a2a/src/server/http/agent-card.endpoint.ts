/** Serves Agent Cards with HTTP caching: Cache-Control max-age, a content ETag (304), Last-Modified. */
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { ResolvedA2AOptions } from '../../config/a2a-options.js';
import { ifNoneMatchHits } from '../../protocol/agent-card.js';
import { A2AError, MethodNotFoundError, toA2AError } from '../../protocol/errors.js';
import { A2A_OPTIONS } from '../a2a-options.provider.js';
import { AgentCardService } from '../agent-card.service.js';
import { AgentRegistry } from '../agent-registry.js';
import { A2A_ANSWER_HEADERS } from './http-binding.js';

@Injectable()
export class AgentCardEndpoint {
  private readonly logger = new Logger('A2A');

  constructor(
    @Inject(AgentRegistry) private readonly registry: AgentRegistry,
    @Inject(AgentCardService) private readonly cards: AgentCardService,
    @Inject(A2A_OPTIONS) private readonly options: ResolvedA2AOptions,
  ) {}

  async handle(req: Request, res: Response): Promise<void> {
    res.set(A2A_ANSWER_HEADERS);
    try {
      const name = req.params.agent as string | undefined;
      const served = await this.cards.served(this.registry.resolve(name), name !== undefined);
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
      this.fail(res, error);
    }
  }

  /** The public keys of the card and notification signatures (404 when nothing is signed). */
  async jwks(res: Response): Promise<void> {
    res.set(A2A_ANSWER_HEADERS);
    try {
      if (!this.cards.servesJwks) throw new MethodNotFoundError('Neither Agent Cards nor push notifications are signed here: there is no JWKS');
      res.set('Cache-Control', `public, max-age=${this.options.card.maxAgeSeconds}`).type('application/json').send(JSON.stringify(await this.cards.jwks()));
    } catch (error) {
      this.fail(res, error);
    }
  }

  private fail(res: Response, error: unknown): void {
    const a2aError: A2AError = toA2AError(error);
    if (!(error instanceof A2AError)) this.logger.error(`Serving a card failed: ${(error as Error)?.name ?? typeof error}`);
    res.status(a2aError.httpStatus).type('application/json').send(JSON.stringify(a2aError.toRest()));
  }
}
