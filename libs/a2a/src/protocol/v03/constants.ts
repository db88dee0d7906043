/** What A2A 0.3 called things that 1.0 renamed or dropped. */

/** The protocol version of the 0.3 wire, as this library writes it (cards, interfaces). */
export const V03_PROTOCOL_VERSION = '0.3';

/** Where 0.2 (and early 0.3) clients look for the card; 0.3 moved it to `/.well-known/agent-card.json`. */
export const V03_LEGACY_AGENT_CARD_PATH = '/.well-known/agent.json';

/** 0.3 activated extensions with this header (1.0: `A2A-Extensions`). */
export const V03_EXTENSIONS_HEADER = 'X-A2A-Extensions';

/** 0.3 push notifications carried the config's `token` in this header. */
export const V03_NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';

/**
 * Does an interface's (or card's) `protocolVersion` mean the 0.3 wire? 0.3.x does, and so does
 * 0.2.x: 0.3 kept 0.2's JSON-RPC methods, shapes and codes and only added to them.
 */
export function isV03Version(version: string): boolean {
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(version.trim());
  return match !== null && Number(match[1]) === 0 && (Number(match[2]) === 2 || Number(match[2]) === 3);
}
