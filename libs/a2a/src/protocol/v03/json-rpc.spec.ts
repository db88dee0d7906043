/** The 0.3 JSON-RPC envelope a server reads: 0.3 method names only, the 1.0 envelope rules, 0.3 error bodies. */
import { describe, expect, it } from '@jest/globals';
import { InvalidRequestError, MethodNotFoundError, TaskNotFoundError } from '../errors.js';
import { JsonRpcEnvelopeError } from '../jsonrpc.js';
import { parseV03JsonRpcCall, v03JsonRpcError } from './json-rpc.js';

function envelopeError(body: unknown): JsonRpcEnvelopeError {
  try {
    parseV03JsonRpcCall(body);
  } catch (error) {
    if (error instanceof JsonRpcEnvelopeError) return error;
    throw error;
  }
  throw new Error('expected an envelope error');
}

describe('parseV03JsonRpcCall', () => {
  it.each([
    ['message/send', 'SendMessage'],
    ['message/stream', 'SendStreamingMessage'],
    ['tasks/get', 'GetTask'],
    ['tasks/cancel', 'CancelTask'],
    ['tasks/resubscribe', 'SubscribeToTask'],
    ['tasks/pushNotificationConfig/set', 'CreateTaskPushNotificationConfig'],
    ['tasks/pushNotificationConfig/get', 'GetTaskPushNotificationConfig'],
    ['tasks/pushNotificationConfig/list', 'ListTaskPushNotificationConfigs'],
    ['tasks/pushNotificationConfig/delete', 'DeleteTaskPushNotificationConfig'],
    ['agent/getAuthenticatedExtendedCard', 'GetExtendedAgentCard'],
  ])('reads %s as the 1.0 operation %s', (method, operation) => {
    const call = parseV03JsonRpcCall({ jsonrpc: '2.0', id: 'a', method, params: { id: 't' } });
    expect(call).toMatchObject({ id: 'a', params: { id: 't' }, method: { method, operation } });
  });

  it.each(['SendMessage', 'GetTask', 'ListTasks', 'tasks/list', 'Message/Send'])('answers %s, no 0.3 method, with MethodNotFound and the id', (method) => {
    const error = envelopeError({ jsonrpc: '2.0', id: 3, method, params: {} });
    expect(error.id).toBe(3);
    expect(error.error).toBeInstanceOf(MethodNotFoundError);
  });

  it('keeps the envelope rules of 1.0: a batch, a wrong jsonrpc, params that are no object', () => {
    expect(envelopeError([]).error).toBeInstanceOf(InvalidRequestError);
    expect(envelopeError({ jsonrpc: '1.0', id: 1, method: 'tasks/get' })).toMatchObject({ id: 1, error: expect.any(InvalidRequestError) });
    expect(envelopeError({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: [1] }).error).toBeInstanceOf(InvalidRequestError);
    expect(parseV03JsonRpcCall({ jsonrpc: '2.0', method: 'tasks/get' })).toMatchObject({ id: null, params: {} });
  });
});

describe('v03JsonRpcError', () => {
  it('writes the error with a free-form data, as 0.3 did', () => {
    expect(v03JsonRpcError(9, new TaskNotFoundError('Task x not found', { taskId: 'x' }))).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32001, message: 'Task x not found', data: { reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { taskId: 'x' } } },
    });
  });
});
