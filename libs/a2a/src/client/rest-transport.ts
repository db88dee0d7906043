/**
 * The HTTP+JSON binding (spec §11): the route table of `protocol/rest-routes.ts`, path fields in
 * the path, GET/DELETE fields in the query (camelCase, enums by name), POST bodies as
 * `application/a2a+json`, the tenant as the `/{tenant}` path prefix; errors as
 * `{"error":{code,status,message,details}}`. SubscribeToTask is POSTed (the spec text) and, when
 * the server does not know that route (404/405 without an A2A reason), sent again as GET (the
 * proto), which is then remembered for this interface.
 */
import { InvalidAgentResponseError, InvalidParamsError, TaskNotFoundError } from '../protocol/errors.js';
import { A2A_JSON, JSON_MEDIA_TYPE } from '../protocol/json-body.js';
import { isPlainObject } from '../protocol/json-value.js';
import { OPERATIONS } from '../protocol/operations.js';
import { REST_ROUTES, type RestRoute } from '../protocol/rest-routes.js';
import { A2AHttp, parseJson, type HttpResponse } from './a2a-http.js';
import { errorFromAnswer, errorFromRest, factsOf, statusOf, type HttpFacts } from './error-mapping.js';
import type { A2ABinding } from './interface-selection.js';
import type { SseMessage } from './sse-reader.js';
import { parseEventData, SSE_MEDIA_TYPE, streamOrError, type A2ATransport, type OpenedStream, type StreamingOperation, type TransportCall, type UnaryOperation } from './transport.js';

const JSON_ACCEPT = `${A2A_JSON}, ${JSON_MEDIA_TYPE}`;

/** A query value as §11.5 wants it: strings as they are, booleans and numbers as text, lists repeated. */
function queryValues(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(queryValues);
  if (typeof value === 'string') return [value];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  return []; // nested objects cannot travel in a query (§11.5); no GET request has one
}

/** The route(s) of an operation, in the order to try them. */
function routesOf(operation: string): RestRoute[] {
  return REST_ROUTES.filter((r) => r.operation === operation);
}

/** A 404/405 that says "no such route", not "no such task". */
export function isUnknownRoute(error: unknown): boolean {
  if (error instanceof TaskNotFoundError) return false;
  const status = statusOf(error);
  return status === 404 || status === 405;
}

/** @internal */
export class RestTransport implements A2ATransport {
  readonly binding: A2ABinding = 'HTTP+JSON';
  /** The server answered POST …:subscribe with "unknown route": use GET from now on. */
  private subscribeViaGet = false;

  constructor(
    private readonly http: A2AHttp,
    readonly url: URL,
  ) {}

  private route(operation: string, viaGet = false): RestRoute {
    const routes = routesOf(operation);
    return (viaGet ? routes.find((r) => r.method === 'GET') : routes[0]) ?? routes[0];
  }

  urlFor(call: Pick<TransportCall, 'operation' | 'params' | 'tenant'>): URL {
    return this.build(this.route(call.operation, call.operation === 'SubscribeToTask' && this.subscribeViaGet), call).url;
  }

  /** The URL and body of one call on `route`. */
  private build(route: RestRoute, call: Pick<TransportCall, 'operation' | 'params' | 'tenant'>): { url: URL; body?: string } {
    const rest: Record<string, unknown> = { ...call.params };
    delete rest.tenant;
    const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = rest[name];
      delete rest[name];
      if (typeof value !== 'string' || value === '') throw InvalidParamsError.field(name, 'is required');
      return encodeURIComponent(value);
    });
    const url = new URL(this.url.href);
    const prefix = call.tenant ? `/${encodeURIComponent(call.tenant)}` : '';
    url.pathname = `${url.pathname.replace(/\/+$/, '')}${prefix}${path}`;
    if (route.body === '*') {
      // `{}` rather than no body when nothing is left: some servers refuse a bodiless POST (digest §2.3.1)
      return { url, body: JSON.stringify(rest) };
    }
    const fields = OPERATIONS[call.operation as keyof typeof OPERATIONS].request.fields;
    for (const [name, value] of Object.entries(rest)) {
      if (!(name in fields)) continue;
      for (const text of queryValues(value)) url.searchParams.append(name, text);
    }
    return { url };
  }

  private async send(route: RestRoute, call: TransportCall, accept: string, extra: Record<string, string> = {}): Promise<HttpResponse> {
    const { url, body } = this.build(route, call);
    const headers: Record<string, string> = { ...call.headers, ...extra, accept };
    if (body !== undefined) headers['content-type'] = A2A_JSON;
    return this.http.send({ url, method: route.method, headers, ...(body === undefined ? {} : { body }) }, call.control);
  }

  async unary(call: TransportCall<UnaryOperation>): Promise<unknown> {
    const response = await this.send(this.route(call.operation), call, JSON_ACCEPT);
    const bytes = await this.http.readBody(response, call.control);
    if (response.statusCode < 200 || response.statusCode >= 300) throw errorFromAnswer(bytes, factsOf(response));
    // any 2xx, with or without a body (a2a-js answers Delete with 204)
    return parseJson(bytes, response.target);
  }

  async openStream(call: TransportCall<StreamingOperation> & { lastEventId?: string }): Promise<OpenedStream> {
    const extra: Record<string, string> = call.lastEventId === undefined ? {} : { 'last-event-id': call.lastEventId };
    const accept = `${SSE_MEDIA_TYPE}, ${JSON_ACCEPT}`;
    const viaGet = call.operation === 'SubscribeToTask' && this.subscribeViaGet;
    try {
      return await this.open(this.route(call.operation, viaGet), call, accept, extra);
    } catch (error) {
      if (call.operation !== 'SubscribeToTask' || viaGet || !isUnknownRoute(error)) throw error;
      const opened = await this.open(this.route(call.operation, true), call, accept, extra);
      this.subscribeViaGet = true;
      return opened;
    }
  }

  private async open(route: RestRoute, call: TransportCall, accept: string, extra: Record<string, string>): Promise<OpenedStream> {
    return streamOrError(this.http, await this.send(route, call, accept, extra), call, errorFromAnswer);
  }

  eventPayload(message: SseMessage, facts: HttpFacts): unknown {
    const data = parseEventData(message, facts);
    // a peer may send either signal of a mid-stream error, or both (digest §2.5)
    if (message.event === 'error' || (isPlainObject(data) && data.error !== undefined && data.error !== null)) {
      throw errorFromRest(isPlainObject(data) && isPlainObject(data.error) ? data : { error: {} }, facts) ?? new InvalidAgentResponseError(`${facts.target}: an error event without an error`);
    }
    return data;
  }
}
