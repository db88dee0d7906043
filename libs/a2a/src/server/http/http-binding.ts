/**
 * What both HTTP bindings share: version and extension negotiation, the caller, dispatch to the
 * request handler, JSON answers and SSE streams, and the one place an error becomes an answer. A
 * binding only says how its bodies look. Bindings see node's request and response and what the
 * router found ({@link RoutedRequest}), never a platform's own objects.
 */
import { Inject, Logger } from '@nestjs/common';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { InjectA2AOptions } from '../../config/a2a.constants.js';
import { A2AError, InternalError, ResourceExhaustedError, UnauthenticatedError, UnavailableError } from '../../protocol/errors.js';
import { A2A_JSON, JSON_MEDIA_TYPE, responseMediaType } from '../../protocol/json-body.js';
import { OPERATIONS, type A2AOperation } from '../../protocol/operations.js';
import { EXTENSIONS_HEADER, VERSION_HEADER, activateExtensions, negotiateVersion, parseExtensionsHeader, supportedVersion } from '../../protocol/service-params.js';
import { parseLastEventId } from '../../protocol/sse.js';
import { PROTOCOL_VERSION } from '../../protocol/types.js';
import type { DecodeOptions } from '../../protocol/codec.js';
import { V03_EXTENSIONS_HEADER, V03_PROTOCOL_VERSION } from '../../protocol/v03/constants.js';
import { inboundContext } from '../../telemetry/telemetry-api.js';
import { A2ARequestHandler, type A2ACall, type DispatchResult, type StreamEvent } from '../a2a-request-handler.js';
import type { PublishedAgent } from '../agent-registry.js';
import { A2ACallerResolver } from '../caller-resolver.js';
import { SecurityInventory } from '../security/security-inventory.js';
import type { ResolvedServerOptions } from '../server-options.js';
import { fromHostException, retryAfterOfNamedLimits } from './host-errors.js';
import { bodyAnswered, forgetBody } from './request-body.js';
import { releaseRoutingState } from './platform-exchange.js';
import { EventPipe, logUnexpected } from './event-pipe.js';
import { SseStreams } from './sse-streams.js';

/**
 * Headers on every A2A answer, errors and streams included: `nosniff`, so no browser reads an
 * answer that echoes a caller's text as anything but the type it is sent as.
 */
export const A2A_ANSWER_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'X-Content-Type-Options': 'nosniff' });

/** The headers of a 1.0 answer: made once and shared, copied only when an answer adds one (extensions, an error's). */
const V1_ANSWER_HEADERS: Readonly<Record<string, string>> = Object.freeze({ ...A2A_ANSWER_HEADERS, [VERSION_HEADER]: PROTOCOL_VERSION });

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
  /** Data of one SSE event, as JSON text (shared by the streams that show the event: see `sharedEventJson`). */
  event(event: StreamEvent): string;
  /** HTTP status of a successful unary answer; default 200. */
  resultStatus?(): number;
}

/** One request/answer: the media type chosen, the headers every answer carries, the body format. */
export interface Exchange {
  /** The protocol version it is answered in: `1.0`, or `0.3` (see {@link HttpBinding.wireVersion}). */
  readonly version: string;
  readonly mediaType: string;
  /** Shared between exchanges until one adds a header: replaced by a copy then, never changed in place. */
  headers: Readonly<Record<string, string>>;
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

  protected exchangeWith(req: IncomingMessage, format: WireFormat, version = this.wireVersion(req)): Exchange {
    return {
      version,
      mediaType: responseMediaType(req.headers['content-type'], req.headers.accept),
      // 0.3 had no version header; its answers carry none
      headers: version === PROTOCOL_VERSION ? V1_ANSWER_HEADERS : A2A_ANSWER_HEADERS,
      format,
    };
  }

  /**
   * The version a request is answered in: `0.3` when 0.3 is served (`v03`) and the request names
   * no version (which means 0.3, spec §3.6.2) or names 0.3; `1.0` otherwise, where a version that
   * is not 1.0 is refused once the request is read (VersionNotSupported).
   */
  wireVersion(req: IncomingMessage): string {
    if (!this.options.v03) return PROTOCOL_VERSION;
    // asked per request (and again for an error answer): a 1.0 request costs neither a parse nor a thrown error
    const requested = requestedVersion(req.headers, req.url);
    return requested === PROTOCOL_VERSION ? PROTOCOL_VERSION : (supportedVersion(requested, ONLY_V03) ?? PROTOCOL_VERSION);
  }

