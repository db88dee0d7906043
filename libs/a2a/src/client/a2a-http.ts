/**
 * The client's outbound HTTP: every URL checked by the egress policy, every connection opened by
 * the pinned dispatcher (which re-checks what the name resolves to), redirects returned as
 * answers and never followed, bodies read up to a cap, and every failure reported with a
 * redacted target.
 *
 * Timeouts are the call's (see `CallControl`): the dispatcher's own header and body timeouts are
 * off, because a stream may rightly stay open for hours as long as it keeps sending heartbeats.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { EgressError, EgressRequestError } from '../net/egress-errors.js';
import { EgressPolicy, egressPolicyOf, type EgressPolicyOptions } from '../net/egress-policy.js';
import { createPinnedDispatcher, type PinnedDispatcher } from '../net/pinned-dispatcher.js';
import { redactUrl } from '../net/redact-url.js';
import { InvalidAgentResponseError } from '../protocol/errors.js';
import type { CallControl } from './call-control.js';
import { A2ATimeoutError, InvalidClientOptionsError } from './client-errors.js';
import { A2ACircuitBreakers, DEFAULT_RETRY, type A2ARetryOptions, type ResolvedRetryOptions } from './resilience.js';

/** How the client reaches the network; shared by the card resolver and the transports. @publicApi */
export interface A2AHttpOptions {
  /**
   * The egress (SSRF) policy that card, JWKS and interface URLs must pass, or its options (the
   * same policy as webhooks). Default: HTTPS only, public addresses only.
   */
  egress?: EgressPolicy | EgressPolicyOptions;
  /**
   * A pinned dispatcher to share (its policy is then the one used, and `egress` and
   * `connectTimeoutMs` must not be given). The client does not close a dispatcher it was given.
   */
  dispatcher?: PinnedDispatcher;
  /** Budget for opening a connection (DNS, TCP, TLS), in milliseconds. Default 10000. */
  connectTimeoutMs?: number;
  /** Largest answer body, and largest single stream event, in bytes. Default 10 MiB. */
  maxResponseBytes?: number;
  /** Retries of the operations that are safe to repeat, or `false` for none. */
  retry?: A2ARetryOptions | false;
  /**
   * The breakers to use (one per origin), or `false` for none. Default
   * {@link A2ACircuitBreakers.shared}, shared by every client of the process.
   */
  circuitBreakers?: A2ACircuitBreakers | false;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export interface HttpRequest {
  url: URL;
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
  /** The redacted URL, for messages. */
  target: string;
}

function positive(name: string, value: number | undefined, problems: string[]): void {
  if (value !== undefined && !(Number.isFinite(value) && value > 0)) problems.push(`${name} must be a positive number (got ${String(value)})`);
}

/** Checks the network options; returns the problems found. */
export function httpOptionProblems(options: A2AHttpOptions): string[] {
  const problems: string[] = [];
  if (options.dispatcher !== undefined && (options.egress !== undefined || options.connectTimeoutMs !== undefined)) {
    problems.push('give either dispatcher or egress/connectTimeoutMs: a dispatcher carries its own policy and connect timeout');
  }
  if (options.egress !== undefined && !(options.egress instanceof EgressPolicy)) egressPolicyOf(options.egress, 'egress', problems);
  positive('connectTimeoutMs', options.connectTimeoutMs, problems);
  positive('maxResponseBytes', options.maxResponseBytes, problems);
  if (options.retry) {
    const r = options.retry;
    if (r.maxRetries !== undefined && !(Number.isInteger(r.maxRetries) && r.maxRetries >= 0 && r.maxRetries <= 10)) {
      problems.push(`retry.maxRetries must be an integer from 0 to 10 (got ${String(r.maxRetries)})`);
    }
    positive('retry.initialDelayMs', r.initialDelayMs, problems);
    positive('retry.maxDelayMs', r.maxDelayMs, problems);
    if (r.maxRetryAfterMs !== undefined && !(Number.isFinite(r.maxRetryAfterMs) && r.maxRetryAfterMs >= 0)) {
      problems.push(`retry.maxRetryAfterMs must be a number of milliseconds (got ${String(r.maxRetryAfterMs)})`);
    }
  }
  return problems;
}

/** @internal */
export class A2AHttp {
  readonly policy: EgressPolicy;
  readonly dispatcher: PinnedDispatcher;
  readonly maxResponseBytes: number;
  readonly connectTimeoutMs: number;
  readonly retry: ResolvedRetryOptions | undefined;
  readonly breakers: A2ACircuitBreakers | undefined;
  private readonly ownsDispatcher: boolean;

