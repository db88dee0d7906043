/**
 * What both HTTP bindings share: version and extension negotiation, the caller, dispatch to the
 * request handler, JSON answers and SSE streams, and the one place an error becomes an answer. A
 * binding only says how its bodies look. Bindings see node's request and response and what the
 * router found ({@link RoutedRequest}), never a platform's own objects.
 */
import { Inject, Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InjectA2AOptions } from '../../config/a2a.constants.js';
import { A2AError, InternalError, UnauthenticatedError, toA2AError } from '../../protocol/errors.js';
import { responseMediaType } from '../../protocol/json-body.js';
import { OPERATIONS, type A2AOperation } from '../../protocol/operations.js';
import { EXTENSIONS_HEADER, VERSION_HEADER, activateExtensions, negotiateVersion, parseExtensionsHeader } from '../../protocol/service-params.js';
import { formatSseEvent, parseLastEventId } from '../../protocol/sse.js';
import { PROTOCOL_VERSION } from '../../protocol/types.js';
import { inboundContext } from '../../telemetry/telemetry-api.js';
import { A2ARequestHandler, type A2ACall, type StreamEvent } from '../a2a-request-handler.js';
import type { PublishedAgent } from '../agent-registry.js';
import { A2ACallerResolver } from '../caller-resolver.js';
import { SecurityInventory } from '../security/security-inventory.js';
import type { ResolvedServerOptions } from '../server-options.js';
import { fromHostException } from './host-errors.js';
import { SseStreams, type SseStream } from './sse-streams.js';

/**
 * Headers on every A2A answer, errors and streams included: `nosniff`, so no browser reads an
 * answer that echoes a caller's text as anything but the type it is sent as.
 */
export const A2A_ANSWER_HEADERS: Readonly<Record<string, string>> = { 'X-Content-Type-Options': 'nosniff' };

/** A request as a binding sees it: node's message, and what the platform's router found. */
export interface RoutedRequest {
  /** The request as the platform gives it, where the host's guards put `user`: for the caller resolver. */
  readonly request: unknown;
  readonly raw: IncomingMessage;
  /** The `:agent` of a per-agent path; undefined at the root paths. */
  readonly agent?: string;
  /** The parsed query string. */
  readonly query: Readonly<Record<string, unknown>>;
}

/** How one binding shapes its bodies. */
export interface WireFormat {
  /** Body of a successful unary answer. */
  result(result: unknown): unknown;
  /** Body of an error answer, and data of an `event: error` in a stream. */
  error(error: A2AError): unknown;
  /** HTTP status of an error answer. */
  errorStatus(error: A2AError): number;
  /** Data of one SSE event. */
  event(event: StreamEvent): unknown;
}

/** One request/answer: the media type chosen, the headers every answer carries, the body format. */
export interface Exchange {
  readonly mediaType: string;
  readonly headers: Record<string, string>;
  readonly format: WireFormat;
}

export abstract class HttpBinding {
  protected readonly logger = new Logger('A2A');

  @InjectA2AOptions() protected readonly options!: ResolvedServerOptions;
  @Inject(A2ARequestHandler) private readonly handler!: A2ARequestHandler;
  @Inject(A2ACallerResolver) private readonly callers!: A2ACallerResolver;
  @Inject(SseStreams) private readonly streams!: SseStreams;
  @Inject(SecurityInventory) private readonly security!: SecurityInventory;

  /** The binding's name on a card (`JSONRPC`, `HTTP+JSON`). */
  abstract readonly protocolBinding: string;

  /** The exchange of `req` as far as it is known now (a guard may have refused it before the binding ran). */
  abstract exchange(req: IncomingMessage): Exchange;

  protected exchangeWith(req: IncomingMessage, format: WireFormat): Exchange {
    return {
      mediaType: responseMediaType(req.headers['content-type'], req.headers.accept),
      headers: { ...A2A_ANSWER_HEADERS, [VERSION_HEADER]: PROTOCOL_VERSION },
      format,
    };
  }

