/**
 * The error taxonomy of A2A 1.0.1. Each class carries every binding's code for one failure, so two
 * bindings can never report the same failure differently.
 */

/** Canonical gRPC status names, as written in REST error bodies (`error.status`). */
export type GrpcStatus =
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'FAILED_PRECONDITION'
  | 'INTERNAL'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'RESOURCE_EXHAUSTED'
  | 'UNIMPLEMENTED'
  | 'UNAVAILABLE'
  | 'DEADLINE_EXCEEDED';

/** Numeric gRPC codes, for the gRPC binding and for ProtoJSON `google.rpc.Status`. */
export const GRPC_CODES: Record<GrpcStatus, number> = {
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
};

export const ERROR_DOMAIN = 'a2a-protocol.org';
/** ErrorInfo domain of this library's own reasons (authentication, limits): not A2A's to claim. */
export const LIBRARY_ERROR_DOMAIN = 'nestjs-a2a';
export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

/** A `google.rpc.BadRequest` field violation: `field` is the JSON path of the offending field. */
export interface FieldViolation {
  field: string;
  description: string;
}

/** One entry of JSON-RPC `error.data` / REST `error.details` (ProtoJSON `Any`). */
export type ErrorDetail = { '@type': string } & Record<string, unknown>;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: ErrorDetail[];
}

export interface RestErrorBody {
  error: { code: number; status: GrpcStatus; message: string; details: ErrorDetail[] };
}

interface ErrorSpec {
  jsonRpcCode: number;
  httpStatus: number;
  grpcStatus: GrpcStatus;
  /** ErrorInfo `reason`; set for the A2A-specific errors, which MUST carry an ErrorInfo. */
  reason?: string;
  /** ErrorInfo `domain`; A2A's own unless the reason is this library's. */
  domain?: string;
  defaultMessage: string;
}

/** Longest quote of a caller's value (a task id, a media type …) in an error's message or metadata. */
export const MAX_ECHO_CHARS = 128;
/** Longest message, and longest field path or description of a violation, an error carries. */
const MAX_MESSAGE_CHARS = 2048;
/** Longest ErrorInfo metadata value (a list of supported versions or extensions fits). */
const MAX_METADATA_CHARS = 1024;

/**
 * `value` as an error may quote it: at most `max` characters, cut with `…`. A request cannot make
 * an error answer larger than the limits make it (a 5 MiB task id once gave a 10 MiB answer).
 */
export function echoed(value: string, max = MAX_ECHO_CHARS): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/**
 * Base of every error this library puts on the wire. The message is always safe to show to a
 * caller: internal failures become {@link InternalError} with a fixed text.
 * @publicApi
 */
export abstract class A2AError extends Error {
  abstract readonly jsonRpcCode: number;
  abstract readonly httpStatus: number;
  abstract readonly grpcStatus: GrpcStatus;
  abstract readonly reason: string | undefined;
  readonly domain: string = ERROR_DOMAIN;

  /** ErrorInfo metadata (string values only, as `google.rpc.ErrorInfo` demands). */
  readonly metadata: Record<string, string>;
  readonly fieldViolations: FieldViolation[];

  /** Every text is bounded (see {@link echoed}), whatever the thrower quoted. */
  constructor(message: string, metadata: Record<string, string> = {}, fieldViolations: FieldViolation[] = []) {
    super(echoed(message, MAX_MESSAGE_CHARS));
    this.name = new.target.name;
    this.metadata = Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, echoed(value, MAX_METADATA_CHARS)]));
    this.fieldViolations = fieldViolations.map((v) => ({ field: echoed(v.field, MAX_MESSAGE_CHARS), description: echoed(v.description, MAX_MESSAGE_CHARS) }));
  }

  /** `@type` objects for JSON-RPC `error.data` and REST `error.details`. */
  details(): ErrorDetail[] {
    const details: ErrorDetail[] = [];
    if (this.reason) {
      const info: ErrorDetail = { '@type': ERROR_INFO_TYPE, reason: this.reason, domain: this.domain };
      if (Object.keys(this.metadata).length > 0) info.metadata = this.metadata;
      details.push(info);
    }
    if (this.fieldViolations.length > 0) details.push({ '@type': BAD_REQUEST_TYPE, fieldViolations: this.fieldViolations });
    return details;
  }

  toJsonRpc(): JsonRpcErrorObject {
    const details = this.details();
    return details.length > 0
      ? { code: this.jsonRpcCode, message: this.message, data: details }
      : { code: this.jsonRpcCode, message: this.message };
  }

  toRest(): RestErrorBody {
    return { error: { code: this.httpStatus, status: this.grpcStatus, message: this.message, details: this.details() } };
  }
}

