/**
 * Every 0.3 JSON-RPC method, both ways, fed with the examples of the 0.3 specification: a server
 * reads the 0.3 params into the 1.0 request and writes the 1.0 result as 0.3; a client does the
 * reverse. Results written as 0.3 are also assigned to the official 0.3 SDK's own types
 * (`a2a-sdk-v03`, `@a2a-js/sdk` 0.3.14), so `tsc` proves their shape.
 */
import { describe, expect, it } from '@jest/globals';
import type * as Sdk from 'a2a-sdk-v03';
import { thrown } from '../../testing/thrown.js';
import { InvalidParamsError, type FieldViolation } from '../errors.js';
import type { A2AOperation } from '../operations.js';
import type { AgentCard, StreamResponse, Task, TaskPushNotificationConfig } from '../types.js';
import { V03_JSON_RPC_METHODS, v03Method, v03MethodOf, type V03MethodSpec } from './json-rpc-methods.js';
import * as E from './testing/v03-examples.js';
import * as X from './translate.js';

function method(name: string): V03MethodSpec {
  const spec = v03Method(name);
  if (spec === undefined) throw new Error(`no method ${name}`);
  return spec;
}

function violations(fn: () => unknown): FieldViolation[] {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(InvalidParamsError);
  return (error as InvalidParamsError).fieldViolations;
}

const TASK: Task = {
  id: 'task-1',
  contextId: 'ctx-1',
  status: { state: 'TASK_STATE_WORKING', timestamp: '2026-03-12T10:00:00.000Z', message: { messageId: 'm2', role: 'ROLE_AGENT', parts: [{ text: 'on it' }], taskId: 'task-1', contextId: 'ctx-1' } },
  artifacts: [
    { artifactId: 'a1', name: 'report', parts: [{ text: 'hello' }, { raw: 'aGk=', mediaType: 'text/plain', filename: 'hi.txt' }, { url: 'https://files.example/x.png', mediaType: 'image/png' }] },
    { artifactId: 'a2', parts: [{ data: { rows: 2 } }, { data: [1, 2] }, { data: 'plain' }] },
  ],
  history: [{ messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }], taskId: 'task-1', contextId: 'ctx-1', referenceTaskIds: ['task-0'], extensions: ['urn:x'] }],
  metadata: { trace: 'abc' },
};

const V03_TASK = {
  kind: 'task',
  id: 'task-1',
  contextId: 'ctx-1',
  status: {
    state: 'working',
    timestamp: '2026-03-12T10:00:00.000Z',
    message: { kind: 'message', messageId: 'm2', role: 'agent', parts: [{ kind: 'text', text: 'on it' }], taskId: 'task-1', contextId: 'ctx-1' },
  },
  artifacts: [
    {
      artifactId: 'a1',
      name: 'report',
      parts: [
        { kind: 'text', text: 'hello' },
        { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } },
        { kind: 'file', file: { uri: 'https://files.example/x.png', mimeType: 'image/png' } },
      ],
    },
    {
      artifactId: 'a2',
      parts: [
        { kind: 'data', data: { rows: 2 } },
        { kind: 'data', data: { value: [1, 2] }, metadata: { data_part_compat: true } },
        { kind: 'data', data: { value: 'plain' }, metadata: { data_part_compat: true } },
      ],
    },
  ],
  history: [{ kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }], taskId: 'task-1', contextId: 'ctx-1', referenceTaskIds: ['task-0'], extensions: ['urn:x'] }],
  metadata: { trace: 'abc' },
};

const PUSH: TaskPushNotificationConfig = { taskId: 'task-1', id: 'cfg-1', url: 'https://hooks.example/a2a', token: 'tok', authentication: { scheme: 'Bearer', credentials: 'secret' } };
const V03_PUSH = { taskId: 'task-1', pushNotificationConfig: { id: 'cfg-1', url: 'https://hooks.example/a2a', token: 'tok', authentication: { schemes: ['Bearer'], credentials: 'secret' } } };

