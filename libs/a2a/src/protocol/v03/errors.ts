/**
 * Errors on the 0.3 wire. Both 0.3 bindings answer a bare `{ code, message, data? }` (JSON-RPC as
 * its `error`, REST as the whole body), `data` a free-form object rather than 1.0's list of `@type`
 * details. The A2A codes -32001…-32007 mean the same in both versions (-32007 was 0.3's
 * AuthenticatedExtendedCardNotConfigured, 1.0's ExtendedAgentCardNotConfigured).
 *
 * A failure only 1.0 has a code for keeps that code: VersionNotSupported (-32009) and
 * ExtensionSupportRequired (-32008) lie in the range 0.3 leaves to servers ("-32000 to -32099,
 * server-defined", its §8.2), as do this library's own -32000 errors (authentication, limits).
 * What 1.0 says in an ErrorInfo goes to `data` as `reason`, `domain` and `metadata`, and invalid
 * params list their `fieldViolations` there: a 0.3 client shows `data`, and this library's client
 * reads it back into the same typed error.
 */
import type { A2AError } from '../errors.js';
import type { JsonObject } from '../types.js';
import type { V03ErrorObject } from './types.js';

/** An error as 0.3 writes it: the JSON-RPC `error` member, or a REST error body. */
export function toV03Error(error: A2AError): V03ErrorObject {
  const data: JsonObject = {};
  if (error.reason !== undefined) {
    data.reason = error.reason;
    data.domain = error.domain;
    if (Object.keys(error.metadata).length > 0) data.metadata = { ...error.metadata };
  }
  if (error.fieldViolations.length > 0) data.fieldViolations = error.fieldViolations.map((v) => ({ field: v.field, description: v.description }));
  return Object.keys(data).length > 0 ? { code: error.jsonRpcCode, message: error.message, data } : { code: error.jsonRpcCode, message: error.message };
}

/**
 * The HTTP status of an error on the 0.3 REST binding: what `@a2a-js/sdk` 0.3 answers where it
 * differs from 1.0 (409 for a task that cannot be canceled), 1.0's status otherwise.
 */
export function v03RestErrorStatus(error: A2AError): number {
  return error.jsonRpcCode === -32002 ? 409 : error.httpStatus;
}
