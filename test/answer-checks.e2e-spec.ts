/** The fuzzer's checker (test/support/answer-checks.ts) itself: it passes well-formed answers and names what is wrong with the others. */
import { describe, expect, it } from '@jest/globals';
import { answerProblems, type Answer } from './support/answer-checks.js';
import type { HostileRequest } from './support/hostile-requests.js';

const rpcRequest = (body: string, headers: Record<string, string> = {}): HostileRequest => ({
  binding: 'JSONRPC',
  method: 'POST',
  path: '/a2a/jsonrpc',
  headers: { 'Content-Type': 'application/json', ...headers },
  body: Buffer.from(body),
  shape: 'json',
});
const restRequest = (method: string, path: string): HostileRequest => ({ binding: 'HTTP+JSON', method, path, headers: {}, shape: 'no body' });
const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: Buffer.from(JSON.stringify(body)),
});
const sse = (...events: string[]): Answer => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: Buffer.from(events.join('')) });

const GET_TASK = '{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":"t"}}';
const NOT_FOUND = { code: -32001, message: 'Task not found', data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }] };
const TASK = { id: 't', status: { state: 'TASK_STATE_WORKING' } };

describe('answerProblems passes', () => {
  it.each<[string, HostileRequest, Answer]>([
    ['a JSON-RPC result with the id', rpcRequest(GET_TASK), json(200, { jsonrpc: '2.0', id: 7, result: TASK })],
    ['a JSON-RPC A2A error with its ErrorInfo', rpcRequest(GET_TASK), json(200, { jsonrpc: '2.0', id: 7, error: NOT_FOUND })],
    ['a parse error with id null', rpcRequest('{"jsonrpc":'), json(200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Invalid JSON payload' } })],
    ['a 401 with its challenge', rpcRequest(GET_TASK), json(401, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'no' } }, { 'www-authenticate': 'ApiKey' })],
    ['the last of duplicate ids', rpcRequest('{"id":1,"jsonrpc":"2.0","id":2,"method":"x"}'), json(200, { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } })],
    [
      'a JSON-RPC stream of StreamResponses',
      rpcRequest('{"jsonrpc":"2.0","id":"s","method":"SubscribeToTask","params":{"id":"t"}}'),
      sse(`id: 1\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 's', result: { task: TASK } })}\n\n`),
    ],
    ['a REST error', restRequest('GET', '/a2a/rest/tasks/x'), json(404, { error: { code: 404, status: 'NOT_FOUND', message: 'Task not found', details: [] } })],
    ['a REST GetTask', restRequest('GET', '/a2a/rest/tasks/x'), json(200, TASK)],
    ['a REST stream ending in an error event', restRequest('GET', '/a2a/rest/tasks/x:subscribe'), sse(`data: {"task":${JSON.stringify(TASK)}}\n\n`, 'event: error\ndata: {"error":{"code":400,"status":"FAILED_PRECONDITION","message":"m","details":[]}}\n\n')],
    ['an echo of what the client sent', rpcRequest('{"jsonrpc":"2.0","id":1,"method":"SECRET-x"}'), json(200, { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found: SECRET-x' } })],
  ])('%s', (_label, request, answer) => {
    expect(answerProblems(request, answer)).toEqual([]);
  });
});

const V03 = { servesV03: true };
const V03_GET = '{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"id":"t"}}';
const V03_TASK = { kind: 'task', id: 't', contextId: 'c', status: { state: 'working' } };

describe('answerProblems passes, from a server serving 0.3 beside 1.0', () => {
  it.each<[string, HostileRequest, Answer]>([
    ['a 0.3 result (kind task) to a request without A2A-Version', rpcRequest(V03_GET), json(200, { jsonrpc: '2.0', id: 7, result: V03_TASK })],
    ['a 0.3 error with a free-form data', rpcRequest(V03_GET), json(200, { jsonrpc: '2.0', id: 7, error: { code: -32001, message: 'm', data: { reason: 'TASK_NOT_FOUND' } } })],
    ['a 0.3 error without data', rpcRequest(GET_TASK, { 'A2A-Version': '0.3' }), json(200, { jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found: GetTask' } })],
    ['a 1.0 answer to a request with A2A-Version: 1.0', rpcRequest(GET_TASK, { 'A2A-Version': '1.0' }), json(200, { jsonrpc: '2.0', id: 7, result: TASK })],
    [
      'a 0.3 stream of kinds',
      rpcRequest('{"jsonrpc":"2.0","id":"s","method":"tasks/resubscribe","params":{"id":"t"}}'),
      sse(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 's', result: V03_TASK })}

`, `data: ${JSON.stringify({ jsonrpc: '2.0', id: 's', result: { kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'completed' }, final: true } })}

`),
    ],
    ['a 0.3 REST error body', restRequest('GET', '/a2a/rest/v1/tasks/x'), json(404, { code: -32001, message: 'Task not found' })],
    ['a 0.3 REST create (201)', restRequest('POST', '/a2a/rest/v1/message:send'), json(201, { message: { messageId: 'm', role: 'ROLE_AGENT', content: [] } })],
    ['a 0.3 REST delete (204)', restRequest('DELETE', '/a2a/rest/v1/tasks/t/pushNotificationConfigs/c'), { status: 204, headers: {}, body: Buffer.alloc(0) }],
  ])('%s', (_label, request, answer) => {
    expect(answerProblems(request, answer, V03)).toEqual([]);
  });
});

describe('answerProblems flags, from a server serving 0.3 beside 1.0', () => {
  it.each<[string, HostileRequest, Answer, RegExp]>([
    ['a 1.0 error body where 0.3 is due', rpcRequest(V03_GET), json(200, { jsonrpc: '2.0', id: 7, error: NOT_FOUND }), /not an object/],
    ['a 1.0 result where 0.3 is due', rpcRequest(V03_GET), json(200, { jsonrpc: '2.0', id: 7, result: TASK }), /tasks\/get result/],
    ['a 0.3 result where 1.0 is due', rpcRequest(GET_TASK, { 'A2A-Version': '1.0' }), json(200, { jsonrpc: '2.0', id: 7, error: { code: -32001, message: 'm', data: { reason: 'TASK_NOT_FOUND' } } }), /not an array/],
    ['a reason that is not the code\'s', rpcRequest(V03_GET), json(200, { jsonrpc: '2.0', id: 7, error: { code: -32001, message: 'm', data: { reason: 'UNSUPPORTED_OPERATION' } } }), /with reason/],
    ['an internal 0.3 error', rpcRequest(V03_GET), json(200, { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Internal error' } }), /internal error/],
    ['a 0.3 stream event without a kind', rpcRequest('{"jsonrpc":"2.0","id":"s","method":"message/stream","params":{}}'), sse(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 's', result: { task: TASK } })}

`), /not a 0.3 stream event/],
    ['a 1.0 REST error body where 0.3 is due', restRequest('GET', '/a2a/rest/v1/tasks/x'), json(404, { error: { code: 404, status: 'NOT_FOUND', message: 'm', details: [] } }), /unexpected error members error/],
    ['a 204 that is not a delete', restRequest('GET', '/a2a/rest/v1/tasks/x'), { status: 204, headers: {}, body: Buffer.alloc(0) }, /no body/],
  ])('%s', (_label, request, answer, problem) => {
    expect(answerProblems(request, answer, V03).join('; ')).toMatch(problem);
  });
});

describe('answerProblems flags', () => {
  it.each<[string, HostileRequest, Answer, RegExp]>([
    ["Nest's own error shape", restRequest('GET', '/a2a/rest/'), json(404, { message: 'Cannot GET /a2a/rest/', error: 'Not Found', statusCode: 404 }), /not a \{"error"/],
    ['a 500', restRequest('GET', '/a2a/rest/tasks/x'), json(500, { error: { code: 500, status: 'INTERNAL', message: 'Internal error', details: [] } }), /5xx/],
    ['an internal JSON-RPC error', rpcRequest(GET_TASK), json(200, { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Internal error' } }), /internal error/],
    ['another id', rpcRequest(GET_TASK), json(200, { jsonrpc: '2.0', id: 8, error: NOT_FOUND }), /instead of the request's 7/],
    ['an A2A code without its ErrorInfo', rpcRequest(GET_TASK), json(200, { jsonrpc: '2.0', id: 7, error: { code: -32001, message: 'm' } }), /without an ErrorInfo/],
    ['details without @type', rpcRequest(GET_TASK), json(200, { jsonrpc: '2.0', id: 7, error: { ...NOT_FOUND, data: [{ reason: 'TASK_NOT_FOUND' }] } }), /without "@type"/],
    ['a REST code that is not its status', restRequest('GET', '/a2a/rest/tasks/x'), json(400, { error: { code: 404, status: 'NOT_FOUND', message: 'm', details: [] } }), /not the HTTP status/],
    ['a 401 without a challenge', restRequest('GET', '/a2a/rest/tasks/x'), json(401, { error: { code: 401, status: 'UNAUTHENTICATED', message: 'm', details: [] } }), /WWW-Authenticate/],
    ['a stack trace', restRequest('GET', '/a2a/rest/tasks/x'), json(400, { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'at Foo.bar (/work/x/y.ts:1:2)', details: [] } }), /leaks/],
    ['a result that is not a Task', rpcRequest(GET_TASK), json(200, { jsonrpc: '2.0', id: 7, result: { id: 't' } }), /GetTask result/],
    ['a stream event that is not a StreamResponse', restRequest('GET', '/a2a/rest/tasks/x:subscribe'), sse('data: {"nope":1}\n\n'), /not a StreamResponse/],
    ['an error that is not marked event: error', restRequest('GET', '/a2a/rest/tasks/x:subscribe'), sse('data: {"error":{"code":400,"status":"INVALID_ARGUMENT","message":"m","details":[]}}\n\n'), /event: error/],
  ])('%s', (_label, request, answer, problem) => {
    expect(answerProblems(request, answer).join('; ')).toMatch(problem);
  });
});