describe('the method table', () => {
  it('has every 0.3 method, each naming the 1.0 operation it is', () => {
    expect(Object.fromEntries([...V03_JSON_RPC_METHODS].map(([name, spec]) => [name, [spec.operation, spec.streaming]]))).toEqual({
      'message/send': ['SendMessage', false],
      'message/stream': ['SendStreamingMessage', true],
      'tasks/get': ['GetTask', false],
      'tasks/cancel': ['CancelTask', false],
      'tasks/resubscribe': ['SubscribeToTask', true],
      'tasks/pushNotificationConfig/set': ['CreateTaskPushNotificationConfig', false],
      'tasks/pushNotificationConfig/get': ['GetTaskPushNotificationConfig', false],
      'tasks/pushNotificationConfig/list': ['ListTaskPushNotificationConfigs', false],
      'tasks/pushNotificationConfig/delete': ['DeleteTaskPushNotificationConfig', false],
      'agent/getAuthenticatedExtendedCard': ['GetExtendedAgentCard', false],
    });
  });

  it('finds a method by operation; ListTasks has none; 1.0 names and other spellings are not 0.3 methods', () => {
    expect(v03MethodOf('GetTask')?.method).toBe('tasks/get');
    expect(v03MethodOf('ListTasks' as A2AOperation)).toBeUndefined();
    for (const name of ['SendMessage', 'GetTask', 'tasks/list', 'Tasks/Get', 'message/send ', '__proto__', 'constructor']) expect(v03Method(name)).toBeUndefined();
  });
});

