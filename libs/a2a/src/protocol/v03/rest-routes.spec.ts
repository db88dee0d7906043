/** The 0.3 REST binding: its routes, and every operation both ways in the 0.3 proto's JSON. */
import { describe, expect, it } from '@jest/globals';
import { thrown } from '../../testing/thrown.js';
import { InvalidParamsError, MethodNotAllowedError, MethodNotFoundError } from '../errors.js';
import type { AgentCard, Task, TaskPushNotificationConfig } from '../types.js';
import type { V03Operation, V03OperationTypes } from './json-rpc-methods.js';
import { matchV03RestRoute, v03RestCodecOf, type V03RestCall, type V03RestCodec } from './rest-routes.js';

function codec<Op extends V03Operation>(operation: Op): V03RestCodec<Op> {
  return v03RestCodecOf(operation) as unknown as V03RestCodec<Op>;
}

/** What a server receives for a client's call: the path it matches, the query, the body. */
function received(call: V03RestCall) {
  const path = call.route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(call.pathParams[name]));
  const match = matchV03RestRoute(call.route.method, path);
  expect(match.route).toBe(call.route);
  return { pathParams: match.pathParams, query: call.query, body: call.body === undefined ? undefined : JSON.parse(JSON.stringify(call.body)) };
}

const TASK: Task = {
  id: 'task-1',
  contextId: 'ctx-1',
  status: { state: 'TASK_STATE_CANCELED', timestamp: '2026-03-12T10:00:00.000Z', message: { messageId: 'm2', role: 'ROLE_AGENT', parts: [{ text: 'stopped' }] } },
  artifacts: [{ artifactId: 'a', parts: [{ text: 'x' }, { raw: 'aGk=', mediaType: 'text/plain' }, { url: 'https://f.example/a', mediaType: 'image/png' }, { data: { n: 1 } }] }],
  history: [{ messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }], taskId: 'task-1', contextId: 'ctx-1' }],
  metadata: { k: 'v' },
};

const PROTO_TASK = {
  id: 'task-1',
  contextId: 'ctx-1',
  status: { state: 'TASK_STATE_CANCELLED', message: { messageId: 'm2', role: 'ROLE_AGENT', content: [{ text: 'stopped' }] }, timestamp: '2026-03-12T10:00:00.000Z' },
  artifacts: [{ artifactId: 'a', parts: [{ text: 'x' }, { file: { fileWithBytes: 'aGk=', mimeType: 'text/plain' } }, { file: { fileWithUri: 'https://f.example/a', mimeType: 'image/png' } }, { data: { data: { n: 1 } } }] }],
  history: [{ messageId: 'm1', contextId: 'ctx-1', taskId: 'task-1', role: 'ROLE_USER', content: [{ text: 'hi' }] }],
  metadata: { k: 'v' },
};

const PUSH: TaskPushNotificationConfig = { taskId: 'task-1', id: 'cfg-1', url: 'https://hooks.example/a2a', token: 'tok', authentication: { scheme: 'Bearer', credentials: 's' } };
const PROTO_PUSH = {
  name: 'tasks/task-1/pushNotificationConfigs/cfg-1',
  pushNotificationConfig: { id: 'cfg-1', url: 'https://hooks.example/a2a', token: 'tok', authentication: { schemes: ['Bearer'], credentials: 's' } },
};

describe('routes', () => {
  it.each<[string, string, V03Operation, Record<string, string>]>([
    ['POST', '/v1/message:send', 'SendMessage', {}],
    ['POST', '/v1/message:stream', 'SendStreamingMessage', {}],
    ['GET', '/v1/card', 'GetExtendedAgentCard', {}],
    ['GET', '/v1/tasks/t%201', 'GetTask', { id: 't 1' }],
    ['POST', '/v1/tasks/t1:cancel', 'CancelTask', { id: 't1' }],
    ['POST', '/v1/tasks/t1:subscribe', 'SubscribeToTask', { id: 't1' }],
    ['GET', '/v1/tasks/t1:subscribe', 'SubscribeToTask', { id: 't1' }],
    ['POST', '/v1/tasks/t1/pushNotificationConfigs', 'CreateTaskPushNotificationConfig', { taskId: 't1' }],
    ['GET', '/v1/tasks/t1/pushNotificationConfigs', 'ListTaskPushNotificationConfigs', { taskId: 't1' }],
    ['GET', '/v1/tasks/t1/pushNotificationConfigs/c1', 'GetTaskPushNotificationConfig', { taskId: 't1', id: 'c1' }],
    ['DELETE', '/v1/tasks/t1/pushNotificationConfigs/c1/', 'DeleteTaskPushNotificationConfig', { taskId: 't1', id: 'c1' }],
  ])('%s %s → %s', (method, path, operation, pathParams) => {
    expect(matchV03RestRoute(method, path)).toEqual({ route: expect.objectContaining({ operation }), pathParams });
  });

  it('1.0 paths, tenants and ListTasks are not 0.3 routes; a known path with another verb is not allowed', () => {
    for (const [method, path] of [['POST', '/message:send'], ['GET', '/tasks/t1'], ['GET', '/acme/v1/tasks/t1'], ['GET', '/v1/tasks'], ['GET', '/v1/extendedAgentCard']]) {
      expect(thrown(() => matchV03RestRoute(method, path))).toBeInstanceOf(MethodNotFoundError);
    }
    expect(thrown(() => matchV03RestRoute('DELETE', '/v1/tasks/t1'))).toBeInstanceOf(MethodNotAllowedError);
  });

  it('has no codec for ListTasks', () => {
    expect(v03RestCodecOf('ListTasks')).toBeUndefined();
  });
});

