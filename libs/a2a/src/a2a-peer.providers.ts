/**
 * Wiring of the outbound side: the credential resolver (environment by default, the app's own with
 * `credentialResolver`), the tool approval (approve all by default, the app's own with
 * `toolApproval`), the PeerToolProvider, and the injectable `A2AClient` of each peer named.
 */
import type { Provider, Type } from '@nestjs/common';
import { CredentialResolver, EnvCredentialResolver } from './client/peers/credentials.js';
import type { ResolvedPeersOptions } from './client/peers/peer-options.js';
import { PeerToolProvider } from './client/peers/peer-tool-provider.js';
import { ApproveAllTools, ToolApproval } from './client/peers/tool-approval.js';
import { A2A_OPTIONS, getA2AClientToken } from './config/a2a.constants.js';

export function peerProviders(overrides: { credentialResolver?: Type<CredentialResolver>; toolApproval?: Type<ToolApproval> }): Provider[] {
  return [
    overrides.credentialResolver
      ? { provide: CredentialResolver, useClass: overrides.credentialResolver }
      : { provide: CredentialResolver, useFactory: (options: ResolvedPeersOptions) => new EnvCredentialResolver(options.credentials.envPrefix), inject: [A2A_OPTIONS] },
    overrides.toolApproval ? { provide: ToolApproval, useClass: overrides.toolApproval } : { provide: ToolApproval, useClass: ApproveAllTools },
    PeerToolProvider,
  ];
}

/**
 * One `A2AClient` per peer name, injectable with `@InjectA2AClient(name)`. A name no peer has gets
 * no client; the start-up check reports it (with every other problem).
 */
export function clientProviders(names: readonly string[]): Provider[] {
  return [...new Set(names)].map((name) => ({
    provide: getA2AClientToken(name),
    useFactory: (peers: PeerToolProvider) => (peers.has(name) ? peers.clientOf(name) : undefined),
    inject: [PeerToolProvider],
  }));
}

/** What the module exports of the outbound side. */
export const PEER_EXPORTS = [PeerToolProvider, CredentialResolver, ToolApproval];
