/** The JSON-RPC 2.0 envelope of the A2A JSON-RPC binding (spec digest §2.2). */
import { describe, expect, it } from '@jest/globals';
import { InvalidRequestError, MethodNotFoundError, TaskNotFoundError } from './errors.js';
import { JsonRpcEnvelopeError, jsonRpcError, jsonRpcIdOf, jsonRpcResult, jsonRpcResultText, parseJsonRpcCall, type JsonRpcId } from './jsonrpc.js';

function envelopeError(body: unknown): JsonRpcEnvelopeError {
  try {
    parseJsonRpcCall(body);
  } catch (error) {
    expect(error).toBeInstanceOf(JsonRpcEnvelopeError);
    return error as JsonRpcEnvelopeError;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`);
}

const sendParams = { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'Book a flight' }] } };

describe('parseJsonRpcCall: valid calls', () => {
  it.each([
    {
      name: 'SendMessage with a number id',
      body: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendParams },
      expected: { id: 1, method: 'SendMessage', params: sendParams },
    },
    {
      name: 'GetTask with a string id',
      body: { jsonrpc: '2.0', id: 'req-7', method: 'GetTask', params: { id: 'task-1', historyLength: 2 } },
      expected: { id: 'req-7', method: 'GetTask', params: { id: 'task-1', historyLength: 2 } },
    },
    {
      name: 'id null',
      body: { jsonrpc: '2.0', id: null, method: 'ListTasks', params: {} },
      expected: { id: null, method: 'ListTasks', params: {} },
    },
    {
      name: 'id 0',
      body: { jsonrpc: '2.0', id: 0, method: 'CancelTask', params: { id: 't' } },
      expected: { id: 0, method: 'CancelTask', params: { id: 't' } },
    },
    {
      name: 'missing id (answered with id null)',
      body: { jsonrpc: '2.0', method: 'SubscribeToTask', params: { id: 't' } },
      expected: { id: null, method: 'SubscribeToTask', params: { id: 't' } },
    },
    {
      name: 'GetExtendedAgentCard without params (the spec example sends none)',
      body: { jsonrpc: '2.0', id: 3, method: 'GetExtendedAgentCard' },
      expected: { id: 3, method: 'GetExtendedAgentCard', params: {} },
    },
    {
      name: 'params null is treated as absent',
      body: { jsonrpc: '2.0', id: 4, method: 'GetExtendedAgentCard', params: null },
      expected: { id: 4, method: 'GetExtendedAgentCard', params: {} },
    },
    {
      name: 'unknown envelope members are ignored',
      body: { jsonrpc: '2.0', id: 5, method: 'DeleteTaskPushNotificationConfig', params: { taskId: 't', id: 'c' }, extra: true },
      expected: { id: 5, method: 'DeleteTaskPushNotificationConfig', params: { taskId: 't', id: 'c' } },
    },
  ])('$name', ({ body, expected }) => {
    expect(parseJsonRpcCall(body)).toEqual(expected);
  });

  it.each([
    'SendMessage',
    'SendStreamingMessage',
    'GetTask',
    'ListTasks',
    'CancelTask',
    'SubscribeToTask',
    'CreateTaskPushNotificationConfig',
    'GetTaskPushNotificationConfig',
    'ListTaskPushNotificationConfigs',
    'DeleteTaskPushNotificationConfig',
    'GetExtendedAgentCard',
  ])('method %s is known', (method) => {
    expect(parseJsonRpcCall({ jsonrpc: '2.0', id: 1, method, params: {} }).method).toBe(method);
  });
});

describe('parseJsonRpcCall: broken envelopes', () => {
  it.each<{ name: string; body: unknown; id: JsonRpcId; code: number; message?: RegExp }>([
    { name: 'a batch', body: [{ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 't' } }], id: null, code: -32600, message: /batch/i },
    { name: 'an empty batch', body: [], id: null, code: -32600 },
    { name: 'a string', body: 'GetTask', id: null, code: -32600 },
    { name: 'null', body: null, id: null, code: -32600 },
    { name: 'a number', body: 42, id: null, code: -32600 },
    { name: 'jsonrpc "1.0"', body: { jsonrpc: '1.0', id: 9, method: 'GetTask', params: {} }, id: 9, code: -32600, message: /jsonrpc/ },
    { name: 'jsonrpc 2.0 as a number', body: { jsonrpc: 2.0, id: 'a', method: 'GetTask', params: {} }, id: 'a', code: -32600 },
    { name: 'jsonrpc missing', body: { id: 9, method: 'GetTask', params: {} }, id: 9, code: -32600 },
    { name: 'id an object', body: { jsonrpc: '2.0', id: { a: 1 }, method: 'GetTask' }, id: null, code: -32600, message: /id/ },
    { name: 'id an array', body: { jsonrpc: '2.0', id: [1], method: 'GetTask' }, id: null, code: -32600 },
    { name: 'id a boolean', body: { jsonrpc: '2.0', id: true, method: 'GetTask' }, id: null, code: -32600 },
    { name: 'method missing', body: { jsonrpc: '2.0', id: 2 }, id: 2, code: -32600, message: /method/ },
    { name: 'method empty', body: { jsonrpc: '2.0', id: 2, method: '' }, id: 2, code: -32600 },
    { name: 'method a number', body: { jsonrpc: '2.0', id: 2, method: 7 }, id: 2, code: -32600 },
    { name: 'params a string', body: { jsonrpc: '2.0', id: 6, method: 'GetTask', params: 'task-1' }, id: 6, code: -32600, message: /params/ },
    { name: 'params a number', body: { jsonrpc: '2.0', id: 6, method: 'GetTask', params: 1 }, id: 6, code: -32600 },
    { name: 'params positional (array)', body: { jsonrpc: '2.0', id: 6, method: 'GetTask', params: ['task-1'] }, id: 6, code: -32600 },
  ])('refuses $name with $code', ({ body, id, code, message }) => {
    const error = envelopeError(body);
    expect(error.id).toBe(id);
    expect(error.error).toBeInstanceOf(InvalidRequestError);
    expect(error.error.jsonRpcCode).toBe(code);
    if (message) expect(error.error.message).toMatch(message);
    expect(error.message).toBe(error.error.message);
  });

  it.each<{ method: string; id: JsonRpcId }>([
    { method: 'message/send', id: 1 },
    { method: 'tasks/get', id: 'abc' },
    { method: 'sendMessage', id: 2 },
    { method: 'ListTaskPushNotificationConfig', id: 3 },
    { method: 'toString', id: 4 },
    { method: '__proto__', id: 5 },
    { method: 'hasOwnProperty', id: null },
  ])('unknown method $method → -32601, keeping the id', ({ method, id }) => {
    const error = envelopeError({ jsonrpc: '2.0', id, method, params: {} });
    expect(error.id).toBe(id);
    expect(error.error).toBeInstanceOf(MethodNotFoundError);
    expect(error.error.jsonRpcCode).toBe(-32601);
    expect(error.error.message).toContain(method);
  });

  it('a very long unknown method name is cut in the message', () => {
    const error = envelopeError({ jsonrpc: '2.0', id: 1, method: 'x'.repeat(10_000) });
    expect(error.error.message.length).toBeLessThan(200);
  });
});

describe('jsonRpcIdOf: the id of an answer given before the call is parsed', () => {
  it.each<[string, unknown, JsonRpcId]>([
    ['a number', { jsonrpc: '2.0', id: 7, method: 'GetTask' }, 7],
    ['a string', { id: 'req-1' }, 'req-1'],
    ['null', { id: null }, null],
    ['none (a notification)', { jsonrpc: '2.0', method: 'GetTask' }, null],
    ['an object', { id: {} }, null],
    ['a non-finite number', { id: Number.POSITIVE_INFINITY }, null],
    ['a batch', [{ id: 1 }], null],
    ['not an object', 'x', null],
    ['no body', undefined, null],
  ])('%s', (_, body, id) => {
    expect(jsonRpcIdOf(body)).toBe(id);
  });
});

describe('response envelopes', () => {
  it('jsonRpcResult', () => {
    expect(jsonRpcResult(1, { task: { id: 't' } })).toEqual({ jsonrpc: '2.0', id: 1, result: { task: { id: 't' } } });
    expect(JSON.stringify(jsonRpcResult('a', {}))).toBe('{"jsonrpc":"2.0","id":"a","result":{}}');
  });

  it.each<JsonRpcId>([1, 0, -3.5, 'a', 'with "quotes" and \u2028', null])('jsonRpcResultText is the bytes of jsonRpcResult, id %p', (id) => {
    const result = { statusUpdate: { taskId: 't', status: { state: 'TASK_STATE_WORKING', message: { parts: [{ text: 'é\n' }] } } } };
    expect(jsonRpcResultText(id, JSON.stringify(result))).toBe(JSON.stringify(jsonRpcResult(id, result)));
  });

  it('jsonRpcError', () => {
    expect(jsonRpcError(null, new InvalidRequestError())).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Request payload validation error' },
    });
    expect(jsonRpcError(7, new TaskNotFoundError()).error.data?.[0]).toMatchObject({ reason: 'TASK_NOT_FOUND' });
  });
});
