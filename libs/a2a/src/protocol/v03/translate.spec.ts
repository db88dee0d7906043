/** The rules 0.3 and 1.0 disagree on, one table each. */
import { describe, expect, it } from '@jest/globals';
import type * as Sdk from 'a2a-sdk-v03';
import { thrown } from '../../testing/thrown.js';
import { decode, DEFAULT_DECODE_LIMITS } from '../codec.js';
import { InvalidParamsError } from '../errors.js';
import { TASK_STATES, type Part, type TaskState } from '../types.js';
import { v03Method } from './json-rpc-methods.js';
import { v03PushNotificationBody } from './push-notification.js';
import { v03RestCodecOf } from './rest-routes.js';
import { V03PartSchema } from './schemas.js';
import * as X from './translate.js';
import type { V03Part } from './types.js';

const send = v03Method('message/send')!;
const stream = v03Method('message/stream')!;
const message = { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] };

describe('blocking (0.3) and returnImmediately (1.0)', () => {
  it.each<[string, unknown, boolean | undefined]>([
    ['no configuration: not blocking (0.3 said so)', undefined, true],
    ['configuration without blocking: not blocking', {}, true],
    ['blocking: false', { blocking: false }, true],
    ['blocking: true: wait', { blocking: true }, undefined],
  ])('server reads %s', (_what, configuration, returnImmediately) => {
    const request = send.requestFromV03({ message, ...(configuration === undefined ? {} : { configuration }) }) as { configuration?: { returnImmediately?: boolean } };
    expect(request.configuration?.returnImmediately).toBe(returnImmediately);
  });

  it.each<[string, { returnImmediately?: boolean } | undefined, boolean]>([
    ['no configuration (1.0 waits): blocking true', undefined, true],
    ['returnImmediately: false: blocking true', { returnImmediately: false }, true],
    ['returnImmediately: true: blocking false, said explicitly', { returnImmediately: true }, false],
  ])('client writes %s', (_what, configuration, blocking) => {
    const params = send.requestToV03({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] }, ...(configuration === undefined ? {} : { configuration }) });
    expect(params.configuration).toEqual({ blocking });
  });
});

describe('final: true exactly on the status update that ends a stream', () => {
  const FINAL: Record<TaskState, boolean> = {
    TASK_STATE_UNSPECIFIED: false,
    TASK_STATE_SUBMITTED: false,
    TASK_STATE_WORKING: false,
    TASK_STATE_COMPLETED: true,
    TASK_STATE_FAILED: true,
    TASK_STATE_CANCELED: true,
    TASK_STATE_INPUT_REQUIRED: true,
    TASK_STATE_REJECTED: true,
    // this library's streams stay open on AUTH_REQUIRED
    TASK_STATE_AUTH_REQUIRED: false,
  };
  it.each(TASK_STATES.map((state) => [state, FINAL[state]] as const))('%s → final %s', (state, final) => {
    const event = stream.resultToV03({ statusUpdate: { taskId: 't', contextId: 'c', status: { state } } }) as Sdk.TaskStatusUpdateEvent;
    expect(event.final).toBe(final);
    expect(X.endsV03Stream(state)).toBe(final);
  });

  it('written even when false; a caller may say which states end its streams', () => {
    expect(stream.resultToV03({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } })).toHaveProperty('final', false);
    expect(X.toV03StreamEvent({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_AUTH_REQUIRED' } } }, () => true)).toHaveProperty('final', true);
  });

  it('a 0.3 status update without final is refused; reading one drops final (the end of the stream says it in 1.0)', () => {
    const error = thrown(() => stream.resultFromV03({ kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'working' } })) as InvalidParamsError;
    expect(error.fieldViolations).toEqual([{ field: 'final', description: 'is required' }]);
    expect(stream.resultFromV03({ kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'completed' }, final: true })).toEqual({
      statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } },
    });
  });
});

describe('task states', () => {
  it.each<[TaskState, string]>([
    ['TASK_STATE_UNSPECIFIED', 'unknown'],
    ['TASK_STATE_SUBMITTED', 'submitted'],
    ['TASK_STATE_WORKING', 'working'],
    ['TASK_STATE_COMPLETED', 'completed'],
    ['TASK_STATE_FAILED', 'failed'],
    ['TASK_STATE_CANCELED', 'canceled'],
    ['TASK_STATE_INPUT_REQUIRED', 'input-required'],
    ['TASK_STATE_REJECTED', 'rejected'],
    ['TASK_STATE_AUTH_REQUIRED', 'auth-required'],
  ])('%s ⇄ %s', (v1, v03) => {
    expect(X.toV03State(v1)).toBe(v03);
    expect(X.fromV03State(X.toV03State(v1))).toBe(v1);
    const task = v03Method('tasks/get')!.resultFromV03({ kind: 'task', id: 't', contextId: 'c', status: { state: v03 } }) as { status: { state: string } };
    expect(task.status.state).toBe(v1);
  });
});