function defineError(spec: ErrorSpec) {
  abstract class DefinedError extends A2AError {
    static readonly spec = spec;
    readonly jsonRpcCode = spec.jsonRpcCode;
    readonly httpStatus = spec.httpStatus;
    readonly grpcStatus = spec.grpcStatus;
    readonly reason = spec.reason;
    override readonly domain = spec.domain ?? ERROR_DOMAIN;
    constructor(message: string = spec.defaultMessage, metadata: Record<string, string> = {}) {
      super(message, metadata);
    }
  }
  return DefinedError;
}

// ---- A2A-specific errors (spec §5.4, 1.0.1 columns) ----

/** The task does not exist, has expired, or is not visible to the caller. @publicApi */
export class TaskNotFoundError extends defineError({
  jsonRpcCode: -32001,
  httpStatus: 404,
  grpcStatus: 'NOT_FOUND',
  reason: 'TASK_NOT_FOUND',
  defaultMessage: 'Task not found',
}) {}

/** @publicApi */
export class TaskNotCancelableError extends defineError({
  jsonRpcCode: -32002,
  httpStatus: 400,
  grpcStatus: 'FAILED_PRECONDITION',
  reason: 'TASK_NOT_CANCELABLE',
  defaultMessage: 'Task cannot be canceled',
}) {}

/** @publicApi */
export class PushNotificationNotSupportedError extends defineError({
  jsonRpcCode: -32003,
  httpStatus: 400,
  grpcStatus: 'FAILED_PRECONDITION',
  reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  defaultMessage: 'Push notifications are not supported by this agent',
}) {}

/** @publicApi */
export class UnsupportedOperationError extends defineError({
  jsonRpcCode: -32004,
  httpStatus: 400,
  grpcStatus: 'FAILED_PRECONDITION',
  reason: 'UNSUPPORTED_OPERATION',
  defaultMessage: 'This operation is not supported',
}) {}

/** @publicApi */
export class ContentTypeNotSupportedError extends defineError({
  jsonRpcCode: -32005,
  httpStatus: 400,
  grpcStatus: 'INVALID_ARGUMENT',
  reason: 'CONTENT_TYPE_NOT_SUPPORTED',
  defaultMessage: 'Incompatible content types',
}) {}

/** @publicApi */
export class InvalidAgentResponseError extends defineError({
  jsonRpcCode: -32006,
  httpStatus: 500,
  grpcStatus: 'INTERNAL',
  reason: 'INVALID_AGENT_RESPONSE',
  defaultMessage: 'Invalid agent response',
}) {}

/** @publicApi */
export class ExtendedAgentCardNotConfiguredError extends defineError({
  jsonRpcCode: -32007,
  httpStatus: 400,
  grpcStatus: 'FAILED_PRECONDITION',
  reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  defaultMessage: 'The extended agent card is not configured',
}) {}

/** @publicApi */
export class ExtensionSupportRequiredError extends defineError({
  jsonRpcCode: -32008,
  httpStatus: 400,
  grpcStatus: 'FAILED_PRECONDITION',
  reason: 'EXTENSION_SUPPORT_REQUIRED',
  defaultMessage: 'A required extension was not requested',
}) {}

/** @publicApi */
export class VersionNotSupportedError extends defineError({
  jsonRpcCode: -32009,
  httpStatus: 400,
  grpcStatus: 'FAILED_PRECONDITION',
  reason: 'VERSION_NOT_SUPPORTED',
  defaultMessage: 'The requested A2A protocol version is not supported',
}) {}

// ---- Generic errors (JSON-RPC §9.5 and the generic categories of §3.3.2) ----

/** The body is not valid JSON (or not valid UTF-8). @publicApi */
export class JsonParseError extends defineError({
  jsonRpcCode: -32700,
  httpStatus: 400,
  grpcStatus: 'INVALID_ARGUMENT',
  defaultMessage: 'Invalid JSON payload',
}) {}

/** Not a valid JSON-RPC request object, or a request the binding cannot take. @publicApi */
export class InvalidRequestError extends defineError({
  jsonRpcCode: -32600,
  httpStatus: 400,
  grpcStatus: 'INVALID_ARGUMENT',
  defaultMessage: 'Request payload validation error',
}) {}

/**
 * The request's own Content-Type is not one the binding takes: ContentTypeNotSupported (its code
 * and reason, as a2a-js and the TCK read it) answered with HTTP 415.
 * @publicApi
 */
export class UnsupportedMediaTypeError extends ContentTypeNotSupportedError {
  override readonly httpStatus: number = 415;
  constructor(message = 'Unsupported Content-Type') {
    super(message);
  }
}

/** The body is larger than the configured limit. @publicApi */
export class PayloadTooLargeError extends defineError({
  jsonRpcCode: -32600,
  httpStatus: 413,
  grpcStatus: 'INVALID_ARGUMENT',
  defaultMessage: 'Request payload too large',
}) {}

