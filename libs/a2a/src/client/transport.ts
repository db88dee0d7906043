/**
 * What a binding does for the client: carry one operation's ProtoJSON params to the interface and
 * bring back the raw result (or the raw events of a stream), turning every error answer into its
 * typed error. Encoding and decoding with the schemas happen in the client, once, for both.
 *
 * @internal
 */
import type { Readable } from 'node:stream';
import { InvalidAgentResponseError } from '../protocol/errors.js';
import type { A2AOperation } from '../protocol/operations.js';
import { mediaTypeOf, type A2AHttp, type HttpResponse } from './a2a-http.js';
import type { CallControl } from './call-control.js';
import { factsOf, type HttpFacts } from './error-mapping.js';
import type { A2ABinding } from './interface-selection.js';
import type { SseMessage } from './sse-reader.js';

export type StreamingOperation = 'SendStreamingMessage' | 'SubscribeToTask';
export type UnaryOperation = Exclude<A2AOperation, StreamingOperation>;

export interface TransportCall<Op extends A2AOperation = A2AOperation> {
  operation: Op;
  /** The request as ProtoJSON, tenant not included. */
  params: Record<string, unknown>;
  /** The tenant to echo ('' or undefined: none). */
  tenant: string | undefined;
  /** Every header to send (service parameters and the caller's), names lower-cased. */
  headers: Record<string, string>;
  control: CallControl;
}

export interface OpenedStream {
  body: Readable;
  facts: HttpFacts;
}

export interface A2ATransport {
  readonly binding: A2ABinding;
  readonly url: URL;
  /** The URL one call goes to (for a headers provider). */
  urlFor(call: Pick<TransportCall, 'operation' | 'params' | 'tenant'>): URL;
  /** @returns the raw result (not yet decoded); `undefined` for an empty success */
  unary(call: TransportCall<UnaryOperation>): Promise<unknown>;
  /** Opens a stream: resolves once the answer is known to be an event stream. */
  openStream(call: TransportCall<StreamingOperation> & { lastEventId?: string }): Promise<OpenedStream>;
  /** One SSE event → the raw StreamResponse; throws the typed error an error event carries. */
  eventPayload(message: SseMessage, facts: HttpFacts): unknown;
  /**
   * After `eventPayload` read `message`: did the peer say no event follows (A2A 0.3's `final`)?
   * A 1.0 stream ends when the server closes it, so 1.0 transports leave this out.
   */
  endsStream?(message: SseMessage): boolean;
}

export const SSE_MEDIA_TYPE = 'text/event-stream';

/** The opened stream, when `response` is a 2xx event stream; otherwise the caller reads the error. */
export function eventStreamOf(response: HttpResponse): OpenedStream | undefined {
  const ok = response.statusCode >= 200 && response.statusCode < 300 && mediaTypeOf(response.headers) === SSE_MEDIA_TYPE;
  return ok ? { body: response.body, facts: factsOf(response) } : undefined;
}

/** An SSE event's `data:` as JSON; throws InvalidAgentResponseError when it is not. */
export function parseEventData(message: SseMessage, facts: HttpFacts): unknown {
  try {
    return JSON.parse(message.data);
  } catch {
    throw new InvalidAgentResponseError(`${facts.target}: a stream event is not valid JSON`);
  }
}

/**
 * The stream a REST answer opened; else the error its body carries (read by `errorOf`), or, for a
 * success that is not a stream, InvalidAgentResponseError.
 */
export async function streamOrError(
  http: A2AHttp,
  response: HttpResponse,
  call: Pick<TransportCall, 'operation' | 'control'>,
  errorOf: (body: Buffer, facts: HttpFacts) => Error,
): Promise<OpenedStream> {
  const opened = eventStreamOf(response);
  if (opened) return opened;
  const bytes = await http.readBody(response, call.control);
  if (response.statusCode < 200 || response.statusCode >= 300) throw errorOf(bytes, factsOf(response));
  throw new InvalidAgentResponseError(`${response.target}: ${call.operation} was answered with ${mediaTypeOf(response.headers) || 'a body'} instead of an event stream`);
}
