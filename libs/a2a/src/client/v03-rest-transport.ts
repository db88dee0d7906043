/**
 * The REST binding of A2A 0.3 as `@a2a-js/sdk` 0.3 speaks it (`protocol/v03/rest-routes.ts`):
 * `/v1/...` routes below the interface URL, bodies and answers in the 0.3 proto's JSON,
 * `application/json`, errors as a bare `{ code, message, data? }` whose code is the JSON-RPC one.
 * A status update with `final: true` ends the stream.
 */
import { redactUrl } from '../net/redact-url.js';
import { InvalidAgentResponseError } from '../protocol/errors.js';
import { JSON_MEDIA_TYPE } from '../protocol/json-body.js';
import { isPlainObject } from '../protocol/json-value.js';
import { v03RestCodecOf, type V03RestCall, type V03RestCodec } from '../protocol/v03/rest-routes.js';
import { A2AHttp, parseJson, type HttpResponse } from './a2a-http.js';
import type { CallControl } from './call-control.js';
import { errorFromAnswer, errorFromJsonRpc, factsOf, type HttpFacts } from './error-mapping.js';
import type { A2ABinding } from './interface-selection.js';
import type { SseMessage } from './sse-reader.js';
import { parseEventData, SSE_MEDIA_TYPE, streamOrError, type A2ATransport, type OpenedStream, type StreamingOperation, type TransportCall, type UnaryOperation } from './transport.js';
import { checkV03Call, v03Headers, v1ResultOf, withHistoryLength } from './v03-wire.js';

const STREAM_EVENTS = v03RestCodecOf('SendStreamingMessage')!;

/** A 0.3 REST error: `{ code, message, data }` (a JSON-RPC error object), or anything else by its HTTP status. */
function errorOf(body: Buffer, facts: HttpFacts): Error {
  let json: unknown;
  try {
    json = body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined;
  } catch {
    json = undefined;
  }
  return isPlainObject(json) && typeof json.code === 'number' ? errorFromJsonRpc(json, facts) : errorFromAnswer(body, facts);
}

/** @internal */
export class V03RestTransport implements A2ATransport {
  readonly binding: A2ABinding = 'HTTP+JSON';
  private readonly finals = new WeakSet<SseMessage>();

  constructor(
    private readonly http: A2AHttp,
    readonly url: URL,
  ) {}

  /** The codec and the 0.3 request of a call. */
  private prepare(call: Pick<TransportCall, 'operation' | 'params' | 'tenant'>): { codec: V03RestCodec; rest: V03RestCall } {
    checkV03Call(call, redactUrl(this.url));
    const codec = v03RestCodecOf(call.operation)!;
    return { codec, rest: codec.requestToV03(call.params as never) };
  }

  private urlOf(rest: V03RestCall): URL {
    const url = new URL(this.url.href);
    const path = rest.route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(rest.pathParams[name]));
    url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
    for (const [name, value] of Object.entries(rest.query)) url.searchParams.append(name, value);
    return url;
  }

  urlFor(call: Pick<TransportCall, 'operation' | 'params' | 'tenant'>): URL {
    return this.urlOf(this.prepare(call).rest);
  }

  private send(rest: V03RestCall, call: TransportCall, accept: string, control: CallControl): Promise<HttpResponse> {
    const headers: Record<string, string> = { ...v03Headers(call.headers), accept };
    const body = rest.body === undefined ? undefined : JSON.stringify(rest.body);
    if (body !== undefined) headers['content-type'] = JSON_MEDIA_TYPE;
    return this.http.send({ url: this.urlOf(rest), method: rest.route.method, headers, ...(body === undefined ? {} : { body }) }, control);
  }

  async unary(call: TransportCall<UnaryOperation>): Promise<unknown> {
    const { codec, rest } = this.prepare(call);
    const response = await this.send(rest, call, JSON_MEDIA_TYPE, call.control);
    const bytes = await this.http.readBody(response, call.control);
    if (response.statusCode < 200 || response.statusCode >= 300) throw errorOf(bytes, factsOf(response));
    // any 2xx, with or without a body (a2a-js answers a delete with 204)
    const body = parseJson(bytes, response.target);
    return withHistoryLength(call.operation, call.params, v1ResultOf(call.operation, () => codec.resultFromV03(body), `the ${call.operation} result`, response.target));
  }

  async openStream(call: TransportCall<StreamingOperation> & { lastEventId?: string }): Promise<OpenedStream> {
    const { rest } = this.prepare(call);
    return streamOrError(this.http, await this.send(rest, call, `${SSE_MEDIA_TYPE}, ${JSON_MEDIA_TYPE}`, call.control), call, errorOf);
  }

  eventPayload(message: SseMessage, facts: HttpFacts): unknown {
    const data = parseEventData(message, facts);
    // a2a-js 0.3 sends a mid-stream error as `event: error` with the bare error object
    if (message.event === 'error') throw isPlainObject(data) && typeof data.code === 'number' ? errorFromJsonRpc(data, facts) : new InvalidAgentResponseError(`${facts.target}: an error event without an error`);
    const event = v1ResultOf('SendStreamingMessage', () => STREAM_EVENTS.resultFromV03(data), 'a stream event', facts.target);
    if (isPlainObject(data) && isPlainObject(data.statusUpdate) && data.statusUpdate.final === true) this.finals.add(message);
    return event;
  }

  endsStream(message: SseMessage): boolean {
    return this.finals.has(message);
  }
}