  /** Runs one 1.0 operation on its ProtoJSON params and answers: JSON, or an SSE stream for the streaming operations. */
  protected serve(routed: RoutedRequest, res: ServerResponse, exchange: Exchange, agent: PublishedAgent, operation: A2AOperation, params: unknown): Promise<void> {
    // read as wireVersion() read it, so the two cannot disagree on what was asked
    negotiateVersion(requestedVersion(routed.raw.headers, routed.raw.url), this.options.v03 ? BOTH_VERSIONS : ONLY_V1);
    const requestedTenant = (params as { tenant?: unknown } | undefined)?.tenant;
    const tenant = typeof requestedTenant === 'string' && requestedTenant !== '' ? requestedTenant : undefined;
    return this.answer(routed, res, exchange, agent, operation, tenant, (call) => this.handler.dispatch(call, operation, params));
  }

  /**
   * Runs one operation whose 1.0 request `readRequest` makes from another version's wire (0.3),
   * and answers with the 1.0 value, which the exchange's format writes in that version. 0.3 has
   * no tenants.
   */
  protected serveTranslated(
    routed: RoutedRequest,
    res: ServerResponse,
    exchange: Exchange,
    agent: PublishedAgent,
    operation: A2AOperation,
    readRequest: (options: DecodeOptions) => unknown,
  ): Promise<void> {
    return this.answer(routed, res, exchange, agent, operation, undefined, (call) => this.handler.run(call, operation, readRequest));
  }

