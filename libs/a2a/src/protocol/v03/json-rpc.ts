/**
 * The JSON-RPC envelope of A2A 0.3, for a server: the same 2.0 envelope as 1.0's, the 0.3 method
 * names (`message/send` …), and errors with a free-form `data` (`./errors.ts`).
 */
import type { A2AError } from '../errors.js';
import { parseJsonRpcEnvelope, type JsonRpcId } from '../jsonrpc.js';
import { toV03Error } from './errors.js';
import { V03_JSON_RPC_METHODS, type V03MethodSpec } from './json-rpc-methods.js';

export interface V03JsonRpcCall {
  readonly id: JsonRpcId;
  readonly method: V03MethodSpec;
  /** Raw params: `method.requestFromV03` reads them into the 1.0 request. */
  readonly params: unknown;
}

/**
 * Validates the envelope of a parsed 0.3 JSON-RPC body. A 1.0 method name (`SendMessage`) is not
 * a 0.3 method: MethodNotFound, as a 0.3 server answers it.
 * @throws JsonRpcEnvelopeError
 */
export function parseV03JsonRpcCall(body: unknown): V03JsonRpcCall {
  const { id, method, params } = parseJsonRpcEnvelope(body, (name): name is string => V03_JSON_RPC_METHODS.has(name));
  return { id, method: V03_JSON_RPC_METHODS.get(method)!, params };
}

/** A 0.3 JSON-RPC error response. */
export function v03JsonRpcError(id: JsonRpcId, error: A2AError) {
  return { jsonrpc: '2.0' as const, id, error: toV03Error(error) };
}
