/** The HTTP+JSON route table (spec digest §2.3.1–§2.3.3). */
import { describe, expect, it } from '@jest/globals';
import { decode } from './codec.js';
import { InvalidParamsError, MethodNotAllowedError, MethodNotFoundError } from './errors.js';
import { OPERATIONS, type A2AOperation } from './operations.js';
import { REST_ROUTES, matchRestRoute, restParams, type RestMatch } from './rest-routes.js';
import { thrown } from '../testing/thrown.js';


interface RouteRow {
  operation: A2AOperation;
  method: string;
  path: string;
  pathParams: Record<string, string>;
}

/** Digest §2.3.1, with sample values for the path variables. */
const ROUTES: RouteRow[] = [
  { operation: 'SendMessage', method: 'POST', path: '/message:send', pathParams: {} },
  { operation: 'SendStreamingMessage', method: 'POST', path: '/message:stream', pathParams: {} },
  { operation: 'GetTask', method: 'GET', path: '/tasks/task-1', pathParams: { id: 'task-1' } },
  { operation: 'ListTasks', method: 'GET', path: '/tasks', pathParams: {} },
  { operation: 'CancelTask', method: 'POST', path: '/tasks/task-1:cancel', pathParams: { id: 'task-1' } },
  { operation: 'SubscribeToTask', method: 'POST', path: '/tasks/task-1:subscribe', pathParams: { id: 'task-1' } },
  { operation: 'SubscribeToTask', method: 'GET', path: '/tasks/task-1:subscribe', pathParams: { id: 'task-1' } },
  { operation: 'CreateTaskPushNotificationConfig', method: 'POST', path: '/tasks/task-1/pushNotificationConfigs', pathParams: { taskId: 'task-1' } },
  { operation: 'GetTaskPushNotificationConfig', method: 'GET', path: '/tasks/task-1/pushNotificationConfigs/cfg-1', pathParams: { taskId: 'task-1', id: 'cfg-1' } },
  { operation: 'ListTaskPushNotificationConfigs', method: 'GET', path: '/tasks/task-1/pushNotificationConfigs', pathParams: { taskId: 'task-1' } },
  { operation: 'DeleteTaskPushNotificationConfig', method: 'DELETE', path: '/tasks/task-1/pushNotificationConfigs/cfg-1', pathParams: { taskId: 'task-1', id: 'cfg-1' } },
  { operation: 'GetExtendedAgentCard', method: 'GET', path: '/extendedAgentCard', pathParams: {} },
];

describe('REST_ROUTES', () => {
  it('is the digest §2.3.1 table (SubscribeToTask under both GET and POST)', () => {
    const table = REST_ROUTES.map((r) => `${r.method} ${r.path} ${r.operation}`).sort();
    expect(table).toEqual(
      [
        'POST /message:send SendMessage',
        'POST /message:stream SendStreamingMessage',
        'GET /tasks/{id} GetTask',
        'GET /tasks ListTasks',
        'POST /tasks/{id}:cancel CancelTask',
        'POST /tasks/{id}:subscribe SubscribeToTask',
        'GET /tasks/{id}:subscribe SubscribeToTask',
        'POST /tasks/{taskId}/pushNotificationConfigs CreateTaskPushNotificationConfig',
        'GET /tasks/{taskId}/pushNotificationConfigs/{id} GetTaskPushNotificationConfig',
        'GET /tasks/{taskId}/pushNotificationConfigs ListTaskPushNotificationConfigs',
        'DELETE /tasks/{taskId}/pushNotificationConfigs/{id} DeleteTaskPushNotificationConfig',
        'GET /extendedAgentCard GetExtendedAgentCard',
      ].sort(),
    );
  });

  it.each(REST_ROUTES)('$method $path: body "*" exactly for POST', (route) => {
    expect(route.body).toBe(route.method === 'POST' ? '*' : 'none');
  });
});

