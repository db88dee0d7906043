/**
 * The JSON-RPC 2.0 binding (spec §9): one POST endpoint, PascalCase methods, SSE for streams; with
 * `v03`, the 0.3 methods (`message/send` …) on the same endpoint for 0.3 requests.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type A2AError,
  AgentNotFoundError,
  InvalidRequestError,
  MethodNotAllowedError,
  PayloadTooLargeError,
  PermissionDeniedError,
  ResourceExhaustedError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
} from '../../protocol/errors.js';
import { JSON_BODY_TYPES, checkContentType } from '../../protocol/json-body.js';
import { JsonRpcEnvelopeError, jsonRpcError, jsonRpcIdOf, jsonRpcResult, jsonRpcResultText, parseJsonRpcCall, type JsonRpcId } from '../../protocol/jsonrpc.js';
import { PROTOCOL_VERSION } from '../../protocol/types.js';
import { parseV03JsonRpcCall } from '../../protocol/v03/json-rpc.js';
import { encodeStreamEvent } from '../a2a-request-handler.js';
import { AgentRegistry } from '../agent-registry.js';
import { HttpBinding, type Exchange, type RoutedRequest, type WireFormat } from './http-binding.js';
import { bodyKnownSoFar, hasBody, readJsonBody } from './request-body.js';
import { sharedEventJson } from './shared-event-json.js';
import { V03JsonRpcFormat } from './v03-formats.js';

/** JSON-RPC errors travel in HTTP 200 answers, except failures of the HTTP exchange itself. */
const TRANSPORT_ERRORS = [
  AgentNotFoundError,
  MethodNotAllowedError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ResourceExhaustedError,
  UnauthenticatedError,
  PermissionDeniedError,
];

/** The HTTP status of a JSON-RPC error answer (in both versions). */
const jsonRpcErrorStatus = (error: A2AError) => (TRANSPORT_ERRORS.some((type) => error instanceof type) ? error.httpStatus : 200);

/** JSON-RPC bodies for one request: they all carry its id, once it is known. */
export class JsonRpcFormat implements WireFormat {
  constructor(public id: JsonRpcId = null) {}

  // methods, not arrow fields: an open stream holds its format, and fields would be three closures each
  result(result: unknown) {
    return jsonRpcResult(this.id, result);
  }

  error(error: Parameters<WireFormat['error']>[0]) {
    return jsonRpcError(this.id, error);
  }

  errorStatus(error: Parameters<WireFormat['errorStatus']>[0]) {
    return jsonRpcErrorStatus(error);
  }

  event(event: Parameters<WireFormat['event']>[0]) {
    return jsonRpcResultText(this.id, sharedEventJson(event.event, encodeStreamEvent));
  }
}

@Injectable()
export class JsonRpcBinding extends HttpBinding {
  readonly protocolBinding = 'JSONRPC';

  constructor(@Inject(AgentRegistry) private readonly registry: AgentRegistry) {
    super();
  }

  /** The id is the request's own as soon as its body is known: a guard's refusal carries it too. */
  exchange(req: IncomingMessage): Exchange {
    const id = jsonRpcIdOf(bodyKnownSoFar(req, this.options.limits));
    const version = this.wireVersion(req);
    return this.exchangeWith(req, version === PROTOCOL_VERSION ? new JsonRpcFormat(id) : new V03JsonRpcFormat(id, jsonRpcErrorStatus), version);
  }

  async handle(routed: RoutedRequest, res: ServerResponse): Promise<void> {
    const req = routed.raw;
    const exchange = this.exchange(req);
    const format = exchange.format as JsonRpcFormat | V03JsonRpcFormat;
    try {
      if (req.method !== 'POST') throw new MethodNotAllowedError('The JSON-RPC endpoint takes POST only', { allow: 'POST' });
      const agent = this.registry.resolve(routed.agent);
      checkContentType(req.headers['content-type'], JSON_BODY_TYPES, hasBody(req));
      const read = readJsonBody(req, this.options.limits);
      const body = 'known' in read ? read.known : await read;
      if (body === undefined) throw new InvalidRequestError('The request has no body; send a JSON-RPC 2.0 request object');
      if (format instanceof V03JsonRpcFormat) {
        const rpc = parseV03JsonRpcCall(body);
        format.id = rpc.id;
        format.method = rpc.method;
        await this.serveTranslated(routed, res, exchange, agent, rpc.method.operation, (options) => rpc.method.requestFromV03(rpc.params, options));
        return;
      }
      const rpc = parseJsonRpcCall(body);
      format.id = rpc.id;
      await this.serve(routed, res, exchange, agent, rpc.method, rpc.params);
    } catch (error) {
      if (error instanceof JsonRpcEnvelopeError) format.id = error.id;
      this.answerError(req, res, error instanceof JsonRpcEnvelopeError ? error.error : error, exchange);
    }
  }
}
