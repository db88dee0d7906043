/**
 * The module's start-up check: every configuration problem in one `A2AConfigurationError` (the
 * options, the optional packages they need, the agents and `defaultAgent`, the credential
 * strategies, the injectable clients), before anything is served.
 */
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { CheckedA2AOptions } from './a2a-options.js';
import { PeerToolProvider } from './client/peers/peer-tool-provider.js';
import { A2AConfigurationError } from './config/a2a-configuration.error.js';
import { A2A_CLIENT_NAMES, A2A_OPTION_CHECK } from './config/a2a.constants.js';
import { AgentRegistry } from './server/agent-registry.js';

@Injectable()
export class A2AStartupCheck implements OnModuleInit {
  constructor(
    @Inject(A2A_OPTION_CHECK) private readonly checked: CheckedA2AOptions,
    @Inject(A2A_CLIENT_NAMES) private readonly clientNames: readonly string[],
    @Inject(AgentRegistry) private readonly agents: AgentRegistry,
    @Inject(PeerToolProvider) private readonly peers: PeerToolProvider,
  ) {}

  /** @throws A2AConfigurationError listing every problem */
  onModuleInit(): void {
    const problems = [...this.checked.problems, ...this.agents.publish(), ...this.peers.findCredentialStrategies(), ...this.clientProblems()];
    if (problems.length > 0) throw new A2AConfigurationError(problems);
  }

  private clientProblems(): string[] {
    // with bad options no peer is set up: those are reported already
    if (this.checked.problems.length > 0) return [];
    const peers = this.checked.options.peers.map((peer) => peer.name);
    return this.clientNames
      .filter((name) => !this.peers.has(name))
      .map((name) => `clients: no peer is named ${JSON.stringify(name)} (peers: ${peers.join(', ') || 'none'}); @InjectA2AClient(name) needs a peer of that name`);
  }
}