describe('requests: the client writes, the server reads the same 1.0 request back', () => {
  it.each<[V03Operation, V03OperationTypes[V03Operation]['request'], Partial<V03RestCall>]>([
    [
      'SendMessage',
      { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }, { url: 'https://f.example/x', mediaType: 'image/png' }], contextId: 'c' }, configuration: { historyLength: 2, acceptedOutputModes: ['text/plain'] }, metadata: { a: 1 } },
      { body: { message: { messageId: 'm', contextId: 'c', role: 'ROLE_USER', content: [{ text: 'hi' }, { file: { fileWithUri: 'https://f.example/x', mimeType: 'image/png' } }] }, configuration: { acceptedOutputModes: ['text/plain'], historyLength: 2, blocking: true }, metadata: { a: 1 } } },
    ],
    [
      'SendStreamingMessage',
      { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { q: 1 } }] }, configuration: { returnImmediately: true, taskPushNotificationConfig: { url: 'https://h.example', authentication: { scheme: 'Basic' } } } },
      { body: { message: { messageId: 'm', role: 'ROLE_USER', content: [{ data: { data: { q: 1 } } }] }, configuration: { pushNotification: { url: 'https://h.example', authentication: { schemes: ['Basic'] } }, blocking: false } } },
    ],
    ['GetTask', { id: 't/1', historyLength: 3 }, { pathParams: { id: 't/1' }, query: { historyLength: '3' } }],
    ['CancelTask', { id: 't1' }, { pathParams: { id: 't1' }, body: { name: 'tasks/t1' } }],
    ['SubscribeToTask', { id: 't1' }, { pathParams: { id: 't1' }, body: { name: 'tasks/t1' } }],
    [
      'CreateTaskPushNotificationConfig',
      PUSH,
      { pathParams: { taskId: 'task-1' }, body: { parent: 'tasks/task-1', configId: 'cfg-1', config: PROTO_PUSH, ...PROTO_PUSH } },
    ],
    ['GetTaskPushNotificationConfig', { taskId: 't1', id: 'c1' }, { pathParams: { taskId: 't1', id: 'c1' }, query: {} }],
    ['ListTaskPushNotificationConfigs', { taskId: 't1' }, { pathParams: { taskId: 't1' } }],
    ['DeleteTaskPushNotificationConfig', { taskId: 't1', id: 'c1' }, { pathParams: { taskId: 't1', id: 'c1' } }],
    ['GetExtendedAgentCard', {}, { pathParams: {} }],
  ])('%s', (operation, request, expected) => {
    const rest = codec(operation) as V03RestCodec;
    const sent = rest.requestToV03(request as never);
    expect(sent).toMatchObject(expected);
    expect(rest.requestFromV03(received(sent))).toEqual(request);
  });

  it('a send without configuration says blocking: true (1.0 waits)', () => {
    expect(codec('SendMessage').requestToV03({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }).body).toMatchObject({ configuration: { blocking: true } });
  });

  it('the server reads what the a2a-js 0.3 client sends: the bare config, `request` for the message, snake_case query', () => {
    const create = codec('CreateTaskPushNotificationConfig').requestFromV03({ pathParams: { taskId: 't1' }, query: {}, body: { name: 'tasks/t1/pushNotificationConfigs/', pushNotificationConfig: { url: 'https://h.example' } } });
    expect(create).toEqual({ taskId: 't1', id: 't1', url: 'https://h.example' });
    const send = codec('SendMessage').requestFromV03({ pathParams: {}, query: {}, body: { request: { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'hi' }] } } });
    expect(send).toMatchObject({ message: { messageId: 'm', parts: [{ text: 'hi' }] }, configuration: { returnImmediately: true } });
    expect(codec('GetTask').requestFromV03({ pathParams: { id: 't' }, query: { history_length: '2' }, body: undefined })).toEqual({ id: 't', historyLength: 2 });
  });

  it('and what its server reads: { parent, configId, config }', () => {
    const create = codec('CreateTaskPushNotificationConfig').requestFromV03({ pathParams: { taskId: 't1' }, query: {}, body: { parent: 'tasks/t1', configId: 'c9', config: { pushNotificationConfig: { url: 'https://h.example' } } } });
    expect(create).toEqual({ taskId: 't1', id: 'c9', url: 'https://h.example' });
  });

  it('refuses bad bodies and queries, naming the fields', () => {
    const send = thrown(() => codec('SendMessage').requestFromV03({ pathParams: {}, query: {}, body: { message: { messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } } })) as InvalidParamsError;
    expect(send.fieldViolations).toEqual([
      { field: 'message.role', description: 'must be one of ROLE_UNSPECIFIED, ROLE_USER, ROLE_AGENT' },
      { field: 'message.content', description: 'is required and must not be empty' },
    ]);
    const get = thrown(() => codec('GetTask').requestFromV03({ pathParams: { id: 't' }, query: { historyLength: 'all' }, body: undefined })) as InvalidParamsError;
    expect(get.fieldViolations).toEqual([{ field: 'historyLength', description: 'must be an integer' }]);
    const create = thrown(() => codec('CreateTaskPushNotificationConfig').requestFromV03({ pathParams: { taskId: 't' }, query: {}, body: {} })) as InvalidParamsError;
    expect(create.fieldViolations).toEqual([{ field: 'config', description: 'is required (or a bare pushNotificationConfig)' }]);
  });
});

