/**
 * Picking the interface to talk to (spec §8.3): the first entry of `supportedInterfaces` whose
 * binding and protocol version this client speaks; a preferred binding, when configured, wins over
 * earlier entries of another binding. An entry whose URL the egress policy refuses is passed over
 * for the next usable one (fallback, §5.2); if every usable entry is refused, the first refusal
 * is reported.
 */
import type { EgressPolicy } from '../net/egress-policy.js';
import { PROTOCOL_BINDINGS, PROTOCOL_VERSION, type AgentCard, type AgentInterface } from '../protocol/types.js';
import { NoCompatibleInterfaceError } from './client-errors.js';

/** The bindings this client speaks. @publicApi */
export type A2ABinding = (typeof PROTOCOL_BINDINGS)[keyof typeof PROTOCOL_BINDINGS];

export const CLIENT_BINDINGS: readonly A2ABinding[] = [PROTOCOL_BINDINGS.jsonRpc, PROTOCOL_BINDINGS.rest];

/** @publicApi */
export interface SelectedInterface {
  /** The card's entry, as published. */
  readonly interface: AgentInterface;
  readonly binding: A2ABinding;
  /** The entry's URL, checked by the egress policy. */
  readonly url: URL;
}

/** The binding of an entry, if this client speaks it (binding names compared case-insensitively). */
export function bindingOf(entry: AgentInterface): A2ABinding | undefined {
  const name = entry.protocolBinding.trim().toUpperCase();
  return CLIENT_BINDINGS.find((b) => b === name);
}

/** `1.0`, `1.0.1` …: the patch is ignored (spec §3.6). */
export function speaksVersion(entry: AgentInterface): boolean {
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(entry.protocolVersion.trim());
  return match !== null && `${Number(match[1])}.${Number(match[2])}` === PROTOCOL_VERSION;
}

export interface SelectionOptions {
  preferredBinding?: A2ABinding;
  policy: EgressPolicy;
  /** The redacted card URL, for messages. */
  cardUrl?: string;
}

/**
 * @throws NoCompatibleInterfaceError when no entry has a binding and version this client speaks
 * @throws EgressRefusedError when every such entry's URL is refused
 */
export function selectInterface(card: AgentCard, options: SelectionOptions): SelectedInterface {
  const usable = card.supportedInterfaces.flatMap((entry) => {
    const binding = bindingOf(entry);
    return binding !== undefined && speaksVersion(entry) ? [{ entry, binding }] : [];
  });
  if (usable.length === 0) throw new NoCompatibleInterfaceError(options.cardUrl, card.supportedInterfaces, CLIENT_BINDINGS, options.preferredBinding);
  const preferred = options.preferredBinding;
  // a stable sort: the preferred binding first, the card's own order otherwise
  const ordered = preferred === undefined ? usable : [...usable.filter((u) => u.binding === preferred), ...usable.filter((u) => u.binding !== preferred)];
  let refusal: unknown;
  for (const { entry, binding } of ordered) {
    try {
      return { interface: entry, binding, url: options.policy.checkUrl(entry.url) };
    } catch (error) {
      refusal ??= error;
    }
  }
  throw refusal;
}