describe('matchRestRoute', () => {
  it.each(ROUTES)('$method $path → $operation', ({ operation, method, path, pathParams }) => {
    const match = matchRestRoute(method, path);
    expect(match.route.operation).toBe(operation);
    expect(match.route.method).toBe(method);
    expect(match.pathParams).toEqual(pathParams);
  });

  it.each(ROUTES)('$method /acme$path → $operation with tenant "acme"', ({ operation, method, path, pathParams }) => {
    const match = matchRestRoute(method, `/acme${path}`);
    expect(match.route.operation).toBe(operation);
    expect(match.pathParams).toEqual({ tenant: 'acme', ...pathParams });
  });

  it.each([
    { method: 'GET', path: '/tasks/', operation: 'ListTasks' },
    { method: 'GET', path: '/tasks/task-1/', operation: 'GetTask' },
    { method: 'POST', path: '/message:send/', operation: 'SendMessage' },
  ])('a trailing slash is tolerated: $method $path', ({ method, path, operation }) => {
    expect(matchRestRoute(method, path).route.operation).toBe(operation);
  });

  it('GET /tasks/abc:cancel is not read as GetTask of "abc:cancel": 405 with Allow POST', () => {
    const error = thrown(() => matchRestRoute('GET', '/tasks/abc:cancel'));
    expect(error).toBeInstanceOf(MethodNotAllowedError);
    expect((error as MethodNotAllowedError).httpStatus).toBe(405);
    expect((error as MethodNotAllowedError).metadata).toEqual({ allow: 'POST' });
  });

  it.each([
    { method: 'PUT', path: '/message:send', allow: 'POST' },
    { method: 'GET', path: '/message:stream', allow: 'POST' },
    { method: 'POST', path: '/tasks', allow: 'GET' },
    { method: 'DELETE', path: '/tasks/task-1', allow: 'GET' },
    { method: 'DELETE', path: '/tasks/task-1:subscribe', allow: 'POST, GET' },
    { method: 'PATCH', path: '/tasks/task-1/pushNotificationConfigs/cfg-1', allow: 'GET, DELETE' },
    { method: 'DELETE', path: '/tasks/task-1/pushNotificationConfigs', allow: 'POST, GET' },
    { method: 'POST', path: '/extendedAgentCard', allow: 'GET' },
    { method: 'GET', path: '/acme/tasks/task-1:cancel', allow: 'POST' },
  ])('$method $path → MethodNotAllowedError, allow "$allow"', ({ method, path, allow }) => {
    const error = thrown(() => matchRestRoute(method, path));
    expect(error).toBeInstanceOf(MethodNotAllowedError);
    expect((error as MethodNotAllowedError).metadata.allow).toBe(allow);
    expect((error as MethodNotAllowedError).message).toContain(allow);
  });

  it.each([
    { method: 'GET', path: '/' },
    { method: 'GET', path: '' },
    { method: 'POST', path: '/message:sned' },
    { method: 'POST', path: '/message' },
    { method: 'GET', path: '/tasks/a/b' },
    { method: 'GET', path: '/tasks/a/pushNotificationConfigs/b/c' },
    { method: 'POST', path: '/tasks/a:pause' },
    { method: 'GET', path: '/card' },
    { method: 'GET', path: '/a/b/tasks' },
    { method: 'GET', path: '/.well-known/agent-card.json' },
  ])('unknown path $method "$path" → MethodNotFoundError', ({ method, path }) => {
    const error = thrown(() => matchRestRoute(method, path));
    expect(error).toBeInstanceOf(MethodNotFoundError);
    expect((error as MethodNotFoundError).httpStatus).toBe(404);
    expect((error as MethodNotFoundError).jsonRpcCode).toBe(-32601);
  });

  it('the error message for a long unknown path is cut', () => {
    const error = thrown(() => matchRestRoute('GET', `/${'x'.repeat(5000)}/y/z`)) as MethodNotFoundError;
    expect(error.message.length).toBeLessThan(300);
  });

  it.each([
    { path: '/tasks/a%20b', params: { id: 'a b' } },
    { path: '/tasks/a%2Fb', params: { id: 'a/b' } },
    { path: '/tasks/a%3Ab', params: { id: 'a:b' } },
    { path: '/tasks/%E2%9C%93', params: { id: '✓' } },
    { path: '/tasks/a%2Fb:cancel', params: { id: 'a/b' } },
    { path: '/my%20tenant/tasks/t%231/pushNotificationConfigs/c%3F1', params: { tenant: 'my tenant', taskId: 't#1', id: 'c?1' } },
  ])('percent-decodes path params: $path', ({ path, params }) => {
    const method = path.endsWith(':cancel') ? 'POST' : 'GET';
    expect(matchRestRoute(method, path).pathParams).toEqual(params);
  });

  it.each([
    { path: '/tasks/%E0%A4%A', field: 'id' },
    { path: '/tasks/%zz', field: 'id' },
    { path: '/tasks/%C0%AF', field: 'id' },
    { path: '/ten%ant/tasks', field: 'tenant' },
    { path: '/tasks/t1/pushNotificationConfigs/%', field: 'id' },
  ])('bad percent-encoding in $path → InvalidParamsError on $field', ({ path, field }) => {
    const error = thrown(() => matchRestRoute('GET', path));
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as InvalidParamsError).fieldViolations).toEqual([{ field, description: 'is not valid percent-encoding' }]);
  });
});

