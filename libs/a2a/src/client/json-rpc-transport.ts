/**
 * The JSON-RPC 2.0 binding (spec §9): every call is a POST of `{jsonrpc, id, method, params}` to
 * the interface URL, `application/json`; the tenant travels as `params.tenant`; streams are SSE
 * whose every `data:` is a JSON-RPC response carrying a StreamResponse (or an error).
 */
import { InvalidAgentResponseError } from '../protocol/errors.js';
import { JSON_MEDIA_TYPE } from '../protocol/json-body.js';
import { isPlainObject } from '../protocol/json-value.js';
import type { A2AOperation } from '../protocol/operations.js';
import { A2AHttp, parseJson, type HttpResponse } from './a2a-http.js';
import type { CallControl } from './call-control.js';
import { errorFromJsonRpc, errorFromStatus, factsOf, type HttpFacts } from './error-mapping.js';
import type { A2ABinding } from './interface-selection.js';
import type { SseMessage } from './sse-reader.js';
import { eventStreamOf, parseEventData, SSE_MEDIA_TYPE, type A2ATransport, type OpenedStream, type StreamingOperation, type TransportCall, type UnaryOperation } from './transport.js';

/** @internal */
export class JsonRpcTransport implements A2ATransport {
  readonly binding: A2ABinding = 'JSONRPC';
  private nextId = 1;

  constructor(
    private readonly http: A2AHttp,
    readonly url: URL,
    /** The JSON-RPC method of an operation: its own name in 1.0 (§9.1). */
    private readonly methodOf: (operation: A2AOperation) => string = (operation) => operation,
  ) {}

  urlFor(): URL {
    return this.url;
  }

  private body(call: TransportCall): { id: number; text: string } {
    const id = this.nextId++;
    const params = call.tenant ? { ...call.params, tenant: call.tenant } : call.params;
    return { id, text: JSON.stringify({ jsonrpc: '2.0', id, method: this.methodOf(call.operation), params }) };
  }

  private send(call: TransportCall, text: string, accept: string, extra: Record<string, string> = {}): Promise<HttpResponse> {
    return this.http.send(
      { url: this.url, method: 'POST', headers: { ...call.headers, ...extra, 'content-type': JSON_MEDIA_TYPE, accept }, body: text },
      call.control,
    );
  }

  async unary(call: TransportCall<UnaryOperation>): Promise<unknown> {
    const { id, text } = this.body(call);
    const response = await this.send(call, text, JSON_MEDIA_TYPE);
    const envelope = await this.readEnvelope(response, call.control);
    return this.result(envelope, id, call.operation, response.target);
  }

  async openStream(call: TransportCall<StreamingOperation> & { lastEventId?: string }): Promise<OpenedStream> {
    const { text } = this.body(call);
    const response = await this.send(call, text, `${SSE_MEDIA_TYPE}, ${JSON_MEDIA_TYPE}`, call.lastEventId === undefined ? {} : { 'last-event-id': call.lastEventId });
    const opened = eventStreamOf(response);
    if (opened) return opened;
    // an error before the stream started comes as an ordinary JSON-RPC answer
    const envelope = await this.readEnvelope(response, call.control);
    throw new InvalidAgentResponseError(
      `${response.target}: ${call.operation} was answered with ${isPlainObject(envelope) && 'result' in envelope ? 'a single JSON-RPC result' : 'something'} instead of an event stream`,
    );
  }

  eventPayload(message: SseMessage, facts: HttpFacts): unknown {
    const data = parseEventData(message, facts);
    if (!isPlainObject(data)) throw new InvalidAgentResponseError(`${facts.target}: a stream event is not a JSON-RPC response`);
    if (data.error !== undefined && data.error !== null) throw errorFromJsonRpc(data.error, facts);
    if (!('result' in data)) throw new InvalidAgentResponseError(`${facts.target}: a stream event has neither result nor error`);
    return data.result;
  }

  /** The parsed body; an error answer (JSON-RPC error or HTTP failure) is thrown as its typed error. */
  private async readEnvelope(response: HttpResponse, control: CallControl): Promise<Record<string, unknown>> {
    const facts = factsOf(response);
    const bytes = await this.http.readBody(response, control);
    let json: unknown;
    try {
      json = parseJson(bytes, response.target);
    } catch (error) {
      if (response.statusCode >= 300) throw errorFromStatus(facts);
      throw error;
    }
    if (isPlainObject(json) && json.error !== undefined && json.error !== null) throw errorFromJsonRpc(json.error, facts);
    if (response.statusCode < 200 || response.statusCode >= 300) throw errorFromStatus(facts);
    if (!isPlainObject(json)) throw new InvalidAgentResponseError(`${response.target}: the answer is not a JSON-RPC response object`);
    return json;
  }

  private result(envelope: Record<string, unknown>, id: number, operation: UnaryOperation, target: string): unknown {
    if (envelope.id !== undefined && envelope.id !== null && envelope.id !== id && envelope.id !== String(id)) {
      throw new InvalidAgentResponseError(`${target}: the JSON-RPC answer is for another request (id ${JSON.stringify(envelope.id).slice(0, 40)})`);
    }
    if (!('result' in envelope)) {
      // DeleteTaskPushNotificationConfig returns Empty: `{}`, `null` or, from some peers, nothing at all
      if (operation === 'DeleteTaskPushNotificationConfig') return undefined;
      throw new InvalidAgentResponseError(`${target}: the JSON-RPC answer has neither result nor error`);
    }
    return envelope.result;
  }
}
