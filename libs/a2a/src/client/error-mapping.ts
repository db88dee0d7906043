/**
 * Wire errors → the protocol's typed errors, for both bindings (spec §3, §9.5, §11.6).
 *
 * Order of evidence, as the digest recommends: HTTP 401/403 first (authentication happens below
 * A2A), then the ErrorInfo `reason` (several A2A errors share one HTTP status), then the JSON-RPC
 * code or the HTTP status. The peer's message is kept; `data`/`details` are read leniently (array,
 * 0.3-style object, or absent).
 *
 * @internal
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  A2A_ERROR_CLASSES,
  A2AError,
  ERROR_DOMAIN,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  JsonParseError,
  MethodNotAllowedError,
  MethodNotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  ResourceExhaustedError,
  UnauthenticatedError,
  UnavailableError,
  UnsupportedMediaTypeError,
  type FieldViolation,
} from '../protocol/errors.js';
import { redactUrl } from '../net/redact-url.js';
import { retryAfterMs } from '../net/retry-after.js';
import { isPlainObject } from '../protocol/json-value.js';
import { A2AHttpError, UnknownA2AError, grpcStatusOfHttp, isGrpcStatus } from './client-errors.js';

/** What the HTTP exchange said besides the body. */
export interface HttpFacts {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  /** The redacted target, for messages. */
  readonly target: string;
}

/** Facts kept about an error that came from an answer: the retry and breaker policies read them. */
export interface ErrorFacts {
  readonly statusCode: number;
  /** `Retry-After` in milliseconds, when the answer carried one. */
  readonly retryAfterMs?: number;
}

const FACTS = new WeakMap<object, ErrorFacts>();

/** What is known of the HTTP answer that produced `error`, if it came from one. */
export function errorFacts(error: unknown): ErrorFacts | undefined {
  return typeof error === 'object' && error !== null ? FACTS.get(error) : undefined;
}

/** The HTTP status of the answer that produced `error`, if it came from one. */
export function statusOf(error: unknown): number | undefined {
  if (error instanceof A2AHttpError) return error.statusCode;
  return errorFacts(error)?.statusCode;
}

function remember<E extends Error>(error: E, facts: HttpFacts): E {
  FACTS.set(error, { statusCode: facts.statusCode, retryAfterMs: retryAfterMs(facts.headers['retry-after']) });
  return error;
}

type ErrorClass = new (message?: string, metadata?: Record<string, string>) => A2AError;

const BY_CODE = new Map<number, ErrorClass>(A2A_ERROR_CLASSES.map((c) => [c.spec.jsonRpcCode, c]));
const BY_REASON = new Map<string, ErrorClass>(A2A_ERROR_CLASSES.map((c) => [c.spec.reason as string, c]));
/** Reasons of this library's own domain (authentication, limits, availability). */
const LIBRARY_REASONS = new Map<string, ErrorClass>([
  ['UNAUTHENTICATED', UnauthenticatedError],
  ['PERMISSION_DENIED', PermissionDeniedError],
  ['RESOURCE_EXHAUSTED', ResourceExhaustedError],
  ['UNAVAILABLE', UnavailableError],
]);
const GENERIC_CODES = new Map<number, ErrorClass>([
  [-32700, JsonParseError],
  [-32600, InvalidRequestError],
  [-32601, MethodNotFoundError],
  [-32603, InternalError],
]);
const BY_HTTP_STATUS = new Map<number, ErrorClass>([
  [404, MethodNotFoundError],
  [405, MethodNotAllowedError],
  [413, PayloadTooLargeError],
  [429, ResourceExhaustedError],
  [500, InternalError],
  [503, UnavailableError],
]);

const MAX_MESSAGE = 2000;

function messageOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value.slice(0, MAX_MESSAGE) : undefined;
}

interface Details {
  reason?: string;
  domain?: string;
  metadata: Record<string, string>;
  violations: FieldViolation[];
}

/** Reads `data` / `details`: an array of `@type` objects (1.0), a 0.3 free-form object, or anything else. */
function readDetails(raw: unknown): Details {
  const out: Details = { metadata: {}, violations: [] };
  const entries = Array.isArray(raw) ? raw : isPlainObject(raw) ? [raw] : [];
  for (const entry of entries) {
    if (!isPlainObject(entry)) continue;
    const type = typeof entry['@type'] === 'string' ? entry['@type'] : '';
    if (out.reason === undefined && typeof entry.reason === 'string' && (type === '' || type.endsWith('google.rpc.ErrorInfo'))) {
      out.reason = entry.reason;
      out.domain = typeof entry.domain === 'string' ? entry.domain : undefined;
      if (isPlainObject(entry.metadata)) {
        for (const [k, v] of Object.entries(entry.metadata)) if (typeof v === 'string') out.metadata[k] = v;
      }
    }
    if (Array.isArray(entry.fieldViolations)) {
      for (const v of entry.fieldViolations) {
        if (isPlainObject(v) && typeof v.field === 'string') out.violations.push({ field: v.field, description: typeof v.description === 'string' ? v.description : '' });
      }
    }
  }
  return out;
}

function byReason(details: Details): ErrorClass | undefined {
  if (details.reason === undefined) return undefined;
  // A2A's reasons belong to its domain; a peer that leaves the domain out is still understood
  if (details.domain === undefined || details.domain === ERROR_DOMAIN) {
    const a2a = BY_REASON.get(details.reason);
    if (a2a) return a2a;
  }
  return LIBRARY_REASONS.get(details.reason);
}

function build(cls: ErrorClass, message: string | undefined, details: Details): A2AError {
  const error = new cls(message, details.metadata);
  return error;
}

