/**
 * The credentials of the peers: a strategy per scheme (`bearer`, `apiKey`, and the app's
 * `@A2ACredentialStrategy` providers) and, for every request, its headers with the secret resolved
 * by name at that moment (a rotated secret is used at once, and kept nowhere).
 */
import { Logger } from '@nestjs/common';
import type { DiscoveryService } from '@nestjs/core';
import type { A2AHeaderValues, A2ARequestInfo } from '../headers.js';
import {
  A2ACredentialStrategy,
  ApiKeyCredentialStrategy,
  BearerCredentialStrategy,
  CredentialNotFoundError,
  EnvCredentialResolver,
  type CredentialResolver,
  type CredentialStrategy,
  type PeerScope,
} from './credentials.js';
import type { BUILT_IN_CREDENTIAL_SCHEMES, ResolvedPeer } from './peer-options.js';

const BUILT_IN_STRATEGIES: Record<(typeof BUILT_IN_CREDENTIAL_SCHEMES)[number], CredentialStrategy> = {
  bearer: new BearerCredentialStrategy(),
  apiKey: new ApiKeyCredentialStrategy(),
};

/** Characters a header value cannot carry (a secret read from a file often ends with a newline: trimmed first). */
const HEADER_UNSAFE = /[\0-\x08\x0a-\x1f\x7f]/;

/** The credential side of `PeerToolProvider`: one per provider, asked at start-up and on every request. @internal */
export class PeerCredentials {
  private readonly logger = new Logger('A2A');
  private readonly strategies = new Map<string, CredentialStrategy>(Object.entries(BUILT_IN_STRATEGIES));

  constructor(
    private readonly resolver: CredentialResolver,
    private readonly discovery?: DiscoveryService,
  ) {}

  /**
   * Finds the custom credential strategies and checks that every peer's scheme has one: the
   * problems, for the module's start-up check to list with every other.
   */
  findStrategies(peers: readonly ResolvedPeer[]): string[] {
    const problems: string[] = [];
    for (const wrapper of this.discovery?.getProviders({ metadataKey: A2ACredentialStrategy.KEY }) ?? []) {
      const name = this.discovery!.getMetadataByDecorator(A2ACredentialStrategy, wrapper);
      const label = wrapper.metatype?.name ?? String(wrapper.token);
      if (typeof name !== 'string' || name === '') continue;
      const instance = wrapper.instance as Partial<CredentialStrategy> | undefined;
      if (!instance || typeof instance.headers !== 'function') {
        problems.push(`@A2ACredentialStrategy('${name}') ${label}: the class must implement CredentialStrategy (a headers(context) method)`);
      } else if (this.strategies.has(name)) {
        problems.push(`@A2ACredentialStrategy('${name}') ${label}: the scheme "${name}" already has a strategy`);
      } else this.strategies.set(name, instance as CredentialStrategy);
    }
    for (const [index, peer] of peers.entries()) {
      if (peer.scheme !== undefined && !this.strategies.has(peer.scheme)) {
        problems.push(
          `peers[${index}].scheme (peer "${peer.name}"): no credential strategy is named "${peer.scheme}"; use 'bearer', 'apiKey', or mark a provider @A2ACredentialStrategy('${peer.scheme}')`,
        );
      }
    }
    return problems;
  }

  /** The credential's headers for one request: resolved now, kept nowhere. */
  async headersFor(peer: ResolvedPeer, scope: PeerScope, request: A2ARequestInfo): Promise<A2AHeaderValues | undefined> {
    const { scheme, credential, name, apiKeyHeader } = peer;
    if (scheme === undefined) return undefined;
    const strategy = this.strategies.get(scheme);
    if (strategy === undefined) throw new CredentialNotFoundError(credential ?? scheme, `credential strategy "${scheme}", which is not registered`);
    return strategy.headers({
      peer: name,
      scope,
      request,
      apiKeyHeader,
      ...(credential === undefined ? {} : { credential }),
      secret: () => this.secret(peer, scope),
    });
  }

  private async secret(peer: ResolvedPeer, scope: PeerScope): Promise<string> {
    const { credential, name } = peer;
    if (credential === undefined) throw new CredentialNotFoundError('(none)', `options of peer "${name}", which name no credential`);
    const value = await this.resolver.resolve(credential, { peer: name, scope });
    const secret = typeof value === 'string' ? value.trim() : '';
    if (secret === '') throw new CredentialNotFoundError(credential, this.resolver.describe?.(credential));
    if (HEADER_UNSAFE.test(secret)) throw new CredentialNotFoundError(credential, `${this.resolver.describe?.(credential) ?? 'resolver'}, whose value holds characters a header cannot carry`);
    return secret;
  }

  /** Only the environment can be asked ahead of a call: another resolver may need a real caller. */
  warnIfMissing(peer: ResolvedPeer): void {
    const { credential, name } = peer;
    if (credential === undefined || !(this.resolver instanceof EnvCredentialResolver)) return;
    if ((this.resolver.resolve(credential) ?? '').trim() !== '') return;
    const where = this.resolver.describe?.(credential);
    this.logger.warn(`Peer "${name}": credential "${credential}" is not set${where === undefined ? '' : ` (${where})`}; calls to it fail until it is`);
  }
}
