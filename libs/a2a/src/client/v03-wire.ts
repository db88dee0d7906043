/**
 * What both A2A 0.3 transports do around the 1.0 calls the client makes: the headers of 0.3 (no
 * `A2A-Version`, whose absence means 0.3; extensions in `X-A2A-Extensions`), what 0.3 cannot
 * carry (a tenant, ListTasks), and the reading of 0.3 answers (a violation of the 0.3 model is
 * the peer's fault: InvalidAgentResponseError).
 *
 * @internal
 */
import { encode } from '../protocol/codec.js';
import { InvalidAgentResponseError, InvalidParamsError, UnsupportedOperationError } from '../protocol/errors.js';
import { OPERATIONS, type A2AOperation } from '../protocol/operations.js';
import { taskView } from '../protocol/task-view.js';
import type { Task } from '../protocol/types.js';
import { EXTENSIONS_HEADER, VERSION_HEADER } from '../protocol/service-params.js';
import { V03_EXTENSIONS_HEADER } from '../protocol/v03/constants.js';
import type { TransportCall } from './transport.js';

/** The call's headers as a 0.3 peer expects them. */
export function v03Headers(headers: Record<string, string>): Record<string, string> {
  const out = { ...headers };
  delete out[VERSION_HEADER.toLowerCase()];
  const extensions = out[EXTENSIONS_HEADER.toLowerCase()];
  delete out[EXTENSIONS_HEADER.toLowerCase()];
  if (extensions !== undefined) out[V03_EXTENSIONS_HEADER.toLowerCase()] = extensions;
  return out;
}

/**
 * What 0.3 has no way to say is refused before anything is sent.
 * @throws UnsupportedOperationError for ListTasks and for a tenant
 */
export function checkV03Call(call: Pick<TransportCall, 'operation' | 'tenant'>, target: string): void {
  if (call.operation === 'ListTasks') throw new UnsupportedOperationError(`${target}: this agent speaks A2A 0.3, which has no ListTasks`);
  if (call.tenant !== undefined && call.tenant !== '') throw new UnsupportedOperationError(`${target}: this agent speaks A2A 0.3, which has no tenants; the call cannot name one`);
}

/**
 * Reads a 0.3 answer into the 1.0 result, as ProtoJSON (the client decodes it as it decodes a 1.0
 * answer).
 * @throws InvalidAgentResponseError naming what is not valid 0.3
 */
export function v1ResultOf(operation: A2AOperation, read: () => unknown, what: string, target: string): Record<string, unknown> {
  try {
    return encode(OPERATIONS[operation].response, read());
  } catch (error) {
    if (!(error instanceof InvalidParamsError)) throw error;
    throw new InvalidAgentResponseError(`${target}: ${what} is not valid A2A 0.3 (${error.violationsText(10)})`);
  }
}

/**
 * A result as 1.0 means the request's `historyLength`: 0.3 could only be asked for all of the
 * history or the last N, so "none" (0) is made here.
 */
export function withHistoryLength(operation: A2AOperation, params: Record<string, unknown>, result: Record<string, unknown>): Record<string, unknown> {
  const configuration = params.configuration as { historyLength?: number } | undefined;
  const historyLength = operation === 'GetTask' ? (params.historyLength as number | undefined) : configuration?.historyLength;
  if (historyLength === undefined) return result;
  if (operation === 'GetTask') return taskView(result as unknown as Task, { historyLength }) as unknown as Record<string, unknown>;
  if (operation === 'SendMessage' && 'task' in result) return { task: taskView(result.task as Task, { historyLength }) };
  return result;
}
