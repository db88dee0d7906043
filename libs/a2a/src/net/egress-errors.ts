/**
 * Errors of the outbound HTTP layer. Every message names its target through `redactUrl` (or a bare
 * hostname / address), so a message can be logged or returned to the caller who registered the URL
 * without leaking credentials, query-string values or fragments.
 */

/**
 * Why the egress policy refused a target. Address categories are named after the range that matched;
 * an IPv6 address that embeds an IPv4 one (IPv4-mapped, NAT64, 6to4, IPv4-compatible) is refused with
 * the category of the embedded address.
 * @publicApi
 */
export type EgressRefusalReason =
  /** Not a parseable absolute URL. */
  | 'invalid-url'
  /** Scheme other than https (or http when `allowHttp`). */
  | 'scheme'
  /** `user:pass@` in the URL: credentials belong in headers, never in a URL we store and dial. */
  | 'userinfo'
  /** Empty or unparseable host. */
  | 'host'
  /** Port 0, a denied port, or a port outside `allowPorts`. */
  | 'port'
  /** `allowListOnly` is set and the host is not on the allow-list. */
  | 'not-allow-listed'
  /** `checkAddress` was given something that is not an IP address. */
  | 'invalid-address'
  | 'loopback'
  /** RFC 1918 (and the deprecated IPv6 site-local fec0::/10). */
  | 'private'
  | 'link-local'
  /** IPv6 unique-local fc00::/7. */
  | 'unique-local'
  /** RFC 6598 shared address space 100.64.0.0/10. */
  | 'carrier-grade-nat'
  | 'multicast'
  | 'broadcast'
  /** 0.0.0.0/8 and `::` (Linux dials 0.0.0.0 as the local host). */
  | 'unspecified'
  /** Documentation, benchmarking, IETF/IANA special-purpose, Teredo, 240/4, anything outside 2000::/3 … */
  | 'reserved'
  /** Cloud instance-metadata endpoints (by address or by well-known name). Never bypassed by `allowPrivate`. */
  | 'metadata'
  /** The name did not resolve, resolved to nothing, or resolution timed out. */
  | 'dns';

/**
 * Base of every error thrown by `net/`.
 * @publicApi
 */
export abstract class EgressError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * The egress (SSRF) policy refused a URL, a host or an address. Thrown before any packet is sent to
 * the refused target.
 * @publicApi
 */
export class EgressRefusedError extends EgressError {
  constructor(
    /** Machine-readable category. */
    readonly reason: EgressRefusalReason,
    /** Safe to log: already redacted. */
    message: string,
    /** The refused address, when the refusal is about one (never secret). */
    readonly address?: string,
  ) {
    super(message);
  }
}

/**
 * The overall deadline of a request elapsed (connect, headers and body together).
 * @publicApi
 */
export class EgressDeadlineError extends EgressError {
  constructor(
    /** The redacted target. */
    readonly target: string,
    readonly deadlineMs: number,
  ) {
    super(`${target}: no complete answer within ${deadlineMs} ms`);
  }
}

/**
 * A permitted request failed below HTTP (connection refused or reset, TLS failure, connect timeout …).
 * `code` is the underlying error code (e.g. `ECONNREFUSED`, `UND_ERR_CONNECT_TIMEOUT`); the original
 * error is the `cause`.
 * @publicApi
 */
export class EgressRequestError extends EgressError {
  constructor(
    readonly target: string,
    readonly code: string,
    cause: unknown,
  ) {
    super(`${target}: request failed (${code})`, { cause });
  }

  /** A failure below HTTP, named by its code (`ECONNREFUSED`, `UND_ERR_SOCKET`…) or else its class. */
  static from(target: string, error: unknown): EgressRequestError {
    const code = (error as { code?: unknown } | null)?.code;
    return new EgressRequestError(target, typeof code === 'string' ? code : error instanceof Error ? error.name : 'UNKNOWN', error);
  }
}

/**
 * The options given to `EgressPolicy` are not usable. Lists every problem at once, so the module can
 * report them as one `A2AConfigurationError` at start-up.
 * @publicApi
 */
export class InvalidEgressPolicyError extends EgressError {
  constructor(readonly problems: readonly string[]) {
    super(`invalid egress policy:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}
