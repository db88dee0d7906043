/** Finds the `@A2AAgent` providers at start-up and checks them, every problem at once. */
import { Inject, Injectable } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { agentCardViolations, type AgentCardFields } from '../protocol/agent-card.js';
import { AgentNotFoundError } from '../protocol/errors.js';
import type { AgentExtension } from '../protocol/types.js';
import type { A2ACaller, AgentExecutor } from '../tasks/agent-executor.js';
import { InjectA2AOptions } from '../config/a2a.constants.js';
import { A2AAgent, type A2AAgentOptions, type ExtendedAgentCardProvider, type ExtendedCardFields } from './a2a-agent.decorator.js';
import type { ResolvedServerOptions } from './server-options.js';

/** A published agent: its executor and what its card says. */
export interface PublishedAgent {
  readonly name: string;
  readonly executor: AgentExecutor;
  readonly card: AgentCardFields;
  readonly extensions: readonly AgentExtension[];
  /** Every media type the agent takes (card defaults and skills). */
  readonly inputModes: readonly string[];
  /** The extended card's fields for a caller, when the agent has one. */
  readonly extendedCard?: (caller: A2ACaller) => Promise<ExtendedCardFields | undefined>;
}

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

@Injectable()
export class AgentRegistry {
  private readonly agents = new Map<string, PublishedAgent>();
  private defaultName = '';
  private published?: string[];

  constructor(
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @InjectA2AOptions() private readonly options: ResolvedServerOptions,
  ) {}

  /**
   * Publishes the app's agents (once): the problems with them and with `defaultAgent`, for the
   * module's start-up check to list with every other.
   */
  publish(): string[] {
    if (this.published) return this.published;
    const problems: string[] = [];
    for (const wrapper of this.discovery.getProviders({ metadataKey: A2AAgent.KEY })) {
      const declared = this.discovery.getMetadataByDecorator(A2AAgent, wrapper);
      const label = wrapper.metatype?.name ?? String(wrapper.token);
      if (!declared) continue;
      const instance = wrapper.instance as Partial<AgentExecutor> | undefined;
      if (!instance || typeof instance.execute !== 'function') {
        problems.push(`@A2AAgent ${label}: the class must implement AgentExecutor (an execute(ctx) method)`);
        continue;
      }
      if (!wrapper.isDependencyTreeStatic()) {
        problems.push(`@A2AAgent ${label}: agents must be singletons (no REQUEST or TRANSIENT scope)`);
        continue;
      }
      const agent = this.publishedAgent(declared, instance as AgentExecutor, label, problems);
      if (agent) this.agents.set(agent.name, agent);
    }
    if (this.agents.size === 0) {
      problems.push('no agent is published: add a provider marked @A2AAgent({ name, description, skills }) implementing AgentExecutor');
    }
    this.defaultName = this.chooseDefault(problems);
    this.published = problems;
    return problems;
  }

  /** The agent at a per-agent path, or the default agent when `name` is undefined. */
  resolve(name: string | undefined): PublishedAgent {
    const agent = this.agents.get(name ?? this.defaultName);
    if (!agent) throw new AgentNotFoundError(`No agent named ${JSON.stringify(String(name).slice(0, 64))}`);
    return agent;
  }

  get defaultAgent(): PublishedAgent {
    return this.resolve(undefined);
  }

  all(): PublishedAgent[] {
    return [...this.agents.values()];
  }

  private publishedAgent(declared: A2AAgentOptions, executor: AgentExecutor, label: string, problems: string[]): PublishedAgent | undefined {
    const before = problems.length;
    if (typeof declared.name !== 'string' || !NAME_PATTERN.test(declared.name)) {
      problems.push(`@A2AAgent ${label}: name must be 1-63 letters, digits, '.', '_' or '-' (it is a URL path segment)`);
    } else if (this.agents.has(declared.name)) {
      problems.push(`@A2AAgent ${label}: another agent is already named "${declared.name}"`);
    }
    if (!Array.isArray(declared.skills)) problems.push(`@A2AAgent ${label}: skills must be an array`);
    if (problems.length > before) return undefined;
    const card: AgentCardFields = {
      name: declared.displayName ?? declared.name,
      description: declared.description,
      version: declared.version ?? this.options.card.version,
      provider: declared.provider ?? this.options.card.provider,
      documentationUrl: declared.documentationUrl ?? this.options.card.documentationUrl,
      iconUrl: declared.iconUrl ?? this.options.card.iconUrl,
      skills: declared.skills,
      defaultInputModes: declared.defaultInputModes ?? ['text/plain'],
      defaultOutputModes: declared.defaultOutputModes ?? ['text/plain'],
      extensions: declared.extensions,
    };
    const violations = agentCardViolations(card, {
      interfaces: [{ url: 'http://127.0.0.1/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
    });
    if (violations.length > 0) {
      problems.push(...violations.map((v) => `@A2AAgent ${label}: card field ${v.field} ${v.description}`));
      return undefined;
    }
    const inputModes = [...card.defaultInputModes, ...declared.skills.flatMap((s) => s.inputModes ?? [])];
    const provider = executor as Partial<ExtendedAgentCardProvider>;
    const extendedCard =
      typeof provider.extendedAgentCard === 'function'
        ? async (caller: A2ACaller) => provider.extendedAgentCard!(caller)
        : declared.extendedCard
          ? async () => declared.extendedCard
          : undefined;
    return { name: declared.name, executor, card, extensions: declared.extensions ?? [], inputModes, extendedCard };
  }

  private chooseDefault(problems: string[]): string {
    const wanted = this.options.defaultAgent;
    if (wanted !== undefined) {
      if (!this.agents.has(wanted)) problems.push(`defaultAgent: no agent is named "${wanted}" (published: ${[...this.agents.keys()].join(', ') || 'none'})`);
      return wanted;
    }
    if (this.agents.size > 1) {
      problems.push(`defaultAgent: ${this.agents.size} agents are published (${[...this.agents.keys()].join(', ')}); name the one served at the root paths`);
    }
    return this.agents.keys().next().value ?? '';
  }
}
