/**
 * How the two bindings shape their bodies for a request made in A2A 0.3 (no `A2A-Version`, or
 * `0.3`, with `v03` on). The request handler speaks 1.0 only: its 1.0 values are written in 0.3
 * by the translators of `protocol/v03`, picked here by the method or route the request named.
 */
import type { A2AError } from '../../protocol/errors.js';
import { jsonRpcResult, jsonRpcResultText, type JsonRpcId } from '../../protocol/jsonrpc.js';
import { toV03Error, v03RestErrorStatus } from '../../protocol/v03/errors.js';
import { v03JsonRpcError } from '../../protocol/v03/json-rpc.js';
import type { V03MethodSpec } from '../../protocol/v03/json-rpc-methods.js';
import { v03RestCodecOf, type V03RestRoute } from '../../protocol/v03/rest-routes.js';
import type { StreamEvent } from '../a2a-request-handler.js';
import type { WireFormat } from './http-binding.js';
import { sharedEventJson, type EventEncoder } from './shared-event-json.js';

/**
 * 0.3 JSON-RPC bodies for one request: its id, and its method once the envelope is read. The
 * HTTP status of an error is the binding's, as at 1.0 (`errorStatus`).
 */
export class V03JsonRpcFormat implements WireFormat {
  method?: V03MethodSpec;

  constructor(
    public id: JsonRpcId,
    readonly errorStatus: (error: A2AError) => number,
  ) {}

  // methods, not arrow fields: an open stream holds its format, and fields would be closures each
  result(result: unknown) {
    return jsonRpcResult(this.id, this.method!.resultToV03(result as never));
  }

  error(error: A2AError) {
    return v03JsonRpcError(this.id, error);
  }

  event(event: StreamEvent) {
    return jsonRpcResultText(this.id, sharedEventJson(event.event, this.method!.resultToV03 as EventEncoder));
  }
}

/** 0.3 REST bodies (the 0.3 proto's JSON) for one request, once its route is known. */
export class V03RestFormat implements WireFormat {
  route?: V03RestRoute;

  result(result: unknown) {
    return this.codec().resultToV03(result as never);
  }

  /** `@a2a-js/sdk` 0.3's statuses: 201 for message:send and a create, 202 for a cancel, 204 for a delete. */
  resultStatus() {
    return this.route?.status ?? 200;
  }

  error(error: A2AError) {
    return toV03Error(error);
  }

  errorStatus(error: A2AError) {
    return v03RestErrorStatus(error);
  }

  event(event: StreamEvent) {
    return sharedEventJson(event.event, this.codec().resultToV03 as EventEncoder);
  }

  private codec() {
    return v03RestCodecOf(this.route!.operation)!;
  }
}