describe('parts', () => {
  const read = (part: unknown): Part => X.fromV03Part(decode(V03PartSchema, part));

  it.each<[string, Part, V03Part]>([
    ['text', { text: 'hello', metadata: { a: 1 } }, { kind: 'text', text: 'hello', metadata: { a: 1 } }],
    ['bytes ⇄ raw, mimeType/name ⇄ mediaType/filename', { raw: 'aGk=', mediaType: 'text/plain', filename: 'hi.txt' }, { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } }],
    ['uri ⇄ url', { url: 'https://f.example/a.png', mediaType: 'image/png' }, { kind: 'file', file: { uri: 'https://f.example/a.png', mimeType: 'image/png' } }],
    ['an object', { data: { a: [1, { b: null }] } }, { kind: 'data', data: { a: [1, { b: null }] } }],
    ['a list: wrapped, marked', { data: [1, 2] }, { kind: 'data', data: { value: [1, 2] }, metadata: { data_part_compat: true } }],
    ['a string: wrapped, other metadata kept', { data: 'x', metadata: { m: 1 } }, { kind: 'data', data: { value: 'x' }, metadata: { m: 1, data_part_compat: true } }],
    ['null: wrapped', { data: null }, { kind: 'data', data: { value: null }, metadata: { data_part_compat: true } }],
    ['a number', { data: 42 }, { kind: 'data', data: { value: 42 }, metadata: { data_part_compat: true } }],
  ])('%s', (_what, v1, v03) => {
    expect(X.toV03Part(v1)).toEqual(v03);
    expect(X.fromV03Part(X.toV03Part(v1))).toEqual(v1);
    expect(read(v03)).toEqual(v1);
    const sdk: Sdk.Part = X.toV03Part(v1);
    expect(sdk.kind).toBe(v03.kind);
  });

  it('a genuine { value } object without the marker stays an object', () => {
    expect(read({ kind: 'data', data: { value: 1 } })).toEqual({ data: { value: 1 } });
    expect(read({ kind: 'data', data: { value: 1, more: 2 }, metadata: { data_part_compat: true } })).toEqual({ data: { value: 1, more: 2 }, metadata: { data_part_compat: true } });
  });

  it('base64 in both: the other alphabet and missing padding are read, written standard and padded', () => {
    expect(read({ kind: 'file', file: { bytes: '-_8' } })).toEqual({ raw: '+/8=' });
  });

  it('0.3 has no media type or file name for text and data parts: they are not carried', () => {
    expect(X.toV03Part({ text: '# hi', mediaType: 'text/markdown' })).toEqual({ kind: 'text', text: '# hi' });
    expect(X.toV03Part({ data: { a: 1 }, mediaType: 'application/json', filename: 'a.json' })).toEqual({ kind: 'data', data: { a: 1 } });
  });

  it('a file part needs bytes or uri, not both', () => {
    const error = thrown(() => read({ kind: 'file', file: { bytes: 'aGk=', uri: 'https://f.example' } })) as InvalidParamsError;
    expect(error.fieldViolations).toEqual([{ field: 'file.uri', description: 'only one of bytes, uri may be set' }]);
  });
});

describe('push authentication: schemes[] ⇄ scheme', () => {
  const set = v03Method('tasks/pushNotificationConfig/set')!;
  const config = (authentication: unknown) => ({ taskId: 't', pushNotificationConfig: { id: 'c', url: 'https://h.example/hook', authentication } });

  it.each<[string, unknown, unknown]>([
    ['one scheme', { schemes: ['Bearer'], credentials: 'tok' }, { scheme: 'Bearer', credentials: 'tok' }],
    ['several: the first is used', { schemes: ['Basic', 'Bearer'], credentials: 'tok' }, { scheme: 'Basic', credentials: 'tok' }],
    ['none, and no credentials: no authentication', { schemes: [] }, undefined],
  ])('%s', (_what, authentication, expected) => {
    expect((set.requestFromV03(config(authentication)) as { authentication?: unknown }).authentication).toEqual(expected);
  });

  it('the 1.0 scheme is written as a list of one', () => {
    expect(set.requestToV03({ taskId: 't', id: 'c', url: 'https://h.example/hook', authentication: { scheme: 'Bearer' } })).toEqual(config({ schemes: ['Bearer'] }));
  });

  it('schemes is required (it may be empty)', () => {
    const error = thrown(() => set.requestFromV03(config({ credentials: 'tok' }))) as InvalidParamsError;
    expect(error.fieldViolations).toEqual([{ field: 'pushNotificationConfig.authentication.schemes', description: 'is required' }]);
  });
});

