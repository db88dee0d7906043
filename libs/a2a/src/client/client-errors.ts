/**
 * Errors only a client raises. Whatever the remote agent can answer surfaces as one of the
 * protocol's own classes (`protocol/errors.ts`), so a caller branches the same way whichever
 * binding was used; these cover what no agent says: time ran out, the breaker is open, the card
 * offers nothing this client speaks, an HTTP answer that is not A2A at all.
 *
 * Messages name their target through `redactUrl` (or an origin), never a URL's query or userinfo.
 */
import { A2AError, GRPC_CODES, type GrpcStatus } from '../protocol/errors.js';
import type { AgentInterface } from '../protocol/types.js';

/**
 * Base of the errors raised by the client itself (never sent on the wire).
 * @publicApi
 */
export abstract class A2AClientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * Which budget ran out: `connect` (opening the connection: DNS, TCP, TLS), `deadline` (the whole
 * call, or for a stream everything until it opened) or `idle` (a stream with no event nor
 * heartbeat for too long).
 * @publicApi
 */
export type A2ATimeoutKind = 'connect' | 'deadline' | 'idle';

const TIMEOUT_TEXT: Record<A2ATimeoutKind, (ms: number) => string> = {
  connect: (ms) => `no connection within ${ms} ms (connectTimeoutMs)`,
  deadline: (ms) => `no complete answer within ${ms} ms (timeoutMs)`,
  idle: (ms) => `the event stream sent nothing (no event, no heartbeat) for ${ms} ms (streamIdleTimeoutMs)`,
};

/**
 * A call ran out of time. A server that trickles bytes is cut by the same budgets.
 * @publicApi
 */
export class A2ATimeoutError extends A2AClientError {
  constructor(
    readonly kind: A2ATimeoutKind,
    /** The redacted target. */
    readonly target: string,
    readonly timeoutMs: number,
  ) {
    super(`${target}: ${TIMEOUT_TEXT[kind](timeoutMs)}`);
  }
}

/**
 * The circuit breaker of this origin is open: it failed repeatedly, so calls fail fast until the
 * half-open delay has passed and one trial call succeeds.
 * @publicApi
 */
export class CircuitOpenError extends A2AClientError {
  constructor(
    readonly origin: string,
    readonly halfOpenAfterMs: number,
  ) {
    super(
      `${origin}: circuit breaker open after repeated failures; calls fail fast for up to ${halfOpenAfterMs} ms, then one trial call is let through`,
    );
  }
}

/**
 * The Agent Card lists no interface this client speaks (JSON-RPC or HTTP+JSON, at A2A 1.0 or
 * 0.3), for example only gRPC, or a version it does not know.
 * @publicApi
 */
export class NoCompatibleInterfaceError extends A2AClientError {
  constructor(
    /** The redacted card URL, when the card was fetched. */
    readonly cardUrl: string | undefined,
    /** What the card offers. */
    readonly offered: readonly AgentInterface[],
    supported: readonly string[],
    readonly preferredBinding?: string,
  ) {
    const list = offered.length === 0 ? 'nothing' : offered.map((i) => `${i.protocolBinding} ${i.protocolVersion}`).join(', ');
    super(`${cardUrl ?? 'the Agent Card'}: no interface this client can use; it speaks ${supported.join(' or ')} at A2A 1.0 or 0.3, the card offers ${list}`);
  }
}

/**
 * An HTTP answer that is neither a result nor an A2A error: a redirect (never followed), a gateway
 * failure, a page that is not JSON …
 * @publicApi
 */
export class A2AHttpError extends A2AClientError {
  constructor(
    readonly statusCode: number,
    /** The redacted target. */
    readonly target: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The card names an interface at another origin than the one configured, and the client has
 * headers (credentials) for the call: they are not sent there, so the call is not made. Nothing
 * left the process. Verify the card's signature (`verify`) or allow the origin
 * (`credentialOrigins`) if that origin is really the agent's.
 * @publicApi
 */
export class CredentialsWithheldError extends A2AClientError {
  constructor(
    /** Where the card sends calls. */
    readonly origin: string,
    /** The origin the client was configured with (the card URL's). */
    readonly configuredOrigin: string,
  ) {
    super(
      `${origin}: the Agent Card of ${configuredOrigin} names an interface at another origin, and the client's headers (credentials) go only to ${configuredOrigin}: ` +
        'verify the card against its signing keys (verify) or allow that origin (credentialOrigins); nothing was sent',
    );
  }
}

/**
 * Options given to the client that cannot be used. Lists every problem at once.
 * @publicApi
 */
export class InvalidClientOptionsError extends A2AClientError {
  constructor(readonly problems: readonly string[]) {
    super(`invalid A2A client options:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** What a peer's error said on the wire, for {@link UnknownA2AError}. */
export interface WireErrorFields {
  jsonRpcCode: number;
  httpStatus: number;
  grpcStatus: GrpcStatus;
  reason?: string;
  domain?: string;
}

/** HTTP status → canonical gRPC status name, the standard `google.rpc.Code` mapping. */
export function grpcStatusOfHttp(status: number): GrpcStatus {
  switch (status) {
    case 400:
      return 'INVALID_ARGUMENT';
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 501:
      return 'UNIMPLEMENTED';
    case 503:
      return 'UNAVAILABLE';
    case 504:
      return 'DEADLINE_EXCEEDED';
    default:
      return status >= 400 && status < 500 ? 'FAILED_PRECONDITION' : 'INTERNAL';
  }
}

export function isGrpcStatus(value: unknown): value is GrpcStatus {
  return typeof value === 'string' && Object.hasOwn(GRPC_CODES, value);
}

/**
 * An A2A error answered by the peer that matches no class of the taxonomy (a JSON-RPC code or an
 * ErrorInfo reason A2A does not define). It keeps the codes the peer sent.
 * @publicApi
 */
export class UnknownA2AError extends A2AError {
  readonly jsonRpcCode: number;
  readonly httpStatus: number;
  readonly grpcStatus: GrpcStatus;
  readonly reason: string | undefined;
  override readonly domain: string;

  constructor(message: string, fields: WireErrorFields, metadata: Record<string, string> = {}) {
    super(message, metadata);
    this.jsonRpcCode = fields.jsonRpcCode;
    this.httpStatus = fields.httpStatus;
    this.grpcStatus = fields.grpcStatus;
    this.reason = fields.reason;
    this.domain = fields.domain ?? 'unknown';
  }
}
