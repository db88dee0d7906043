/** Request headers a caller adds: fixed, or computed per request (credentials resolved at call time). */
import type { A2AOperation } from '../protocol/operations.js';
import type { AgentInterface } from '../protocol/types.js';

/** What a request is about, for a {@link A2AHeadersProvider}. @publicApi */
export interface A2ARequestInfo {
  /** The A2A operation, or `AgentCard` / `Jwks` for discovery requests. */
  readonly operation: A2AOperation | 'AgentCard' | 'Jwks';
  /** The full URL about to be requested. */
  readonly url: string;
  /** The selected interface (operations only). */
  readonly interface?: AgentInterface;
  /** Which attempt this is (1 for the first; retries and stream reconnects call the provider again). */
  readonly attempt: number;
}

/**
 * Headers for one request, asked for at every attempt so credentials can be fetched or refreshed
 * when they are needed (e.g. an OAuth token). Returning nothing adds nothing.
 * @publicApi
 */
export type A2AHeadersProvider = (request: A2ARequestInfo) => A2AHeaderValues | undefined | Promise<A2AHeaderValues | undefined>;

/** Header values by name; an `undefined` value is left out. @publicApi */
/** A header name (an RFC 9110 token). */
export const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export type A2AHeaderValues = Readonly<Record<string, string | undefined>>;

/** Fixed headers or a provider. @publicApi */
export type A2AHeadersOption = A2AHeaderValues | A2AHeadersProvider;

/** Calls or copies the option; names lower-cased. */
export async function resolveHeaders(option: A2AHeadersOption | undefined, request: A2ARequestInfo): Promise<Record<string, string>> {
  const headers = typeof option === 'function' ? await option(request) : option;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) if (typeof value === 'string') out[name.toLowerCase()] = value;
  return out;
}
