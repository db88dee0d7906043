/**
 * Where an `A2AClient`'s calls go: the agent's card (given in hand, or resolved through the cache,
 * its signature verified when asked), the interface chosen from it (§8.3) with its transport, and
 * the fallback to A2A 0.3 for an agent that answers a 1.0 call as a 0.3 agent does.
 */
import { MethodNotAllowedError, MethodNotFoundError, VersionNotSupportedError } from '../protocol/errors.js';
import { PROTOCOL_VERSION, type AgentCard } from '../protocol/types.js';
import { isV03Version, V03_PROTOCOL_VERSION } from '../protocol/v03/constants.js';
import type { A2AHttp } from './a2a-http.js';
import type { AgentCardResolver, CardVerification } from './card-resolver.js';
import { errorFacts } from './error-mapping.js';
import { selectInterface, v03FallbackInterface, type A2ABinding, type SelectedInterface } from './interface-selection.js';
import { JsonRpcTransport } from './json-rpc-transport.js';
import { isUnknownRoute, RestTransport } from './rest-transport.js';
import type { A2ATransport } from './transport.js';
import { V03JsonRpcTransport } from './v03-json-rpc-transport.js';
import { V03RestTransport } from './v03-rest-transport.js';

/** A card, the interface chosen from it, and the transport that speaks that interface. */
export interface Endpoint {
  readonly card: AgentCard;
  /** The card's signature verified against the caller's keys (`verify`). */
  readonly verified: boolean;
  readonly selected: SelectedInterface;
  readonly transport: A2ATransport;
}

export interface EndpointSelectorSettings {
  readonly http: A2AHttp;
  /** Absent only for a card in hand that is not verified. */
  readonly resolver: AgentCardResolver | undefined;
  /** Where the card is read from; absent for a card in hand. */
  readonly cardUrl: string | undefined;
  /** `cardUrl` as errors may show it (redacted). */
  readonly cardTarget: string;
  /** The card in hand, checked; and as the caller gave it (what its signature covers). */
  readonly fixedCard: AgentCard | undefined;
  readonly givenCard: AgentCard | undefined;
  readonly verify: CardVerification | undefined;
  readonly preferredBinding: A2ABinding | undefined;
}

/** The transport of an interface: its binding, at its version. */
function transportFor(http: A2AHttp, selected: SelectedInterface): A2ATransport {
  const v03 = selected.protocolVersion === V03_PROTOCOL_VERSION;
  if (selected.binding === 'JSONRPC') return v03 ? new V03JsonRpcTransport(http, selected.url) : new JsonRpcTransport(http, selected.url);
  return v03 ? new V03RestTransport(http, selected.url) : new RestTransport(http, selected.url);
}

/**
 * Is `error` how a 0.3 agent answers a 1.0 call: an unknown method (JSON-RPC) or route (REST), or
 * VersionNotSupported that does not rule 0.3 out?
 */
function answersAsV03Agent(error: unknown): boolean {
  if (error instanceof VersionNotSupportedError) {
    const supported = error.metadata.supportedVersions;
    return supported === undefined || supported.split(',').some(isV03Version);
  }
  return error instanceof MethodNotFoundError || error instanceof MethodNotAllowedError || isUnknownRoute(error);
}

/** The card and interface of one client, re-selected only when the card changes. @internal */
export class EndpointSelector {
  private cached: Endpoint | undefined;
  private fixedCardChecked: Promise<void> | undefined;

  constructor(private readonly settings: EndpointSelectorSettings) {}

  /** The card, and whether its signature verified against the caller's keys. */
  async verifiedCard(signal: AbortSignal): Promise<{ card: AgentCard; verified: boolean }> {
    const { resolver, verify, fixedCard } = this.settings;
    if (fixedCard === undefined) {
      const resolved = await resolver!.resolve(this.settings.cardUrl!, { signal, ...(verify === undefined ? {} : { verify }) });
      return { card: resolved.card, verified: resolved.signature !== undefined };
    }
    if (verify !== undefined) {
      this.fixedCardChecked ??= resolver!.verifyCard(this.settings.givenCard, verify).then(() => undefined);
      try {
        await this.fixedCardChecked;
      } catch (error) {
        this.fixedCardChecked = undefined;
        throw error;
      }
    }
    return { card: fixedCard, verified: verify !== undefined };
  }

  /** The card and the interface to use, re-selected only when the card changed. */
  async endpoint(signal: AbortSignal): Promise<Endpoint> {
    const { card, verified } = await this.verifiedCard(signal);
    const cached = this.cached;
    if (cached !== undefined && cached.card === card && cached.verified === verified) return cached;
    const { http, cardUrl, cardTarget, preferredBinding } = this.settings;
    const selected = selectInterface(card, {
      policy: http.policy,
      cardUrl: cardUrl === undefined ? undefined : cardTarget,
      ...(preferredBinding === undefined ? {} : { preferredBinding }),
    });
    this.cached = { card, verified, selected, transport: transportFor(http, selected) };
    return this.cached;
  }

  /** Where to talk 0.3 when `error` says the 1.0 call at `endpoint` reached a 0.3 agent. */
  v03Fallback(endpoint: Endpoint, operation: string, error: unknown): Endpoint | undefined {
    // ListTasks has no 0.3 form: the 1.0 answer stands
    if (endpoint.selected.protocolVersion !== PROTOCOL_VERSION || operation === 'ListTasks' || !answersAsV03Agent(error)) return undefined;
    let selected: SelectedInterface;
    try {
      selected = v03FallbackInterface(endpoint.card, endpoint.selected, this.settings.http.policy);
    } catch {
      return undefined;
    }
    // the same card, so the same credential scope: its signature verified or not, its origins allowed or not
    return { card: endpoint.card, verified: endpoint.verified, selected, transport: transportFor(this.settings.http, selected) };
  }

  /**
   * Runs a call again at 0.3. When the peer refuses 0.3 as well, the 1.0 error stands; when it
   * answers (a result, or an A2A error), it speaks 0.3, and the client keeps talking 0.3 to it.
   */
  async atV03<T>(fallback: Endpoint, original: unknown, run: () => Promise<T>): Promise<T> {
    try {
      const result = await run();
      this.keep(fallback);
      return result;
    } catch (error) {
      if (answersAsV03Agent(error)) throw original;
      // an error raised before anything was sent proves nothing about the peer
      if (errorFacts(error) !== undefined) this.keep(fallback);
      throw error;
    }
  }

  private keep(fallback: Endpoint): void {
    if (this.cached?.card === fallback.card && this.cached.verified === fallback.verified) this.cached = fallback;
  }
}