describe('ids pass unchanged, whatever they look like', () => {
  it.each(['t-1', 'tasks/1', 'ünï cødé', '  spaced  ', '00000000-0000-0000-0000-000000000000'])('%s', (id) => {
    const request = send.requestFromV03({ message: { ...message, taskId: id, contextId: id, messageId: id } }) as { message: Record<string, unknown> };
    expect(request.message).toMatchObject({ taskId: id, contextId: id, messageId: id });
    expect(v03Method('tasks/get')!.requestFromV03({ id })).toEqual({ id });
    const task = { id, contextId: id, status: { state: 'TASK_STATE_WORKING' as const } };
    expect(v03Method('tasks/get')!.resultToV03(task)).toMatchObject({ id, contextId: id });
  });
});

describe('historyLength', () => {
  it('a 0.3 tasks/get always says it: 0 ("all" in 0.3) for 1.0\'s unset and 0 alike, a positive length as it is', () => {
    const get = v03Method('tasks/get')!;
    expect(get.requestToV03({ id: 't' })).toEqual({ id: 't', historyLength: 0 });
    expect(get.requestToV03({ id: 't', historyLength: 0 })).toEqual({ id: 't', historyLength: 0 });
    expect(get.requestToV03({ id: 't', historyLength: 3 })).toEqual({ id: 't', historyLength: 3 });
    expect(get.requestFromV03({ id: 't', historyLength: 0 })).toEqual({ id: 't' });
    expect(send.requestToV03({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] }, configuration: { historyLength: 0 } })).toMatchObject({ configuration: { blocking: true } });
  });
});

describe('the 0.3 push notification body', () => {
  it('is the whole Task in its 0.3 form (§9.5)', () => {
    const body = v03PushNotificationBody({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED', timestamp: '2024-03-15T18:30:00.000Z' } });
    expect(body).toStrictEqual({ kind: 'task', id: 't', contextId: 'c', status: { state: 'completed', timestamp: '2024-03-15T18:30:00.000Z' } });
    const sdk: Sdk.Task = body as unknown as Sdk.Task;
    expect(sdk.kind).toBe('task');
  });
});

describe('the server\'s decode limits bind 0.3 requests as they bind 1.0 ones', () => {
  const limits = { ...DEFAULT_DECODE_LIMITS, maxPartsPerMessage: 2, maxPartBytes: 8, maxMetadataBytes: 16 };
  const text = (t: string) => ({ kind: 'text', text: t });

  it('JSON-RPC: parts per message, bytes of a part, bytes of metadata, each named', () => {
    const error = thrown(() => send.requestFromV03({ message: { ...message, parts: [text('a'), text('b'), text('c')] } }, { limits })) as InvalidParamsError;
    expect(error.fieldViolations).toEqual([{ field: 'message.parts', description: 'must hold at most 2 parts (limits.maxPartsPerMessage)' }]);
    const big = thrown(() => send.requestFromV03({ message: { ...message, parts: [text('x'.repeat(9))], metadata: { k: 'x'.repeat(20) } } }, { limits })) as InvalidParamsError;
    expect(big.fieldViolations.map((v) => v.field)).toEqual(['message.parts[0].text', 'message.metadata']);
    expect(send.requestFromV03({ message: { ...message, parts: [text('x'.repeat(9))] } })).toBeDefined();
  });

  it('REST: the same bounds on the proto body', () => {
    const error = thrown(() =>
      v03RestCodecOf('SendMessage')!.requestFromV03({ pathParams: {}, query: {}, body: { message: { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'a' }, { text: 'b' }, { file: { fileWithBytes: 'aGVsbG8gd29ybGQ=' } }] } } }, { limits }),
    ) as InvalidParamsError;
    expect(error.fieldViolations).toEqual([{ field: 'message.content', description: 'must hold at most 2 parts (limits.maxPartsPerMessage)' }]);
  });
});
