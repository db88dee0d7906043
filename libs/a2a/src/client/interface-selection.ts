/**
 * Picking the interface to talk to (spec §8.3): the first entry of `supportedInterfaces` whose
 * binding and protocol version this client speaks; a preferred binding, when configured, wins over
 * earlier entries of another binding. An entry whose URL the egress policy refuses is passed over
 * for the next usable one (fallback, §5.2); if every usable entry is refused, the first refusal
 * is reported.
 *
 * The client speaks A2A 1.0 and, for the agents that have not moved yet, 0.3 (0.2 agents too:
 * 0.3 only added to 0.2's wire). A 1.0 entry always wins over a 0.3 one; 0.3 entries are used
 * when the card offers nothing at 1.0 (a pure 0.3 card, read by the card resolver, lists only
 * those), or when a 1.0 call is answered as by a 0.3 agent ({@link v03FallbackInterface}).
 */
import type { EgressPolicy } from '../net/egress-policy.js';
import { isV03Version, V03_PROTOCOL_VERSION } from '../protocol/v03/constants.js';
import { PROTOCOL_BINDINGS, PROTOCOL_VERSION, type AgentCard, type AgentInterface } from '../protocol/types.js';
import { NoCompatibleInterfaceError } from './client-errors.js';

/** The bindings this client speaks. @publicApi */
export type A2ABinding = (typeof PROTOCOL_BINDINGS)[keyof typeof PROTOCOL_BINDINGS];

export const CLIENT_BINDINGS: readonly A2ABinding[] = [PROTOCOL_BINDINGS.jsonRpc, PROTOCOL_BINDINGS.rest];

/** The protocol versions this client speaks, preferred first. @publicApi */
export type A2AWireVersion = typeof PROTOCOL_VERSION | typeof V03_PROTOCOL_VERSION;

export const CLIENT_VERSIONS: readonly A2AWireVersion[] = [PROTOCOL_VERSION, V03_PROTOCOL_VERSION];

/** @publicApi */
export interface SelectedInterface {
  /** The card's entry, as published. */
  readonly interface: AgentInterface;
  readonly binding: A2ABinding;
  /** The protocol version calls use there. */
  readonly protocolVersion: A2AWireVersion;
  /** The entry's URL, checked by the egress policy. */
  readonly url: URL;
}

/** The binding of an entry, if this client speaks it (binding names compared case-insensitively). */
export function bindingOf(entry: AgentInterface): A2ABinding | undefined {
  const name = entry.protocolBinding.trim().toUpperCase();
  return CLIENT_BINDINGS.find((b) => b === name);
}

/** The version this client speaks at an entry: `1.0`, `1.0.1` … (the patch is ignored, spec §3.6), or `0.3` for 0.3.x and 0.2.x. */
export function wireVersionOf(entry: AgentInterface): A2AWireVersion | undefined {
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(entry.protocolVersion.trim());
  if (match !== null && `${Number(match[1])}.${Number(match[2])}` === PROTOCOL_VERSION) return PROTOCOL_VERSION;
  return isV03Version(entry.protocolVersion) ? V03_PROTOCOL_VERSION : undefined;
}

/** Does this client speak the entry's version (1.0, or 0.3)? */
export function speaksVersion(entry: AgentInterface): boolean {
  return wireVersionOf(entry) !== undefined;
}

export interface SelectionOptions {
  preferredBinding?: A2ABinding;
  policy: EgressPolicy;
  /** The redacted card URL, for messages. */
  cardUrl?: string;
}

interface Usable {
  readonly entry: AgentInterface;
  readonly binding: A2ABinding;
  readonly protocolVersion: A2AWireVersion;
}

function usableEntries(card: AgentCard): Usable[] {
  return card.supportedInterfaces.flatMap((entry) => {
    const binding = bindingOf(entry);
    const protocolVersion = wireVersionOf(entry);
    return binding !== undefined && protocolVersion !== undefined ? [{ entry, binding, protocolVersion }] : [];
  });
}

/** The first entry of `ordered` the egress policy lets through; the first refusal when none. */
function firstAllowed(ordered: readonly Usable[], policy: EgressPolicy): SelectedInterface {
  let refusal: unknown;
  for (const { entry, binding, protocolVersion } of ordered) {
    try {
      return { interface: entry, binding, protocolVersion, url: policy.checkUrl(entry.url) };
    } catch (error) {
      refusal ??= error;
    }
  }
  throw refusal;
}

/**
 * @throws NoCompatibleInterfaceError when no entry has a binding and version this client speaks
 * @throws EgressRefusedError when every such entry's URL is refused
 */
export function selectInterface(card: AgentCard, options: SelectionOptions): SelectedInterface {
  const usable = usableEntries(card);
  if (usable.length === 0) throw new NoCompatibleInterfaceError(options.cardUrl, card.supportedInterfaces, CLIENT_BINDINGS, options.preferredBinding);
  const preferred = options.preferredBinding;
  // stable sorts: 1.0 before 0.3, then the preferred binding first, the card's own order otherwise
  const rank = (u: Usable) => CLIENT_VERSIONS.indexOf(u.protocolVersion) * 2 + (preferred === undefined || u.binding === preferred ? 0 : 1);
  return firstAllowed([...usable].sort((a, b) => rank(a) - rank(b)), options.policy);
}

/**
 * Where to speak 0.3 when a 1.0 call at `selected` was answered as by a 0.3 agent: the card's own
 * 0.3 entry of the same binding (at the same URL first), else any 0.3 entry, else the same entry
 * spoken at 0.3 (a 0.3 agent behind a card that only claims 1.0).
 * @throws EgressRefusedError when the card's 0.3 entries are all refused
 */
export function v03FallbackInterface(card: AgentCard, selected: SelectedInterface, policy: EgressPolicy): SelectedInterface {
  const legacy = usableEntries(card).filter((u) => u.protocolVersion === V03_PROTOCOL_VERSION);
  if (legacy.length === 0) return { ...selected, protocolVersion: V03_PROTOCOL_VERSION };
  const rank = (u: Usable) => (u.binding === selected.binding ? 0 : 2) + (u.entry.url === selected.interface.url ? 0 : 1);
  return firstAllowed([...legacy].sort((a, b) => rank(a) - rank(b)), policy);
}
