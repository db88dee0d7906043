/** `@A2AAgent({...})`: publishes a provider implementing AgentExecutor as an A2A agent. */
import { DiscoveryService } from '@nestjs/core';
import type { AgentExtension, AgentProvider, AgentSkill } from '../protocol/types.js';
import type { A2ACaller } from '../tasks/agent-executor.js';

/** What an agent declares about itself: exactly what its card publishes, nothing more. @publicApi */
export interface A2AAgentOptions {
  /** URL-safe name: the agent's path segment (`/agents/{name}/…`) and, unless `displayName` is set, its card name. */
  name: string;
  /** The card's human-readable name. Default: `name`. */
  displayName?: string;
  description: string;
  skills: AgentSkill[];
  /** Media types the agent takes. Default `['text/plain']`. */
  defaultInputModes?: string[];
  /** Media types the agent produces. Default `['text/plain']`. */
  defaultOutputModes?: string[];
  /** The agent's own version; default: the module's `card.version`. */
  version?: string;
  provider?: AgentProvider;
  documentationUrl?: string;
  iconUrl?: string;
  /** Extensions the agent supports; `required: true` ones must be requested by every client. */
  extensions?: AgentExtension[];
  /**
   * The extended Agent Card (GetExtendedAgentCard), for authenticated callers only: fields that
   * replace the public card's. For a card that depends on the caller, implement
   * {@link ExtendedAgentCardProvider} on the agent instead.
   */
  extendedCard?: ExtendedCardFields;
}

/** What an extended card may say differently from the public one. @publicApi */
export type ExtendedCardFields = Partial<
  Pick<A2AAgentOptions, 'description' | 'skills' | 'defaultInputModes' | 'defaultOutputModes' | 'version' | 'provider' | 'documentationUrl' | 'iconUrl'>
>;

/**
 * Implemented by an agent whose extended card depends on who asks. Returning undefined means "no
 * extended card for this caller" (ExtendedAgentCardNotConfigured).
 * @publicApi
 */
export interface ExtendedAgentCardProvider {
  extendedAgentCard(caller: A2ACaller): ExtendedCardFields | undefined | Promise<ExtendedCardFields | undefined>;
}

/**
 * Marks an `AgentExecutor` provider as a published A2A agent.
 * @publicApi
 */
export const A2AAgent = DiscoveryService.createDecorator<A2AAgentOptions>();
