/**
 * The `httpServer` option: timeouts of the HTTP server the module runs on (applied by
 * `HttpServerTimeouts` in `server/http/`), its defaults and its check.
 */
import { Check, IntegerOption, optionProblems } from '../config/option-validation.js';
import { isPlainObject } from '../protocol/json-value.js';

/** @publicApi */
export interface A2AHttpServerOptions {
  /** Longest time to receive a request's headers, in milliseconds (Node's `server.headersTimeout`). Default 20000. */
  headersTimeoutMs?: number;
  /**
   * Longest time to receive a whole request, headers and body, in milliseconds (Node's
   * `server.requestTimeout`). It applies to every route of the server, not only the A2A ones, and
   * never to the answer (streams stay open). Default 60000.
   */
  requestTimeoutMs?: number;
  /**
   * How long an idle keep-alive connection is kept open, in milliseconds (Node's
   * `server.keepAliveTimeout`). Unset, the server keeps its own: Node's 5 s on Express, Fastify's
   * 72 s, or whatever the app gave its adapter or server.
   */
  keepAliveTimeoutMs?: number;
}

export type ResolvedHttpServerOptions = Required<Omit<A2AHttpServerOptions, 'keepAliveTimeoutMs'>> & Pick<A2AHttpServerOptions, 'keepAliveTimeoutMs'>;

export const HTTP_SERVER_DEFAULTS: ResolvedHttpServerOptions = { headersTimeoutMs: 20_000, requestTimeoutMs: 60_000 };

class HttpServerDto {
  @IntegerOption(1, undefined, 'milliseconds') headersTimeoutMs?: unknown;
  @IntegerOption(1, undefined, 'milliseconds') requestTimeoutMs?: unknown;
  @IntegerOption(1, undefined, 'milliseconds') keepAliveTimeoutMs?: unknown;
}

/** The problems of `httpServer`, each a line about one of its properties (`.requestTimeoutMs: …`); `false` has none. */
function httpServerProblems(value: unknown): string[] {
  if (value === false) return [];
  if (!isPlainObject(value)) return ['must be an object of timeouts, or false'];
  const problems = optionProblems(HttpServerDto, value).map((line) => `.${line}`);
  const { headersTimeoutMs, requestTimeoutMs } = { ...HTTP_SERVER_DEFAULTS, ...value };
  if (problems.length === 0 && (headersTimeoutMs as number) > (requestTimeoutMs as number)) problems.push('.headersTimeoutMs: must not exceed httpServer.requestTimeoutMs');
  return problems;
}

/** The check of the `httpServer` module option: `false`, or an object of positive integers, the headers' within the request's. */
export const HttpServerOption = (): PropertyDecorator =>
  Check(
    (value) => httpServerProblems(value).length === 0,
    (value) => httpServerProblems(value).join('\n'),
  );

/** Defaults merged: `false` leaves the server as the host set it. */
export function withHttpServerDefaults(options: A2AHttpServerOptions | false | undefined): ResolvedHttpServerOptions | false {
  return options === false ? false : { ...HTTP_SERVER_DEFAULTS, ...options };
}
