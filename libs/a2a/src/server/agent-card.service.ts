/** Builds, serialises and caches each agent's card, from its declaration and the bindings actually mounted. */
import { Inject, Injectable } from '@nestjs/common';
import { A2A_ROUTES } from '../a2a.constants.js';
import type { ResolvedA2APaths } from '../config/a2a-options.js';
import { buildAgentCard, entityTag, serializeAgentCard } from '../protocol/agent-card.js';
import { PROTOCOL_BINDINGS, PROTOCOL_VERSION, type AgentCard, type AgentInterface } from '../protocol/types.js';
import { AgentRegistry, type PublishedAgent } from './agent-registry.js';
import { PublicUrl } from './public-url.js';

/** A card ready to serve: the exact bytes and their validators. */
export interface ServedCard {
  readonly card: AgentCard;
  readonly body: string;
  readonly etag: string;
  readonly lastModified: string;
}

/** App paths of one agent's bindings: the root paths (default agent) or its per-agent paths. */
export function bindingPaths(paths: ResolvedA2APaths, agent: string | undefined): { jsonRpc?: string; rest?: string } {
  const base = agent === undefined ? '' : `${paths.agents}/${agent}`;
  return {
    jsonRpc: paths.jsonRpc === false ? undefined : `${base}${paths.jsonRpc}`,
    rest: paths.rest === false ? undefined : `${base}${paths.rest}`,
  };
}

@Injectable()
export class AgentCardService {
  private readonly cache = new Map<string, ServedCard>();

  constructor(
    @Inject(AgentRegistry) private readonly registry: AgentRegistry,
    @Inject(A2A_ROUTES) private readonly paths: ResolvedA2APaths,
    @Inject(PublicUrl) private readonly publicUrl: PublicUrl,
  ) {}

  /**
   * The card of `agent` as served at the root well-known path (`viaAgentPath` false: the default
   * agent, with the root binding URLs) or at its per-agent path.
   */
  served(agent: PublishedAgent, viaAgentPath: boolean): ServedCard {
    const key = `${viaAgentPath ? 'agent' : 'root'}:${agent.name}`;
    let served = this.cache.get(key);
    if (!served) {
      const card = buildAgentCard(agent.card, {
        interfaces: this.interfaces(viaAgentPath ? agent.name : undefined),
        capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
      });
      const body = serializeAgentCard(card);
      served = { card, body, etag: entityTag(body), lastModified: new Date().toUTCString() };
      this.cache.set(key, served);
    }
    return served;
  }

  /** The URL of the card of `agent` at its per-agent path. */
  cardUrl(agent: PublishedAgent): string {
    return this.publicUrl.of(`${this.paths.agents}/${agent.name}/.well-known/agent-card.json`);
  }

  private interfaces(agent: string | undefined): AgentInterface[] {
    const { jsonRpc, rest } = bindingPaths(this.paths, agent);
    const interfaces: AgentInterface[] = [];
    if (jsonRpc) interfaces.push({ url: this.publicUrl.of(jsonRpc), protocolBinding: PROTOCOL_BINDINGS.jsonRpc, protocolVersion: PROTOCOL_VERSION });
    if (rest) interfaces.push({ url: this.publicUrl.of(rest), protocolBinding: PROTOCOL_BINDINGS.rest, protocolVersion: PROTOCOL_VERSION });
    return interfaces;
  }
}