describe('restParams', () => {
  const match = (method: string, path: string): RestMatch => matchRestRoute(method, path);

  it.each([
    {
      name: 'SendMessage: body fields',
      m: ['POST', '/message:send'],
      query: {},
      body: { message: { messageId: 'm' }, configuration: { returnImmediately: true } },
      expected: { message: { messageId: 'm' }, configuration: { returnImmediately: true } },
    },
    {
      name: 'tenant from the path wins over body and query',
      m: ['POST', '/acme/message:send'],
      query: { tenant: 'query-tenant' },
      body: { tenant: 'body-tenant', message: {} },
      expected: { tenant: 'acme', message: {} },
    },
    {
      name: 'CancelTask: id from the path wins over the body',
      m: ['POST', '/tasks/task-1:cancel'],
      query: {},
      body: { id: 'other', metadata: { reason: 'user' } },
      expected: { id: 'task-1', metadata: { reason: 'user' } },
    },
    {
      name: 'query wins over body, path over both',
      m: ['POST', '/tasks/task-1/pushNotificationConfigs'],
      query: { token: 'q' },
      body: { taskId: 'body', token: 'b', url: 'https://hook' },
      expected: { taskId: 'task-1', token: 'q', url: 'https://hook' },
    },
    {
      name: 'CreateTaskPushNotificationConfig: taskId from the path',
      m: ['POST', '/acme/tasks/task-1/pushNotificationConfigs'],
      query: {},
      body: { url: 'https://hook', authentication: { scheme: 'Bearer', credentials: 'c' } },
      expected: { tenant: 'acme', taskId: 'task-1', url: 'https://hook', authentication: { scheme: 'Bearer', credentials: 'c' } },
    },
    {
      name: 'SubscribeToTask POST with no body',
      m: ['POST', '/tasks/task-1:subscribe'],
      query: {},
      body: undefined,
      expected: { id: 'task-1' },
    },
    {
      name: 'SubscribeToTask POST with {}',
      m: ['POST', '/tasks/task-1:subscribe'],
      query: {},
      body: {},
      expected: { id: 'task-1' },
    },
    {
      name: 'GetTask: query historyLength stays a string for the codec',
      m: ['GET', '/tasks/task-1'],
      query: { historyLength: '5' },
      body: undefined,
      expected: { id: 'task-1', historyLength: '5' },
    },
    {
      name: 'GET route ignores a body',
      m: ['GET', '/tasks/task-1'],
      query: {},
      body: { id: 'x', historyLength: 1 },
      expected: { id: 'task-1' },
    },
    {
      name: 'GET route ignores even a non-object body',
      m: ['GET', '/tasks'],
      query: {},
      body: 'text',
      expected: {},
    },
    {
      name: 'ListTasks: query params of §2.3.3, booleans converted',
      m: ['GET', '/tasks'],
      query: {
        contextId: 'ctx-1',
        status: 'TASK_STATE_WORKING',
        pageSize: '10',
        pageToken: 'abc',
        historyLength: '0',
        statusTimestampAfter: '2025-11-09T10:30:00Z',
        includeArtifacts: 'true',
      },
      body: undefined,
      expected: {
        contextId: 'ctx-1',
        status: 'TASK_STATE_WORKING',
        pageSize: '10',
        pageToken: 'abc',
        historyLength: '0',
        statusTimestampAfter: '2025-11-09T10:30:00Z',
        includeArtifacts: true,
      },
    },
    {
      name: 'includeArtifacts=false',
      m: ['GET', '/tasks'],
      query: { includeArtifacts: 'false' },
      body: undefined,
      expected: { includeArtifacts: false },
    },
    {
      name: 'includeArtifacts=yes is left for the codec to refuse',
      m: ['GET', '/tasks'],
      query: { includeArtifacts: 'yes' },
      body: undefined,
      expected: { includeArtifacts: 'yes' },
    },
    {
      name: 'a string field holding "true" is not converted',
      m: ['GET', '/tasks'],
      query: { contextId: 'true', pageToken: 'false' },
      body: undefined,
      expected: { contextId: 'true', pageToken: 'false' },
    },
    {
      name: 'a repeated query parameter: the last value',
      m: ['GET', '/tasks'],
      query: { contextId: ['a', 'b'], includeArtifacts: ['false', 'true'] },
      body: undefined,
      expected: { contextId: 'b', includeArtifacts: true },
    },
    {
      name: 'ListTaskPushNotificationConfigs: pageSize and pageToken from the query',
      m: ['GET', '/tasks/task-1/pushNotificationConfigs'],
      query: { pageSize: '20', pageToken: 'n' },
      body: undefined,
      expected: { taskId: 'task-1', pageSize: '20', pageToken: 'n' },
    },
    {
      name: 'DeleteTaskPushNotificationConfig: ids from the path, query tenant on the un-prefixed route',
      m: ['DELETE', '/tasks/task-1/pushNotificationConfigs/cfg-1'],
      query: { tenant: 'acme' },
      body: undefined,
      expected: { taskId: 'task-1', id: 'cfg-1', tenant: 'acme' },
    },
  ])('$name', ({ m, query, body, expected }) => {
    expect(restParams(match(m[0], m[1]), query, body)).toEqual(expected);
  });

  it.each([
    { name: 'a string', body: 'hello' },
    { name: 'an array', body: [{ message: {} }] },
    { name: 'a number', body: 42 },
    { name: 'null', body: null },
  ])('a body route refuses $name as body', ({ body }) => {
    const error = thrown(() => restParams(match('POST', '/message:send'), {}, body));
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as InvalidParamsError).fieldViolations).toEqual([{ field: '(body)', description: 'must be a JSON object' }]);
  });
});