/** Unknown JSON-RPC method or REST route. @publicApi */
export class MethodNotFoundError extends defineError({
  jsonRpcCode: -32601,
  httpStatus: 404,
  grpcStatus: 'NOT_FOUND',
  defaultMessage: 'Method not found',
}) {}

/** No published agent has the name in the request path. @publicApi */
export class AgentNotFoundError extends defineError({
  jsonRpcCode: -32601,
  httpStatus: 404,
  grpcStatus: 'NOT_FOUND',
  defaultMessage: 'No such agent',
}) {}

/** A known REST path asked with the wrong HTTP method. @publicApi */
export class MethodNotAllowedError extends defineError({
  jsonRpcCode: -32601,
  httpStatus: 405,
  grpcStatus: 'UNIMPLEMENTED',
  defaultMessage: 'Method not allowed',
}) {}

/*
 * Authentication, authorization and limits have no A2A code ("custom error", spec §3.3.2): they
 * share -32000, the one server-error code A2A leaves free, and are told apart by the HTTP status
 * (JSON-RPC answers them with it) and by their ErrorInfo reason in this library's domain.
 */

/** A limit of this server was reached (open streams, rate). @publicApi */
export class ResourceExhaustedError extends defineError({
  jsonRpcCode: -32000,
  httpStatus: 429,
  grpcStatus: 'RESOURCE_EXHAUSTED',
  reason: 'RESOURCE_EXHAUSTED',
  domain: LIBRARY_ERROR_DOMAIN,
  defaultMessage: 'Too many requests',
}) {}

/** Missing or invalid credentials (HTTP 401, with `WWW-Authenticate`). @publicApi */
export class UnauthenticatedError extends defineError({
  jsonRpcCode: -32000,
  httpStatus: 401,
  grpcStatus: 'UNAUTHENTICATED',
  reason: 'UNAUTHENTICATED',
  domain: LIBRARY_ERROR_DOMAIN,
  defaultMessage: 'Authentication required: the credentials are missing or invalid',
}) {}

/** Authenticated, but not allowed (HTTP 403). @publicApi */
export class PermissionDeniedError extends defineError({
  jsonRpcCode: -32000,
  httpStatus: 403,
  grpcStatus: 'PERMISSION_DENIED',
  reason: 'PERMISSION_DENIED',
  domain: LIBRARY_ERROR_DOMAIN,
  defaultMessage: 'The caller is not allowed to do this',
}) {}

/** A backing service (Redis) is unreachable for now: retry later. @publicApi */
export class UnavailableError extends defineError({
  jsonRpcCode: -32603,
  httpStatus: 503,
  grpcStatus: 'UNAVAILABLE',
  reason: 'UNAVAILABLE',
  domain: LIBRARY_ERROR_DOMAIN,
  defaultMessage: 'The service is temporarily unavailable; retry later',
}) {}

/** An unexpected failure. Its message is fixed, so nothing internal reaches the wire. @publicApi */
export class InternalError extends defineError({
  jsonRpcCode: -32603,
  httpStatus: 500,
  grpcStatus: 'INTERNAL',
  defaultMessage: 'Internal error',
}) {}

/** Params that fail validation; each violation names the offending field. @publicApi */
export class InvalidParamsError extends A2AError {
  readonly jsonRpcCode = -32602;
  readonly httpStatus = 400;
  readonly grpcStatus = 'INVALID_ARGUMENT' as const;
  readonly reason = undefined;
  constructor(violations: FieldViolation[], message = 'Invalid parameters') {
    super(violations.length > 0 ? `${message}: ${violations.map((v) => `${v.field}: ${v.description}`).join('; ')}` : message, {}, violations);
  }

  /** One violation of one field. */
  static field(field: string, description: string): InvalidParamsError {
    return new InvalidParamsError([{ field, description }]);
  }

  /** The first `limit` violations as `<field> <description>`, joined by `; `: for messages about what a peer sent. */
  violationsText(limit = Number.POSITIVE_INFINITY): string {
    return this.fieldViolations
      .slice(0, limit)
      .map((v) => `${v.field} ${v.description}`)
      .join('; ');
  }
}

/** Every A2A-specific error class, for mapping a wire error back to its class. */
export const A2A_ERROR_CLASSES = [
  TaskNotFoundError,
  TaskNotCancelableError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
  ContentTypeNotSupportedError,
  InvalidAgentResponseError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  VersionNotSupportedError,
] as const;

/** Anything thrown → an error safe for the wire. Non-A2A errors become a plain InternalError. */
export function toA2AError(error: unknown): A2AError {
  return error instanceof A2AError ? error : new InternalError();
}