describe('server: 0.3 params → the 1.0 request → 0.3 params (round trip)', () => {
  it.each<[string, string, unknown, unknown, unknown]>([
    [
      '§9.2 message/send: no `blocking`, so not blocking',
      'message/send',
      E.JOKE_REQUEST,
      { message: { messageId: '9229e770-767c-417b-a0b0-f0741243c589', role: 'ROLE_USER', parts: [{ text: 'tell me a joke' }] }, configuration: { returnImmediately: true }, metadata: {} },
      { message: { kind: 'message', messageId: '9229e770-767c-417b-a0b0-f0741243c589', role: 'user', parts: [{ kind: 'text', text: 'tell me a joke' }] }, configuration: { blocking: false }, metadata: {} },
    ],
    [
      '§9.4 message/send on the same task, blocking: ids unchanged, waits',
      'message/send',
      E.FLIGHT_ANSWER,
      {
        message: {
          messageId: '0db1d6c4-3976-40ed-b9b8-0043ea7a03d3',
          role: 'ROLE_USER',
          parts: [{ text: 'I want to fly from New York (JFK) to London (LHR) around October 10th, returning October 17th.' }],
          contextId: 'c295ea44-7543-4f78-b524-7a38915ad6e4',
          taskId: '3f36680c-7f37-4a5f-945e-d78981fafd36',
        },
        configuration: {},
      },
      { ...E.FLIGHT_ANSWER, message: { kind: 'message', ...E.FLIGHT_ANSWER.message } },
    ],
    [
      '§9.5 message/send with an inline push config: schemes[] → scheme',
      'message/send',
      E.REPORT_REQUEST,
      {
        message: { messageId: '6dbc13b5-bd57-4c2b-b503-24e381b6c8d6', role: 'ROLE_USER', parts: [{ text: E.REPORT_REQUEST.message.parts[0].text }] },
        configuration: {
          returnImmediately: true,
          taskPushNotificationConfig: { url: 'https://client.example.com/webhook/a2a-notifications', token: 'secure-client-token-for-task-aaa', authentication: { scheme: 'Bearer' } },
        },
      },
      { message: { kind: 'message', ...E.REPORT_REQUEST.message }, configuration: { ...E.REPORT_REQUEST.configuration, blocking: false } },
    ],
    [
      '§9.6 message/send with file bytes: raw, mediaType, filename',
      'message/send',
      E.IMAGE_REQUEST,
      {
        message: {
          messageId: '6dbc13b5-bd57-4c2b-b503-24e381b6c8d6',
          role: 'ROLE_USER',
          parts: [{ text: 'Analyze this image and highlight any faces.' }, { raw: 'iVBORw0KGgoAAAANSUhEUgAAAAUA', mediaType: 'image/png', filename: 'input_image.png' }],
        },
        configuration: { returnImmediately: true },
      },
      { message: { kind: 'message', ...E.IMAGE_REQUEST.message }, configuration: { blocking: false } },
    ],
    [
      '§9.7 message/stream: part metadata kept',
      'message/stream',
      E.TICKETS_REQUEST,
      { message: { messageId: '85b26db5-ffbb-4278-a5da-a7b09dea1b47', role: 'ROLE_USER', parts: [E.TICKETS_REQUEST.message.parts[0]].map(({ kind: _, ...p }) => p) }, configuration: { returnImmediately: true }, metadata: {} },
      { message: { kind: 'message', ...E.TICKETS_REQUEST.message }, configuration: { blocking: false }, metadata: {} },
    ],
    ['tasks/get', 'tasks/get', { id: 't-1', historyLength: 2, metadata: { x: 1 } }, { id: 't-1', historyLength: 2 }, { id: 't-1', historyLength: 2 }],
    ['tasks/get: historyLength 0 meant all of it in 0.3, and is said so (left out, a2a-js 0.3 sends none)', 'tasks/get', { id: 't-1', historyLength: 0 }, { id: 't-1' }, { id: 't-1', historyLength: 0 }],
    ['tasks/get without historyLength: all of it', 'tasks/get', { id: 't-1' }, { id: 't-1' }, { id: 't-1', historyLength: 0 }],
    ['tasks/cancel', 'tasks/cancel', { id: 't-1', metadata: { reason: 'user' } }, { id: 't-1', metadata: { reason: 'user' } }, { id: 't-1', metadata: { reason: 'user' } }],
    ['tasks/resubscribe', 'tasks/resubscribe', { id: 't-1' }, { id: 't-1' }, { id: 't-1' }],
    [
      'tasks/pushNotificationConfig/set without an id: the task id, as 0.3 servers gave it',
      'tasks/pushNotificationConfig/set',
      { taskId: 't-1', pushNotificationConfig: { url: 'https://hooks.example/a2a', token: 'tok' } },
      { taskId: 't-1', id: 't-1', url: 'https://hooks.example/a2a', token: 'tok' },
      { taskId: 't-1', pushNotificationConfig: { id: 't-1', url: 'https://hooks.example/a2a', token: 'tok' } },
    ],
    ['tasks/pushNotificationConfig/set', 'tasks/pushNotificationConfig/set', V03_PUSH, PUSH, V03_PUSH],
    ['tasks/pushNotificationConfig/get without a config id: the task id', 'tasks/pushNotificationConfig/get', { id: 't-1' }, { taskId: 't-1', id: 't-1' }, { id: 't-1', pushNotificationConfigId: 't-1' }],
    ['tasks/pushNotificationConfig/get', 'tasks/pushNotificationConfig/get', { id: 't-1', pushNotificationConfigId: 'c-1' }, { taskId: 't-1', id: 'c-1' }, { id: 't-1', pushNotificationConfigId: 'c-1' }],
    ['tasks/pushNotificationConfig/list', 'tasks/pushNotificationConfig/list', { id: 't-1' }, { taskId: 't-1' }, { id: 't-1' }],
    ['tasks/pushNotificationConfig/delete', 'tasks/pushNotificationConfig/delete', { id: 't-1', pushNotificationConfigId: 'c-1' }, { taskId: 't-1', id: 'c-1' }, { id: 't-1', pushNotificationConfigId: 'c-1' }],
    ['agent/getAuthenticatedExtendedCard: no params', 'agent/getAuthenticatedExtendedCard', undefined, {}, {}],
  ])('%s', (_what, name, params, request, back) => {
    const spec = method(name);
    const v1 = spec.requestFromV03(params);
    expect(v1).toEqual(request);
    expect(spec.requestToV03(v1)).toStrictEqual(back);
  });
});

