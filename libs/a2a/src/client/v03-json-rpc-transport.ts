/**
 * The JSON-RPC binding of A2A 0.3: the same JSON-RPC 2.0 envelope and SSE framing as 1.0 (so the
 * 1.0 transport carries it), with 0.3's method names, params and results, translated by
 * `protocol/v03` on the way out and back. A status update with `final: true` ends the stream.
 */
import { redactUrl } from '../net/redact-url.js';
import { isPlainObject } from '../protocol/json-value.js';
import { v03MethodOf, type V03MethodSpec } from '../protocol/v03/json-rpc-methods.js';
import type { A2AHttp } from './a2a-http.js';
import type { HttpFacts } from './error-mapping.js';
import type { A2ABinding } from './interface-selection.js';
import { JsonRpcTransport } from './json-rpc-transport.js';
import type { SseMessage } from './sse-reader.js';
import type { A2ATransport, OpenedStream, StreamingOperation, TransportCall, UnaryOperation } from './transport.js';
import { checkV03Call, v03Headers, v1ResultOf, withHistoryLength } from './v03-wire.js';

const STREAM_EVENTS = v03MethodOf('SendStreamingMessage')!;

/** @internal */
export class V03JsonRpcTransport implements A2ATransport {
  readonly binding: A2ABinding = 'JSONRPC';
  private readonly rpc: JsonRpcTransport;
  /** The events that said `final: true` (a WeakSet: the caller holds each event only while it reads it). */
  private readonly finals = new WeakSet<SseMessage>();

  constructor(
    http: A2AHttp,
    readonly url: URL,
  ) {
    this.rpc = new JsonRpcTransport(http, url, (operation) => v03MethodOf(operation)?.method ?? operation);
  }

  urlFor(): URL {
    return this.url;
  }

  /** The call in 0.3 terms. */
  private asV03<Op extends TransportCall>(call: Op): { call: Op; spec: V03MethodSpec } {
    checkV03Call(call, redactUrl(this.url));
    const spec = v03MethodOf(call.operation)!;
    return { call: { ...call, params: spec.requestToV03(call.params as never), tenant: undefined, headers: v03Headers(call.headers) }, spec };
  }

  async unary(call: TransportCall<UnaryOperation>): Promise<unknown> {
    const { call: v03, spec } = this.asV03(call);
    const result = await this.rpc.unary(v03);
    return withHistoryLength(call.operation, call.params, v1ResultOf(call.operation, () => spec.resultFromV03(result), `the ${spec.method} result`, redactUrl(this.url)));
  }

  openStream(call: TransportCall<StreamingOperation> & { lastEventId?: string }): Promise<OpenedStream> {
    // 0.3 had no Last-Event-ID resumption; a peer that knows it may still use it
    return this.rpc.openStream(this.asV03(call).call);
  }

  eventPayload(message: SseMessage, facts: HttpFacts): unknown {
    const result = this.rpc.eventPayload(message, facts);
    const event = v1ResultOf('SendStreamingMessage', () => STREAM_EVENTS.resultFromV03(result), 'a stream event', facts.target);
    if (isPlainObject(result) && result.kind === 'status-update' && result.final === true) this.finals.add(message);
    return event;
  }

  endsStream(message: SseMessage): boolean {
    return this.finals.has(message);
  }
}
