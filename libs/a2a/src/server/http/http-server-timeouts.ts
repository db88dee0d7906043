/**
 * Timeouts of the HTTP server the module runs on, so a client that trickles its headers or its body
 * (slowloris) is cut instead of holding a connection for minutes. Node's defaults are 60 s for
 * the headers and 300 s for the whole request, checked only every 30 s; Fastify turns the request
 * timeout off. Node applies `requestTimeout` to receiving a request, never to the answer: an SSE
 * stream whose request has arrived stays open for as long as it runs.
 */
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import { InjectA2AOptions } from '../../config/a2a.constants.js';
import { Check, IntegerOption, optionProblems } from '../../config/option-validation.js';
import { isPlainObject } from '../../protocol/json-value.js';
import type { ResolvedServerOptions } from '../server-options.js';

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
  /** How long an idle keep-alive connection is kept open, in milliseconds (Node's `server.keepAliveTimeout`). Default 5000. */
  keepAliveTimeoutMs?: number;
}

export type ResolvedHttpServerOptions = Required<A2AHttpServerOptions>;

export const HTTP_SERVER_DEFAULTS: ResolvedHttpServerOptions = { headersTimeoutMs: 20_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000 };

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

/**
 * How often Node looks for connections past their timeout: a cut comes at most this late. Node's
 * 30 s would let a trickling client stay half a minute past its deadline.
 */
export function checkingIntervalOf(options: ResolvedHttpServerOptions): number {
  return Math.max(100, Math.min(1000, Math.floor(options.headersTimeoutMs / 4)));
}

@Injectable()
export class HttpServerTimeouts implements OnApplicationBootstrap {
  private readonly logger = new Logger('A2A');

  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @InjectA2AOptions() private readonly options: ResolvedServerOptions,
  ) {}

  /** Runs before the app listens (Nest calls it from `init()`), when the checking interval can still be set. */
  onApplicationBootstrap(): void {
    const settings = this.options.httpServer;
    const server = this.adapterHost.httpAdapter?.getHttpServer?.() as Server | undefined;
    if (settings === false || !server || typeof server.headersTimeout !== 'number') return;
    server.headersTimeout = settings.headersTimeoutMs;
    server.requestTimeout = settings.requestTimeoutMs;
    server.keepAliveTimeout = settings.keepAliveTimeoutMs;
    // read by Node when the server starts listening
    if (!server.listening) (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = checkingIntervalOf(settings);
    else this.logger.warn('The HTTP server was already listening: its timeouts are now set, but they are checked only every 30 s');
  }
}
