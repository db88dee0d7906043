/**
 * What a peer's tool throws when the call did not reach an answer. A2A errors the peer answered
 * with (TaskNotFound, ContentTypeNotSupported, Unauthenticated …) are not wrapped: they surface as
 * the protocol's own classes. Every message names URLs only redacted.
 */
import { redactUrlsIn } from '../../net/redact-url.js';

/** @publicApi */
export type PeerToolErrorCode = 'TOOL_UNAVAILABLE' | 'TOOL_TIMEOUT' | 'TOOL_NOT_GRANTED' | 'TOOL_DENIED' | 'TOOL_INVALID_INPUT';

/**
 * Base of the errors of peer tools: `code` for programs (and models), `retriable` says whether the
 * same call may succeed later.
 * @publicApi
 */
export abstract class PeerToolError extends Error {
  abstract readonly code: PeerToolErrorCode;

  constructor(
    /** The tool (`{peer}__{skill}`). */
    readonly tool: string,
    readonly peer: string,
    message: string,
    readonly retriable: boolean,
    options?: { cause?: unknown },
  ) {
    super(redactUrlsIn(`${tool}: ${message}`), options);
    this.name = new.target.name;
  }
}

/**
 * The peer could not be reached or is failing: connection refused or reset, 5xx answers, its
 * circuit breaker open, no usable interface on its card, a credential that is not set.
 * `retriable` is false when waiting will not help (a refused URL, no interface, a missing credential).
 * @publicApi
 */
export class ToolUnavailableError extends PeerToolError {
  readonly code = 'TOOL_UNAVAILABLE' as const;

  constructor(tool: string, peer: string, message: string, options: { cause?: unknown; retriable?: boolean } = {}) {
    super(tool, peer, message, options.retriable ?? true, { cause: options.cause });
  }
}

/** The call ran out of time (a slow peer, or one trickling its answer). @publicApi */
export class ToolTimeoutError extends PeerToolError {
  readonly code = 'TOOL_TIMEOUT' as const;

  constructor(
    tool: string,
    peer: string,
    readonly timeoutMs: number,
    options: { cause?: unknown } = {},
  ) {
    super(tool, peer, `the peer gave no complete answer within ${timeoutMs} ms`, true, options);
  }
}

/**
 * The tool is no longer granted: the peer's current card no longer offers the skill, the `allow`
 * patterns no longer match it, or the tool was listed for another caller.
 * @publicApi
 */
export class ToolNotGrantedError extends PeerToolError {
  readonly code = 'TOOL_NOT_GRANTED' as const;

  constructor(tool: string, peer: string, message: string) {
    super(tool, peer, message, false);
  }
}

/** The app's `ToolApproval` refused this call. @publicApi */
export class ToolApprovalDeniedError extends PeerToolError {
  readonly code = 'TOOL_DENIED' as const;

  constructor(tool: string, peer: string, reason?: string) {
    super(tool, peer, reason === undefined ? 'the call was not approved' : `the call was not approved: ${reason}`, false);
  }
}

/** The arguments do not fit the tool's input schema. @publicApi */
export class ToolInputError extends PeerToolError {
  readonly code = 'TOOL_INVALID_INPUT' as const;

  constructor(tool: string, peer: string, problem: string) {
    super(tool, peer, `invalid arguments: ${problem}`, false);
  }
}