describe('query parameters through the codec (digest §2.3.3, §5.4, §5.9)', () => {
  const decodeQuery = (method: string, path: string, query: Record<string, unknown>): unknown => {
    const match = matchRestRoute(method, path);
    return decode(OPERATIONS[match.route.operation].request, restParams(match, query, undefined));
  };

  it.each([
    {
      name: 'every ListTasks query field',
      path: '/tasks',
      query: {
        contextId: 'ctx-1',
        status: 'TASK_STATE_WORKING',
        pageSize: '10',
        pageToken: 'abc',
        historyLength: '0',
        statusTimestampAfter: '2025-11-09T10:30:00Z',
        includeArtifacts: 'false',
      },
      expected: {
        contextId: 'ctx-1',
        status: 'TASK_STATE_WORKING',
        pageSize: 10,
        pageToken: 'abc',
        historyLength: 0,
        statusTimestampAfter: '2025-11-09T10:30:00.000Z',
        includeArtifacts: false,
      },
    },
    { name: 'tenant from the path', path: '/acme/tasks', query: { pageSize: '100' }, expected: { tenant: 'acme', pageSize: 100 } },
    { name: 'GetTask historyLength', path: '/tasks/task-1', query: { historyLength: '3' }, expected: { id: 'task-1', historyLength: 3 } },
    { name: 'A2A-Version as a query parameter is not a request field', path: '/tasks/task-1', query: { 'A2A-Version': '1.0' }, expected: { id: 'task-1' } },
  ])('$name', ({ path, query, expected }) => {
    expect(decodeQuery('GET', path, query)).toEqual(expected);
  });

  it.each([
    { name: 'status=working (the wrong [1.0.0] example)', path: '/tasks', query: { status: 'working' }, field: 'status' },
    { name: 'pageSize=150 (the §6.5 example)', path: '/tasks', query: { pageSize: '150' }, field: 'pageSize' },
    { name: 'pageSize=0', path: '/tasks', query: { pageSize: '0' }, field: 'pageSize' },
    { name: 'historyLength=-5 (the §6.5 example)', path: '/tasks/task-1', query: { historyLength: '-5' }, field: 'historyLength' },
    { name: 'includeArtifacts=1', path: '/tasks', query: { includeArtifacts: '1' }, field: 'includeArtifacts' },
    { name: 'statusTimestampAfter not RFC 3339', path: '/tasks', query: { statusTimestampAfter: 'yesterday' }, field: 'statusTimestampAfter' },
  ])('refuses $name', ({ path, query, field }) => {
    const error = thrown(() => decodeQuery('GET', path, query));
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as InvalidParamsError).fieldViolations.map((v) => v.field)).toEqual([field]);
  });
});
