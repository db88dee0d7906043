/** Builds, serialises and caches each agent's card, from its declaration and the bindings actually mounted. */
import { Inject, Injectable } from '@nestjs/common';
import type { JSONWebKeySet } from 'jose';
import { A2A_PUSH_OPTIONS, A2A_ROUTES, InjectA2AOptions } from '../config/a2a.constants.js';
import { buildAgentCard, entityTag } from '../protocol/agent-card.js';
import { publicJwks, signedCardBody, signedV03HybridBody, type CardSigner } from '../protocol/card-signing.js';
import { ExtendedAgentCardNotConfiguredError, UnauthenticatedError, UnsupportedOperationError } from '../protocol/errors.js';
import { PROTOCOL_BINDINGS, PROTOCOL_VERSION, type AgentCard, type AgentInterface } from '../protocol/types.js';
import { V03_PROTOCOL_VERSION } from '../protocol/v03/constants.js';
import type { A2ACaller } from '../tasks/agent-executor.js';
import type { ResolvedPushOptions } from '../push/push-options.js';
import { PushNotifications } from '../push/push-notifications.js';
import { agentCardPath, bindingPaths, type ResolvedA2APaths } from './a2a-paths.js';
import type { PublishedAgent } from './agent-registry.js';
import { PublicUrl } from './public-url.js';
import { SecurityInventory } from './security/security-inventory.js';
import type { ResolvedServerOptions } from './server-options.js';

/** A card ready to serve: the exact bytes and their validators. */
export interface ServedCard {
  readonly card: AgentCard;
  readonly body: string;
  readonly etag: string;
  readonly lastModified: string;
  /** With `v03`: the hybrid card, for readers that did not ask for 1.0 (1.0 fields plus those 0.3 clients read). */
  readonly hybrid?: { readonly body: string; readonly etag: string };
}

@Injectable()
export class AgentCardService {
  /**
   * Per card and public base URL (the one input that changes: the listen address is known only
   * once the server listens), what is served. Everything else in a card is fixed at start-up.
   */
  private readonly cache = new Map<string, Promise<ServedCard>>();
  private jwksOnce?: Promise<JSONWebKeySet>;

  constructor(
    @Inject(A2A_ROUTES) private readonly paths: ResolvedA2APaths,
    @Inject(PublicUrl) private readonly publicUrl: PublicUrl,
    @Inject(SecurityInventory) private readonly security: SecurityInventory,
    @InjectA2AOptions() private readonly options: ResolvedServerOptions,
    @Inject(PushNotifications) private readonly push: PushNotifications,
    @Inject(A2A_PUSH_OPTIONS) private readonly pushOptions: ResolvedPushOptions | undefined,
  ) {}

  /**
   * The card of `agent` as served at the root well-known path (`viaAgentPath` false: the default
   * agent, with the root binding URLs) or at its per-agent path. With signing keys the served
   * bytes are the signed card's; it is built and signed once per public base URL.
   */
  served(agent: PublishedAgent, viaAgentPath: boolean): Promise<ServedCard> {
    const key = `${viaAgentPath ? 'agent' : 'root'}:${agent.name}@${this.publicUrl.of('')}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const card = buildAgentCard({ ...agent.card, ...this.security.cardSecurity() }, {
      interfaces: this.interfaces(viaAgentPath ? agent.name : undefined),
      capabilities: this.capabilities(agent),
    });
    const signers = this.signers();
    const served = signedCardBody(card, signers).then(async ({ card: signed, body }) => {
      // the hybrid card keeps the 1.0 signatures (1.0 verifiers drop the 0.3 members before checking)
      // and adds those over its 0.3 view, which 0.3 verifiers check
      const hybrid = this.options.v03 ? (await signedV03HybridBody(signed, signers)).body : undefined;
      return {
        card: signed,
        body,
        etag: entityTag(body),
        lastModified: new Date().toUTCString(),
        ...(hybrid === undefined ? {} : { hybrid: { body: hybrid, etag: entityTag(hybrid) } }),
      };
    });
    served.catch(() => this.cache.delete(key)); // a failed signing is tried again on the next request
    this.cache.set(key, served);
    return served;
  }

  /** The public keys of the card signatures and of the push-notification signing key: one JWKS (its keys are fixed at start-up). */
  jwks(): Promise<JSONWebKeySet> {
    const push = this.pushOptions?.signing;
    this.jwksOnce ??= publicJwks([...this.options.signing.keys, ...(push ? [{ key: push.key, alg: push.alg, kid: push.kid }] : [])]);
    return this.jwksOnce;
  }

  get signed(): boolean {
    return this.options.signing.keys.length > 0;
  }

  /** There are keys to publish (signed cards, signed notifications). */
  get servesJwks(): boolean {
    return this.signed || this.pushOptions?.signing !== undefined;
  }

  /** Signers with `jku` pointing at the served JWKS unless they name their own. */
  private signers(): CardSigner[] {
    const jku = this.publicUrl.of(this.paths.jwks);
    return this.options.signing.keys.map((signer) => ({ jku, ...signer }));
  }

  /**
   * The extended card for an authenticated caller: the public card with the agent's extended
   * fields in place of the public ones.
   * @throws UnsupportedOperationError (none declared), UnauthenticatedError, ExtendedAgentCardNotConfiguredError
   */
  async extended(agent: PublishedAgent, viaAgentPath: boolean, caller: A2ACaller): Promise<AgentCard> {
    if (!agent.extendedCard) {
      throw new UnsupportedOperationError('This agent has no extended agent card (capabilities.extendedAgentCard is false)');
    }
    if (!caller.authenticated) throw new UnauthenticatedError('The extended agent card is for authenticated callers');
    const fields = await agent.extendedCard(caller);
    if (!fields) throw new ExtendedAgentCardNotConfiguredError('No extended agent card is configured for this caller');
    return buildAgentCard(
      { ...agent.card, ...withoutUndefined(fields), ...this.security.cardSecurity() },
      { interfaces: this.interfaces(viaAgentPath ? agent.name : undefined), capabilities: this.capabilities(agent) },
    );
  }

  private capabilities(agent: PublishedAgent) {
    return { streaming: true, pushNotifications: this.push.enabled, extendedAgentCard: agent.extendedCard !== undefined };
  }

  /** The URL of the card of the agent named `agent` at its per-agent path, or of the default agent's at the root. */
  cardUrl(agent?: string): string {
    return this.publicUrl.of(agentCardPath(this.paths, agent));
  }

  /** The same card's path on this app (its global prefix included). */
  cardPath(agent?: string): string {
    return this.publicUrl.prefixed(agentCardPath(this.paths, agent));
  }

  /** The 1.0 interfaces, then (with `v03`) the 0.3 ones, at the same URLs: a 1.0 client picks the first it speaks. */
  private interfaces(agent: string | undefined): AgentInterface[] {
    const { jsonRpc, rest } = bindingPaths(this.paths, agent);
    const versions = this.options.v03 ? [PROTOCOL_VERSION, V03_PROTOCOL_VERSION] : [PROTOCOL_VERSION];
    return versions.flatMap((protocolVersion) => {
      const interfaces: AgentInterface[] = [];
      if (jsonRpc) interfaces.push({ url: this.publicUrl.of(jsonRpc), protocolBinding: PROTOCOL_BINDINGS.jsonRpc, protocolVersion });
      if (rest) interfaces.push({ url: this.publicUrl.of(rest), protocolBinding: PROTOCOL_BINDINGS.rest, protocolVersion });
      return interfaces;
    });
  }
}

function withoutUndefined<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}
