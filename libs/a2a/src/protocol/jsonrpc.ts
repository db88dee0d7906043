/** The JSON-RPC 2.0 envelope of the A2A JSON-RPC binding (spec §9). */
import { InvalidRequestError, MethodNotFoundError, type A2AError } from './errors.js';
import { isOperation, type A2AOperation } from './operations.js';

export type JsonRpcId = string | number | null;

export interface JsonRpcCall {
  id: JsonRpcId;
  method: A2AOperation;
  /** Raw params; decoded against the operation's request schema by the caller. */
  params: unknown;
}

/** Thrown for a broken envelope; carries the id when one could be read. */
export class JsonRpcEnvelopeError extends Error {
  constructor(
    readonly id: JsonRpcId,
    readonly error: A2AError,
  ) {
    super(error.message);
  }
}

function isValidId(id: unknown): id is JsonRpcId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/**
 * The id an answer to `body` carries: the request object's own when it is a valid id, else null
 * (spec §9.5: null when the id could not be read). For answers given before the call is parsed,
 * such as a guard's refusal.
 */
export function jsonRpcIdOf(body: unknown): JsonRpcId {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return isValidId(id) ? id : null;
}

/**
 * Validates the envelope of a parsed JSON-RPC body. A missing `id` is answered with `id: null`
 * (every A2A method is request/response); batches are not part of A2A.
 * @throws JsonRpcEnvelopeError
 */
export function parseJsonRpcCall(body: unknown): JsonRpcCall {
  return parseJsonRpcEnvelope(body, isOperation);
}

/**
 * The envelope checks of {@link parseJsonRpcCall}, for any method table: `known` says which
 * method names exist (another one is MethodNotFound, before its params are looked at).
 * @throws JsonRpcEnvelopeError
 */
export function parseJsonRpcEnvelope<Method extends string>(body: unknown, known: (method: string) => method is Method): { id: JsonRpcId; method: Method; params: unknown } {
  if (Array.isArray(body)) throw new JsonRpcEnvelopeError(null, new InvalidRequestError('Batch requests are not supported'));
  if (typeof body !== 'object' || body === null) {
    throw new JsonRpcEnvelopeError(null, new InvalidRequestError('The request must be a JSON-RPC 2.0 request object'));
  }
  const request = body as Record<string, unknown>;
  const id = request.id === undefined ? null : request.id;
  if (!isValidId(id)) throw new JsonRpcEnvelopeError(null, new InvalidRequestError('"id" must be a string, a number or null'));
  if (request.jsonrpc !== '2.0') throw new JsonRpcEnvelopeError(id, new InvalidRequestError('"jsonrpc" must be "2.0"'));
  if (typeof request.method !== 'string' || request.method === '') {
    throw new JsonRpcEnvelopeError(id, new InvalidRequestError('"method" must be a non-empty string'));
  }
  if (!known(request.method)) {
    throw new JsonRpcEnvelopeError(id, new MethodNotFoundError(`Method not found: ${request.method.slice(0, 100)}`));
  }
  const params = request.params ?? {};
  if (typeof params !== 'object' || Array.isArray(params)) {
    throw new JsonRpcEnvelopeError(id, new InvalidRequestError('"params" must be a JSON object'));
  }
  return { id, method: request.method, params };
}

export function jsonRpcResult(id: JsonRpcId, result: unknown) {
  return { jsonrpc: '2.0' as const, id, result };
}

/**
 * `JSON.stringify(jsonRpcResult(id, result))` for a result already JSON text (`resultJson`), byte
 * for byte: a stream's events share one result text and differ only by the request's id.
 */
export function jsonRpcResultText(id: JsonRpcId, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
}

export function jsonRpcError(id: JsonRpcId, error: A2AError) {
  return { jsonrpc: '2.0' as const, id, error: error.toJsonRpc() };
}