  /** @throws InvalidClientOptionsError */
  constructor(options: A2AHttpOptions = {}) {
    const problems = httpOptionProblems(options);
    if (problems.length > 0) throw new InvalidClientOptionsError(problems);
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    if (options.dispatcher !== undefined) {
      this.dispatcher = options.dispatcher;
      this.ownsDispatcher = false;
    } else {
      const policy = options.egress instanceof EgressPolicy ? options.egress : new EgressPolicy(options.egress);
      this.dispatcher = createClientDispatcher(policy, this.connectTimeoutMs);
      this.ownsDispatcher = true;
    }
    this.policy = this.dispatcher.policy;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.retry = options.retry === false ? undefined : { ...DEFAULT_RETRY, ...options.retry };
    this.breakers = options.circuitBreakers === false ? undefined : (options.circuitBreakers ?? A2ACircuitBreakers.shared);
  }

  /**
   * Checks `url` against the egress policy (scheme, userinfo, literal addresses, ports).
   * @throws EgressRefusedError (nothing is sent)
   */
  check(url: string | URL): URL {
    return this.policy.checkUrl(url);
  }

  /**
   * Sends one request and returns as soon as the answer's head is in: the body is the caller's to
   * read (or destroy).
   * @throws EgressRefusedError, EgressRequestError, A2ATimeoutError, or the caller's abort reason
   */
  async send(request: HttpRequest, control: CallControl): Promise<HttpResponse> {
    const target = redactUrl(request.url);
    try {
      const response = await this.dispatcher.request({
        origin: request.url.origin,
        path: `${request.url.pathname}${request.url.search}`,
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        signal: control.signal,
      });
      return { statusCode: response.statusCode, headers: response.headers, body: response.body, target };
    } catch (error) {
      throw this.failure(error, target, control);
    }
  }

  /**
   * Reads a whole body, at most `maxResponseBytes`.
   * @throws InvalidAgentResponseError when it is larger; the call's abort reason when it was cut
   */
  async readBody(response: HttpResponse, control: CallControl): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > this.maxResponseBytes) {
          response.body.destroy();
          throw new InvalidAgentResponseError(`${response.target}: the answer is larger than ${this.maxResponseBytes} bytes (maxResponseBytes)`);
        }
        chunks.push(chunk);
      }
    } catch (error) {
      if (error instanceof InvalidAgentResponseError) throw error;
      throw this.failure(error, response.target, control);
    }
    return Buffer.concat(chunks, size);
  }

  /** Normalises a failure below HTTP. */
  failure(error: unknown, target: string, control: CallControl): unknown {
    if (control.aborted) return control.failure(error);
    if (error instanceof EgressError || error instanceof A2ATimeoutError) return error;
    if ((error as { code?: unknown } | null)?.code === 'UND_ERR_CONNECT_TIMEOUT') return new A2ATimeoutError('connect', target, this.connectTimeoutMs);
    return EgressRequestError.from(target, error);
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

/**
 * The dispatcher of an A2A client: pinned to what `policy` allows, header and body timeouts off
 * (the call's own deadline and a stream's idle timer govern; see the file comment).
 */
export function createClientDispatcher(policy: EgressPolicy, connectTimeoutMs: number): PinnedDispatcher {
  return createPinnedDispatcher(policy, { connectTimeoutMs, headersTimeoutMs: 0, bodyTimeoutMs: 0 });
}

/** Lower-cased header names, values kept; `undefined` values dropped. */
export function normaliseHeaders(headers: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) out[name.toLowerCase()] = value;
  return out;
}

/** The media type of an answer, lower-cased, without parameters. */
export function mediaTypeOf(headers: IncomingHttpHeaders): string {
  const value = headers['content-type'];
  return (typeof value === 'string' ? value : '').split(';')[0].trim().toLowerCase();
}

/** Parses a JSON body; `undefined` when empty, throws InvalidAgentResponseError when not JSON. */
export function parseJson(body: Buffer, target: string): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new InvalidAgentResponseError(`${target}: the answer is not valid JSON`);
  }
}