function invalidParams(message: string | undefined, details: Details): InvalidParamsError {
  const error = new InvalidParamsError(details.violations);
  // keep the peer's own words; the violations stay available as fieldViolations
  if (message !== undefined) error.message = message;
  return error;
}

/** 401/403 always mean authentication/authorization, whatever the body says. */
function authError(facts: HttpFacts, message: string | undefined, details: Details): A2AError | undefined {
  if (facts.statusCode !== 401 && facts.statusCode !== 403) return undefined;
  const metadata = { ...details.metadata };
  const challenge = facts.headers['www-authenticate'];
  if (challenge !== undefined) metadata.wwwAuthenticate = Array.isArray(challenge) ? challenge.join(', ') : challenge;
  const cls = facts.statusCode === 401 ? UnauthenticatedError : PermissionDeniedError;
  return new cls(message ?? `${facts.target}: HTTP ${facts.statusCode}`, metadata);
}

/**
 * A JSON-RPC `error` object → its typed error.
 * @param error the `error` member of a JSON-RPC response (anything: it is read leniently)
 */
export function errorFromJsonRpc(error: unknown, facts: HttpFacts): A2AError {
  const object = isPlainObject(error) ? error : {};
  const message = messageOf(object.message);
  const details = readDetails(object.data);
  const code = typeof object.code === 'number' && Number.isInteger(object.code) ? object.code : undefined;
  const auth = authError(facts, message, details);
  if (auth) return remember(auth, facts);
  const cls = byReason(details) ?? (code === undefined ? undefined : (BY_CODE.get(code) ?? GENERIC_CODES.get(code)));
  if (cls) return remember(build(cls, message, details), facts);
  if (code === -32602) return remember(invalidParams(message, details), facts);
  // -32000 (authentication, limits) and unknown codes: the HTTP status may still tell
  const byStatus = facts.statusCode >= 400 ? BY_HTTP_STATUS.get(facts.statusCode) : undefined;
  if (byStatus && code === -32000) return remember(build(byStatus, message, details), facts);
  return remember(
    new UnknownA2AError(
      message ?? `${facts.target}: JSON-RPC error ${code ?? '(no code)'}`,
      {
        jsonRpcCode: code ?? -32603,
        httpStatus: facts.statusCode >= 400 ? facts.statusCode : 500,
        grpcStatus: facts.statusCode >= 400 ? grpcStatusOfHttp(facts.statusCode) : 'INTERNAL',
        reason: details.reason,
        domain: details.domain,
      },
      details.metadata,
    ),
    facts,
  );
}

/**
 * A REST error body (`{"error":{code,status,message,details}}`, spec §11.6) → its typed error.
 * @returns undefined when `body` is not such a body
 */
export function errorFromRest(body: unknown, facts: HttpFacts): A2AError | undefined {
  if (!isPlainObject(body) || !isPlainObject(body.error)) return undefined;
  const error = body.error;
  const message = messageOf(error.message);
  const details = readDetails(error.details);
  const auth = authError(facts, message, details);
  if (auth) return remember(auth, facts);
  const cls = byReason(details);
  if (cls) return remember(build(cls, message, details), facts);
  const status = facts.statusCode >= 400 ? facts.statusCode : typeof error.code === 'number' ? error.code : 500;
  const grpcStatus = isGrpcStatus(error.status) ? error.status : grpcStatusOfHttp(status);
  if (status === 400 && grpcStatus === 'INVALID_ARGUMENT') return remember(invalidParams(message, details), facts);
  if (status === 415) return remember(new UnsupportedMediaTypeError(message), facts);
  const byStatus = BY_HTTP_STATUS.get(status);
  if (byStatus) return remember(build(byStatus, message, details), facts);
  return remember(
    new UnknownA2AError(
      message ?? `${facts.target}: HTTP ${status}`,
      { jsonRpcCode: -32603, httpStatus: status, grpcStatus, reason: details.reason, domain: details.domain },
      details.metadata,
    ),
    facts,
  );
}

/**
 * An HTTP failure without an A2A error body: 401/403 are still typed; anything else (a redirect,
 * a gateway error, an HTML page) is an {@link A2AHttpError}.
 */
export function errorFromStatus(facts: HttpFacts, what = 'answered'): Error {
  const auth = authError(facts, undefined, { metadata: {}, violations: [] });
  if (auth) return remember(auth, facts);
  const { statusCode, target } = facts;
  if (statusCode >= 300 && statusCode < 400) {
    const location = facts.headers.location;
    // an absolute Location is shown redacted; a relative one says nothing worth the risk
    const note = typeof location !== 'string' ? '' : URL.canParse(location) ? ` to ${redactUrl(location)}` : ' to a relative location';
    return remember(new A2AHttpError(statusCode, target, `${target}: ${what} with a redirect, HTTP ${statusCode}${note}; redirects are not followed`), facts);
  }
  return remember(new A2AHttpError(statusCode, target, `${target}: ${what} HTTP ${statusCode} without an A2A error`), facts);
}

/**
 * An error answer's body (REST error JSON, or anything else) → its typed error: the A2A error it
 * carries, or else one from its HTTP status (`what` as in errorFromStatus).
 */
export function errorFromAnswer(body: Buffer, facts: HttpFacts, what?: string): Error {
  let json: unknown;
  try {
    json = body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined;
  } catch {
    json = undefined;
  }
  return errorFromRest(json, facts) ?? errorFromStatus(facts, what);
}

/** The facts of an HTTP answer, without its body. */
export function factsOf(response: { statusCode: number; headers: IncomingHttpHeaders; target: string }): HttpFacts {
  return { statusCode: response.statusCode, headers: response.headers, target: response.target };
}