describe('server: invalid 0.3 params are refused, each bad field named', () => {
  it.each<[string, string, unknown, FieldViolation[]]>([
    ['§9.3: the file part writes `data`, not bytes or uri', 'message/stream', E.PAPER_REQUEST, [{ field: 'message.parts[1].file', description: 'one of bytes, uri is required' }]],
    ['§9.4: the messageId is outside the message', 'message/send', E.FLIGHT_REQUEST, [{ field: 'message.messageId', description: 'is required' }]],
    [
      '1.0 shapes are not 0.3',
      'message/send',
      { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] }, configuration: { returnImmediately: true } },
      [
        { field: 'message.role', description: 'must be one of user, agent' },
        { field: 'message.parts[0].kind', description: 'must be one of "text", "file", "data"' },
      ],
    ],
    [
      'a wrong kind, a number for an enum, a non-object data part',
      'message/send',
      { message: { kind: 'task', messageId: 'm', role: 1, parts: [{ kind: 'data', data: [1] }] } },
      [
        { field: 'message.kind', description: 'must be "message"' },
        { field: 'message.role', description: 'must be one of user, agent' },
        { field: 'message.parts[0].data', description: 'must be a JSON object' },
      ],
    ],
    ['params that are not an object', 'tasks/get', [], [{ field: '(body)', description: 'must be a JSON object' }]],
    ['tasks/get without an id', 'tasks/get', { historyLength: -1 }, [{ field: 'historyLength', description: 'must be at least 0' }, { field: 'id', description: 'is required' }]],
    [
      'credentials for no scheme',
      'tasks/pushNotificationConfig/set',
      { taskId: 't', pushNotificationConfig: { url: 'https://h.example', authentication: { schemes: [], credentials: 'c' } } },
      [{ field: 'pushNotificationConfig.authentication.schemes', description: 'must name the scheme the credentials are for' }],
    ],
    ['delete needs the config id', 'tasks/pushNotificationConfig/delete', { id: 't' }, [{ field: 'pushNotificationConfigId', description: 'is required' }]],
  ])('%s', (_what, name, params, expected) => {
    expect(violations(() => method(name).requestFromV03(params))).toEqual(expected);
  });

  it('never echoes what it was sent', () => {
    const huge = 'x'.repeat(100_000);
    const error = thrown(() => method('message/send').requestFromV03({ message: { kind: huge, messageId: huge, role: huge, parts: [{ kind: huge }] } })) as InvalidParamsError;
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect(error.message.length).toBeLessThan(300);
    expect(error.message).not.toContain('xxx');
  });
});