  private async answer(
    routed: RoutedRequest,
    res: ServerResponse,
    exchange: Exchange,
    agent: PublishedAgent,
    operation: A2AOperation,
    tenant: string | undefined,
    dispatch: (call: A2ACall) => Promise<DispatchResult>,
  ): Promise<void> {
    const req = routed.raw;
    // 0.3 named its extensions header differently
    const v1 = exchange.version === PROTOCOL_VERSION;
    const extensionsHeader = v1 ? EXTENSIONS_HEADER : V03_EXTENSIONS_HEADER;
    const extensions = activateExtensions(parseExtensionsHeader(req.headers[v1 ? EXTENSIONS_HEADER_LOWER : V03_EXTENSIONS_HEADER_LOWER]), agent.extensions);
    if (extensions.length > 0) exchange.headers = { ...exchange.headers, [extensionsHeader]: extensions.join(', ') };
    const resolved = this.callers.resolve(routed.request as IncomingMessage, { tenant });
    const call = new HttpCall(res, {
      agent,
      // the default resolver answers at once: no promise to wait a turn for
      caller: isThenable(resolved) ? await resolved : resolved,
      extensions,
      lastEventId: parseLastEventId(req.headers['last-event-id'] as string | undefined),
      viaAgentPath: routed.agent !== undefined,
      binding: this.protocolBinding,
      protocolVersion: exchange.version,
      traceContext: inboundContext(req.headers),
    });
    // a stream slot is taken before any work starts, so a refused stream starts no task
    const stream = OPERATIONS[operation].streaming ? this.streams.reserve(call.caller.subject, res) : undefined;
    let piping = false;
    try {
      const outcome = await dispatch(call);
      if ('result' in outcome) return this.sendJson(res, exchange.format.resultStatus?.() ?? 200, exchange.format.result(outcome.result), exchange);
      stream!.open(exchange.headers);
      forgetBody(req, routed.request as { body?: unknown });
      releaseRoutingState(routed.request);
      // Not awaited: the request's own frames (the platform's, Nest's, this binding's) end here, and
      // the stream goes on holding its response, its format and its events only (issue 14: memory
      // per open stream). A host interceptor therefore sees the request end when its stream opens.
      const pipe = new EventPipe(stream!, outcome.stream[Symbol.asyncIterator](), exchange.format, this.logger);
      piping = true;
      pipe.start();
    } finally {
      if (!piping) stream?.close();
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
    if (a2aError instanceof InternalError && !(error instanceof InternalError)) logUnexpected(this.logger, 'Request', error);
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    const headers = { ...exchange.headers };
    if (a2aError.metadata.allow) headers.Allow = a2aError.metadata.allow;
    const retryAfter = a2aError.metadata.retryAfterSeconds ?? (a2aError instanceof ResourceExhaustedError ? retryAfterOfNamedLimits(res) : undefined);
    if (retryAfter) headers['Retry-After'] = retryAfter;
    if (a2aError instanceof UnauthenticatedError) headers['WWW-Authenticate'] = this.security.challenge();
    // refused because the server is going away: even a request that arrived before the drain began
    // closes its connection, so its client goes elsewhere instead of sending another on this one
    if (a2aError instanceof UnavailableError && this.streams.shuttingDown) headers.Connection = 'close';
    this.sendJson(res, exchange.format.errorStatus(a2aError), exchange.format.error(a2aError), { ...exchange, headers });
  }

  /** `body` undefined: an answer without one (204). */
  protected sendJson(res: ServerResponse, status: number, body: unknown, exchange: Exchange): void {
    if (body === undefined) {
      res.writeHead(status, exchange.headers);
      res.end();
    } else {
      const text = JSON.stringify(body);
      res.writeHead(status, { ...exchange.headers, 'Content-Type': contentTypeOf(exchange.mediaType), 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    }
    bodyAnswered(res.req);
  }
}

/** `Content-Type` of a JSON answer for each media type an answer takes (responseMediaType), made once rather than per answer. */
const CONTENT_TYPES: Readonly<Record<string, string>> = { [A2A_JSON]: `${A2A_JSON}; charset=utf-8`, [JSON_MEDIA_TYPE]: `${JSON_MEDIA_TYPE}; charset=utf-8` };
const contentTypeOf = (mediaType: string) => CONTENT_TYPES[mediaType] ?? `${mediaType}; charset=utf-8`;

/** The versions a request may name, as negotiateVersion takes them. */
const ONLY_V1: readonly string[] = [PROTOCOL_VERSION];
const BOTH_VERSIONS: readonly string[] = [PROTOCOL_VERSION, V03_PROTOCOL_VERSION];
const ONLY_V03: readonly string[] = [V03_PROTOCOL_VERSION];

/**
 * A call over HTTP. Its signal is the client's leaving, made (with its listener on the response)
 * when first read: an AbortSignal costs more than the rest of a Message answer, and only a stream on
 * a log whose follow does not end on `return()` reads it (EventLog.followEndsOnReturn).
 */
class HttpCall implements A2ACall {
  readonly agent: A2ACall['agent'];
  readonly caller: A2ACall['caller'];
  readonly extensions: A2ACall['extensions'];
  readonly lastEventId: A2ACall['lastEventId'];
  readonly viaAgentPath: A2ACall['viaAgentPath'];
  readonly binding: A2ACall['binding'];
  readonly protocolVersion: A2ACall['protocolVersion'];
  readonly traceContext: A2ACall['traceContext'];

  private closed?: AbortController;

  constructor(
    private readonly res: ServerResponse,
    fields: Omit<A2ACall, 'signal'>,
  ) {
    this.agent = fields.agent;
    this.caller = fields.caller;
    this.extensions = fields.extensions;
    this.lastEventId = fields.lastEventId;
    this.viaAgentPath = fields.viaAgentPath;
    this.binding = fields.binding;
    this.protocolVersion = fields.protocolVersion;
    this.traceContext = fields.traceContext;
  }

  get signal(): AbortSignal {
    if (this.closed === undefined) {
      const closed = (this.closed = new AbortController());
      const res = this.res;
      // only a client that left before the answer ended needs telling; aborting costs an Error per request
      if (res.closed) {
        if (!res.writableFinished) closed.abort();
      } else {
        res.on('close', () => {
          if (!res.writableFinished) closed.abort();
        });
      }
    }
    return this.closed.signal;
  }
}

/** `A2A-Version` from its header, or from the query string of `url` (spec §3.6.1 allows `?A2A-Version=`). */
function requestedVersion(headers: IncomingHttpHeaders, url: string | undefined): string | undefined {
  const header = headers[VERSION_HEADER_LOWER];
  if (typeof header === 'string') return header;
  const query = queryOf(url);
  const value = query[VERSION_HEADER] ?? query[VERSION_HEADER_LOWER];
  return typeof value === 'string' ? value : undefined;
}

/** node's names of the headers read per request (lower-cased once, not per request). */
const VERSION_HEADER_LOWER = VERSION_HEADER.toLowerCase();
const EXTENSIONS_HEADER_LOWER = EXTENSIONS_HEADER.toLowerCase();
const V03_EXTENSIONS_HEADER_LOWER = V03_EXTENSIONS_HEADER.toLowerCase();

/** A promise or any other thenable (a resolver may return either): what `await` would wait for. */
function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** The query string of a raw request URL, before any router parsed it. */
function queryOf(url: string | undefined): Record<string, string> {
  const at = url?.indexOf('?') ?? -1;
  return at < 0 ? {} : Object.fromEntries(new URLSearchParams(url!.slice(at + 1)));
}