  /** Runs one operation and answers: JSON, or an SSE stream for the streaming operations. */
  protected async serve(routed: RoutedRequest, res: ServerResponse, exchange: Exchange, agent: PublishedAgent, operation: A2AOperation, params: unknown): Promise<void> {
    const req = routed.raw;
    const protocolVersion = negotiateVersion(headerOrQuery(routed, VERSION_HEADER), [PROTOCOL_VERSION]);
    const extensions = activateExtensions(parseExtensionsHeader(req.headers[EXTENSIONS_HEADER.toLowerCase()]), agent.extensions);
    if (extensions.length > 0) exchange.headers[EXTENSIONS_HEADER] = extensions.join(', ');
    const closed = new AbortController();
    // only a client that left before the answer ended needs telling; aborting costs an Error per request
    res.on('close', () => {
      if (!res.writableFinished) closed.abort();
    });
    const requestedTenant = (params as { tenant?: unknown } | undefined)?.tenant;
    const call: A2ACall = {
      agent,
      caller: await this.callers.resolve(routed.request as IncomingMessage, {
        tenant: typeof requestedTenant === 'string' && requestedTenant !== '' ? requestedTenant : undefined,
      }),
      extensions,
      signal: closed.signal,
      lastEventId: parseLastEventId(req.headers['last-event-id'] as string | undefined),
      viaAgentPath: routed.agent !== undefined,
      binding: this.protocolBinding,
      protocolVersion,
      traceContext: inboundContext(req.headers),
    };
    // a stream slot is taken before any work starts, so a refused stream starts no task
    const stream = OPERATIONS[operation].streaming ? this.streams.reserve(call.caller.subject, res) : undefined;
    try {
      const outcome = await this.handler.dispatch(call, operation, params);
      if ('result' in outcome) return this.sendJson(res, 200, exchange.format.result(outcome.result), exchange);
      await this.pipe(stream!, outcome.stream, exchange);
    } finally {
      stream?.close();
    }
  }

  /**
   * The one place an error becomes an A2A answer, for the binding's own errors and for what came
   * before it (a guard, the caller resolver, the body reader): the binding's shape, 401 with
   * `WWW-Authenticate`, `Allow` with 405. Anything unknown is an InternalError, logged by class
   * only. Once a stream has opened, an error has already gone out as its `event: error`.
   */
  answerError(req: IncomingMessage, res: ServerResponse, error: unknown, exchange: Exchange = this.exchange(req)): void {
    const a2aError = fromHostException(error);
    if (a2aError instanceof InternalError && !(error instanceof InternalError)) this.logUnexpected('Request', error);
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    const headers = { ...exchange.headers };
    if (a2aError.metadata.allow) headers.Allow = a2aError.metadata.allow;
    if (a2aError.metadata.retryAfterSeconds) headers['Retry-After'] = a2aError.metadata.retryAfterSeconds;
    if (a2aError instanceof UnauthenticatedError) headers['WWW-Authenticate'] = this.security.challenge();
    this.sendJson(res, exchange.format.errorStatus(a2aError), exchange.format.error(a2aError), { ...exchange, headers });
  }

  /** Only the error's class: its message and stack may hold secrets or internals. */
  private logUnexpected(what: string, error: unknown): void {
    this.logger.error(`${what} failed unexpectedly: ${(error as Error)?.name ?? typeof error}`);
  }

  protected sendJson(res: ServerResponse, status: number, body: unknown, exchange: Exchange): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { ...exchange.headers, 'Content-Type': `${exchange.mediaType}; charset=utf-8`, 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  }

  /** The handler has accepted the request (its refusals were ordinary answers): the stream opens now, not at its first event. */
  private async pipe(stream: SseStream, events: AsyncIterable<StreamEvent>, exchange: Exchange): Promise<void> {
    stream.open(exchange.headers);
    try {
      for await (const event of events) await stream.write(formatSseEvent(exchange.format.event(event), { id: event.seq }));
    } catch (error) {
      const a2aError = toA2AError(error);
      if (!(error instanceof A2AError)) this.logUnexpected('Stream', error);
      await stream.write(formatSseEvent(exchange.format.error(a2aError), { event: 'error' }));
    }
  }
}

/** A service parameter from its header, or from the query string (spec §3.6.1 allows `?A2A-Version=`). */
function headerOrQuery(routed: RoutedRequest, name: string): string | undefined {
  const header = routed.raw.headers[name.toLowerCase()];
  if (typeof header === 'string') return header;
  const query = routed.query[name] ?? routed.query[name.toLowerCase()];
  return typeof query === 'string' ? query : undefined;
}