describe('results: 1.0 → 0.3 → 1.0 (round trip), typed as the 0.3 SDK types them', () => {
  it('message/send: a Task, and a Message', () => {
    const spec = method('message/send');
    expect(spec.resultToV03({ task: TASK })).toStrictEqual(V03_TASK);
    expect(spec.resultFromV03(spec.resultToV03({ task: TASK }))).toEqual({ task: TASK });
    const message = TASK.history![0];
    expect(spec.resultToV03({ message })).toStrictEqual(V03_TASK.history[0]);
    expect(spec.resultFromV03(spec.resultToV03({ message }))).toEqual({ message });
    const sdk: Sdk.SendMessageSuccessResponse['result'] = X.toV03SendMessageResult({ task: TASK });
    expect(sdk.kind).toBe('task');
  });

  it('tasks/get and tasks/cancel: the Task; §9.2, §9.4 and §9.6 answers read and written back', () => {
    for (const name of ['tasks/get', 'tasks/cancel']) {
      const spec = method(name);
      expect(spec.resultToV03(TASK)).toStrictEqual(V03_TASK);
      expect(spec.resultFromV03(V03_TASK)).toEqual(TASK);
    }
    const spec = method('tasks/get');
    for (const example of [E.JOKE_TASK, E.FLIGHT_INPUT_REQUIRED, E.FLIGHT_COMPLETED, E.IMAGE_TASK]) {
      const task = spec.resultFromV03(example) as Task;
      expect(task.id).toBe(example.id);
      expect(spec.resultToV03(task)).toEqual(asWrittenBack(example));
    }
    expect((spec.resultFromV03(E.FLIGHT_INPUT_REQUIRED) as Task).status).toMatchObject({ state: 'TASK_STATE_INPUT_REQUIRED', timestamp: '2024-03-15T10:10:00.000Z', message: { role: 'ROLE_AGENT' } });
    expect((spec.resultFromV03(E.IMAGE_TASK) as Task).artifacts?.[0].parts[0]).toEqual({ url: E.IMAGE_TASK.artifacts[0].parts[0].file.uri, mediaType: 'image/png', filename: 'output.png' });
    const sdk: Sdk.Task = X.toV03Task(TASK);
    expect(sdk.status.state).toBe('working');
  });

  it('§9.2: the Message answer has no role, which 0.3 requires: refused, naming it', () => {
    expect(violations(() => method('message/send').resultFromV03(E.JOKE_MESSAGE))).toEqual([{ field: 'role', description: 'is required' }]);
  });

  it('message/stream and tasks/resubscribe: each event; §9.3 events read (timestamps without offset as UTC) and written back', () => {
    for (const name of ['message/stream', 'tasks/resubscribe']) {
      const spec = method(name);
      const events = E.PAPER_EVENTS.map((e) => spec.resultFromV03(e) as StreamResponse);
      expect(events.map((e) => Object.keys(e)[0])).toEqual(['task', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
      expect(events[0]).toMatchObject({ task: { status: { state: 'TASK_STATE_SUBMITTED', timestamp: '2025-04-02T16:59:25.331Z' } } });
      expect(events[4]).toEqual({ statusUpdate: { taskId: E.PAPER_EVENTS[4].taskId, contextId: E.PAPER_EVENTS[4].contextId, status: { state: 'TASK_STATE_COMPLETED', timestamp: '2025-04-02T16:59:35.331Z' } } });
      const written = events.map((e) => spec.resultToV03(e));
      expect(written).toEqual(E.PAPER_EVENTS.map(asWrittenBack));
      expect(written.map((e) => spec.resultFromV03(e))).toEqual(events);
    }
    const sdk: Sdk.SendStreamingMessageSuccessResponse['result'] = X.toV03StreamEvent({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } });
    expect(sdk).toEqual({ kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'completed' }, final: true });
  });

  it('push config results: set and get the nested config, list a bare array, delete null', () => {
    for (const name of ['tasks/pushNotificationConfig/set', 'tasks/pushNotificationConfig/get']) {
      expect(method(name).resultToV03(PUSH)).toStrictEqual(V03_PUSH);
      expect(method(name).resultFromV03(V03_PUSH)).toEqual(PUSH);
    }
    const list = method('tasks/pushNotificationConfig/list');
    expect(list.resultToV03({ configs: [PUSH, PUSH] })).toStrictEqual([V03_PUSH, V03_PUSH]);
    expect(list.resultFromV03([V03_PUSH])).toEqual({ configs: [PUSH] });
    expect(list.resultFromV03([])).toEqual({ configs: [] });
    expect(violations(() => list.resultFromV03([{ taskId: 't' }]))).toEqual([{ field: 'result[0].pushNotificationConfig', description: 'is required' }]);
    expect(violations(() => list.resultFromV03({}))).toEqual([{ field: 'result', description: 'must be an array' }]);
    const remove = method('tasks/pushNotificationConfig/delete');
    expect(remove.resultToV03({})).toBeNull();
    expect(remove.resultFromV03(null)).toEqual({});
    const sdk: Sdk.TaskPushNotificationConfig = X.toV03TaskPushNotificationConfig(PUSH);
    expect(sdk.pushNotificationConfig.authentication?.schemes).toEqual(['Bearer']);
  });

  it('agent/getAuthenticatedExtendedCard: the hybrid card out, a 0.3 card in', () => {
    const spec = method('agent/getAuthenticatedExtendedCard');
    const card: AgentCard = {
      name: 'a',
      description: 'd',
      version: '1',
      supportedInterfaces: [
        { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
      capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    };
    const hybrid = spec.resultToV03(card) as Sdk.AgentCard;
    expect(hybrid).toMatchObject({ url: 'https://a.example/rpc', preferredTransport: 'JSONRPC', protocolVersion: '0.3', supportsAuthenticatedExtendedCard: true });
    expect(spec.resultFromV03(E.GEO_CARD)).toMatchObject({ name: E.GEO_CARD.name, capabilities: { extendedAgentCard: true } });
  });
});

/**
 * A 0.3 example as it is written back: every message and task with its `kind` (the examples leave
 * it out where the position says it), timestamps in UTC with milliseconds, `false` flags left out.
 */
function asWrittenBack<T>(value: T): T {
  const walk = (v: unknown, kind?: string): unknown => {
    if (Array.isArray(v)) return v.map((item) => walk(item, kind));
    if (typeof v !== 'object' || v === null) return v;
    const out: Record<string, unknown> = kind === undefined ? {} : { kind };
    for (const [key, item] of Object.entries(v)) {
      if ((key === 'append' || key === 'lastChunk') && item === false) continue;
      if (key === 'timestamp') out[key] = new Date(/([zZ]|[+-]\d\d:\d\d)$/.test(item as string) ? (item as string) : `${item as string}Z`).toISOString();
      else out[key] = key === 'data' || key === 'metadata' ? item : walk(item, key === 'history' || key === 'message' ? 'message' : undefined);
    }
    return out;
  };
  return walk(value) as T;
}