describe('results: the server writes the proto JSON, the client reads it back', () => {
  it('a Task: TASK_STATE_CANCELLED, content, fileWithBytes / fileWithUri, data.data', () => {
    const rest = codec('GetTask');
    expect(rest.resultToV03(TASK)).toStrictEqual(PROTO_TASK);
    expect(rest.resultFromV03(PROTO_TASK)).toEqual(TASK);
    expect(codec('CancelTask').resultFromV03({ ...PROTO_TASK, status: { state: 'TASK_STATE_UNSPECIFIED', update: PROTO_TASK.status.message } })).toMatchObject({
      status: { state: 'TASK_STATE_UNSPECIFIED', message: { messageId: 'm2' } },
    });
  });

  it('SendMessage: { task } or { message } (also read as `msg`)', () => {
    const rest = codec('SendMessage');
    expect(rest.resultToV03({ task: TASK })).toStrictEqual({ task: PROTO_TASK });
    const message = TASK.history![0];
    expect(rest.resultToV03({ message })).toStrictEqual({ message: PROTO_TASK.history[0] });
    expect(rest.resultFromV03({ msg: PROTO_TASK.history[0] })).toEqual({ message });
  });

  it('stream events: final is written when true, left out when false, and absent reads as false', () => {
    const rest = codec('SendStreamingMessage');
    const done = { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' as const } } };
    const working = { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' as const } } };
    expect(rest.resultToV03(done)).toEqual({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' }, final: true } });
    expect(rest.resultToV03(working)).toEqual({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } });
    expect(rest.resultFromV03({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } })).toEqual(working);
    const artifact = { artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'x' }] }, append: true, lastChunk: true } };
    expect(rest.resultFromV03(rest.resultToV03(artifact))).toEqual(artifact);
    expect(rest.resultFromV03({ task: PROTO_TASK })).toEqual({ task: TASK });
  });

  it('push configs: named tasks/{taskId}/pushNotificationConfigs/{id}; a list; delete has no body', () => {
    expect(codec('GetTaskPushNotificationConfig').resultToV03(PUSH)).toStrictEqual(PROTO_PUSH);
    expect(codec('CreateTaskPushNotificationConfig').resultFromV03(PROTO_PUSH)).toEqual(PUSH);
    expect(codec('ListTaskPushNotificationConfigs').resultToV03({ configs: [PUSH] })).toStrictEqual({ configs: [PROTO_PUSH] });
    expect(codec('ListTaskPushNotificationConfigs').resultFromV03({ configs: [PROTO_PUSH], nextPageToken: '' })).toEqual({ configs: [PUSH] });
    expect(codec('ListTaskPushNotificationConfigs').resultFromV03({})).toEqual({ configs: [] });
    expect(codec('DeleteTaskPushNotificationConfig').resultToV03({})).toBeUndefined();
    const bad = thrown(() => codec('GetTaskPushNotificationConfig').resultFromV03({ ...PROTO_PUSH, name: 'configs/1' })) as InvalidParamsError;
    expect(bad.fieldViolations).toEqual([{ field: 'name', description: 'must be tasks/{taskId}/pushNotificationConfigs/{configId}' }]);
  });

  it('the extended card: the hybrid card with its security in the proto form, read back as 1.0', () => {
    const card: AgentCard = {
      name: 'a',
      description: 'd',
      version: '1',
      supportedInterfaces: [{ url: 'https://a.example/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' }],
      capabilities: { streaming: true },
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
      securityRequirements: [{ schemes: { bearer: { list: ['read'] } } }],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 'S', description: 'S', tags: ['t'], securityRequirements: [{ schemes: { bearer: {} } }] }],
    };
    const wire = codec('GetExtendedAgentCard').resultToV03(card) as Record<string, unknown>;
    expect(wire).toMatchObject({ url: 'https://a.example/rest', preferredTransport: 'HTTP+JSON', securitySchemes: card.securitySchemes, security: card.securityRequirements, skills: [{ security: [{ schemes: { bearer: {} } }] }] });
    expect(codec('GetExtendedAgentCard').resultFromV03(wire)).toEqual({ ...card, capabilities: { streaming: true } });
  });
});
