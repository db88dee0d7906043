/**
 * Wiring of the outbound side: the peers' options, the credential resolver (environment by
 * default, the app's own with `credentialResolver`), the tool approval (approve all by default,
 * the app's own with `toolApproval`) and the PeerToolProvider.
 */
import type { Provider, Type } from '@nestjs/common';
import type { ResolvedA2AOptions } from './config/a2a-options.js';
import { CredentialResolver, EnvCredentialResolver } from './client/peers/credentials.js';
import { A2A_PEER_OPTIONS, PeerToolProvider } from './client/peers/peer-tool-provider.js';
import type { ResolvedPeersOptions } from './client/peers/peer-options.js';
import { ApproveAllTools, ToolApproval } from './client/peers/tool-approval.js';
import { A2A_OPTIONS } from './server/a2a-options.provider.js';

export function peerProviders(overrides: { credentialResolver?: Type<CredentialResolver>; toolApproval?: Type<ToolApproval> }): Provider[] {
  return [
    { provide: A2A_PEER_OPTIONS, useFactory: (options: ResolvedA2AOptions) => options.outbound, inject: [A2A_OPTIONS] },
    overrides.credentialResolver
      ? { provide: CredentialResolver, useClass: overrides.credentialResolver }
      : { provide: CredentialResolver, useFactory: (peers: ResolvedPeersOptions) => new EnvCredentialResolver(peers.credentials.envPrefix), inject: [A2A_PEER_OPTIONS] },
    overrides.toolApproval ? { provide: ToolApproval, useClass: overrides.toolApproval } : { provide: ToolApproval, useClass: ApproveAllTools },
    PeerToolProvider,
  ];
}

/** What the module exports of the outbound side. */
export const PEER_EXPORTS = [PeerToolProvider, CredentialResolver, ToolApproval];
