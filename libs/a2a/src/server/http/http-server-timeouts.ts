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
import type { ResolvedHttpServerOptions } from '../http-server-options.js';
import type { ResolvedServerOptions } from '../server-options.js';

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
    // not a bound against slow clients: the host's own (its adapter's, or Fastify's 72 s) stays unless asked
    if (settings.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = settings.keepAliveTimeoutMs;
    // read by Node when the server starts listening
    if (!server.listening) (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = checkingIntervalOf(settings);
    else this.logger.warn('The HTTP server was already listening: its timeouts are now set, but they are checked only every 30 s');
  }
}
