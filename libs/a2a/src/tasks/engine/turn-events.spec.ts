import { describe, expect, it } from '@jest/globals';
import type { Message, Task } from '../../protocol/types.js';
import { agentMessage, artifactEvent, declaredCode, endingEvent, FAILURES, isoTime, moduleStatusEvent, openingTask, statusEvent, thrownFailure, userMessageOf } from './turn-events.js';

const AT = Date.UTC(2030, 0, 1, 12, 0, 0);
const ids = { newId: () => 'id-1', now: () => AT };
const user: Message = { messageId: 'u1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };

describe('turn events', () => {
  it('a status the module sets carries its text as an agent message of the task, stamped with the clock', () => {
    expect(moduleStatusEvent('t', 'c', 'TASK_STATE_FAILED', 'The agent did not finish in time.', ids)).toEqual({
      statusUpdate: {
        taskId: 't',
        contextId: 'c',
        status: {
          state: 'TASK_STATE_FAILED',
          message: { messageId: 'id-1', role: 'ROLE_AGENT', parts: [{ text: 'The agent did not finish in time.' }], contextId: 'c', taskId: 't' },
          timestamp: '2030-01-01T12:00:00.000Z',
        },
      },
    });
    expect(moduleStatusEvent('t', 'c', 'TASK_STATE_CANCELED', undefined, ids)).toEqual(statusEvent('t', 'c', 'TASK_STATE_CANCELED', undefined, isoTime(AT)));
  });

  it.each<[boolean, boolean, object]>([
    [false, false, {}],
    [true, false, { append: true }],
    [true, true, { append: true, lastChunk: true }],
  ])('an artifact chunk with append %s and lastChunk %s says only what is true', (append, lastChunk, flags) => {
    const artifact = { artifactId: 'a', parts: [{ text: 'x' }] };
    expect(JSON.parse(JSON.stringify(artifactEvent('t', 'c', artifact, append, lastChunk)))).toEqual({ artifactUpdate: { taskId: 't', contextId: 'c', artifact, ...flags } });
  });

  it('isoTime is RFC 3339 in UTC with milliseconds, the same text again for the same instant, a new one for the next', () => {
    expect(isoTime(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(isoTime(AT)).toBe(new Date(AT).toISOString());
    expect(isoTime(AT)).toBe(isoTime(AT));
    expect(isoTime(AT + 1)).toBe(new Date(AT + 1).toISOString());
    expect(isoTime(AT)).toBe(new Date(AT).toISOString());
  });

  it('a new task opens in SUBMITTED with the incoming message, carrying the ids the server assigned', () => {
    const message = userMessageOf(user, 't', 'c');
    expect(message).toEqual({ ...user, taskId: 't', contextId: 'c' });
    expect(openingTask(undefined, 't', 'c', message, undefined, isoTime(AT))).toEqual({
      id: 't',
      contextId: 'c',
      status: { state: 'TASK_STATE_SUBMITTED', message: undefined, timestamp: '2030-01-01T12:00:00.000Z' },
      history: [message],
    });
  });

  it('a continued task opens in SUBMITTED again, its history ending with the new message and the status message', () => {
    const asked = agentMessage('m2', 't', 'c', 'Where to?');
    const prior: Task = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED', message: asked }, history: [userMessageOf(user, 't', 'c'), asked], artifacts: [] };
    const answer = userMessageOf({ messageId: 'u2', role: 'ROLE_USER', parts: [{ text: 'Paris' }] }, 't', 'c');
    const queued = agentMessage('m3', 't', 'c', 'queued');
    const opened = openingTask(prior, 't', 'c', answer, queued, isoTime(AT));
    expect(opened.status).toEqual({ state: 'TASK_STATE_SUBMITTED', message: queued, timestamp: isoTime(AT) });
    expect(opened.history?.map((m) => m.messageId)).toEqual(['u1', 'm2', 'u2', 'm3']);
    expect(opened.artifacts).toEqual([]);
  });
});

describe('failures', () => {
  it.each<[string, unknown, string | undefined]>([
    ['a code', Object.assign(new Error('x'), { code: 'QUOTA_EXCEEDED' }), 'QUOTA_EXCEEDED'],
    ["an A2A error's reason", Object.assign(new Error('x'), { reason: 'TASK_NOT_FOUND' }), 'TASK_NOT_FOUND'],
    ['a system error code', Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'ECONNREFUSED'],
    ['a lower-case code', Object.assign(new Error('x'), { code: 'quota' }), undefined],
    ['a code with a URL in it', Object.assign(new Error('x'), { code: 'SEE https://x' }), undefined],
    ['a numeric code', Object.assign(new Error('x'), { code: 42 }), undefined],
    ['a string', 'QUOTA_EXCEEDED', undefined],
    ['nothing', undefined, undefined],
  ])('declaredCode: %s', (_label, error, code) => {
    expect(declaredCode(error)).toBe(code);
  });

  it('thrownFailure: INTERNAL with the fixed text, a declared code, or the step that failed', () => {
    expect(thrownFailure(new Error('secret'))).toEqual(FAILURES.threw);
    expect(thrownFailure(Object.assign(new Error('secret'), { code: 'QUOTA_EXCEEDED' }))).toEqual({ code: 'QUOTA_EXCEEDED', text: 'The agent stopped on an error (QUOTA_EXCEEDED).' });
    expect(thrownFailure(new Error('secret'), { step: 2 })).toEqual({ code: 'INTERNAL', text: 'Step 2 failed (INTERNAL).', step: 2 });
    expect(thrownFailure(Object.assign(new Error('secret'), { code: 'TOOL_TIMEOUT' }), { step: 1, steps: 3 })).toEqual({
      code: 'TOOL_TIMEOUT',
      text: 'Step 1 of 3 failed (TOOL_TIMEOUT).',
      step: 1,
      steps: 3,
    });
  });

  it('endingEvent: FAILED with the text and the code in the message metadata, or CANCELED without a message', () => {
    expect(endingEvent('t', 'c', { code: 'TOOL_TIMEOUT', text: 'Step 1 failed (TOOL_TIMEOUT).', step: 1 }, ids)).toEqual({
      statusUpdate: {
        taskId: 't',
        contextId: 'c',
        status: {
          state: 'TASK_STATE_FAILED',
          message: { messageId: 'id-1', role: 'ROLE_AGENT', parts: [{ text: 'Step 1 failed (TOOL_TIMEOUT).' }], contextId: 'c', taskId: 't', metadata: { error: { code: 'TOOL_TIMEOUT', step: 1 } } },
          timestamp: isoTime(AT),
        },
      },
    });
    expect(endingEvent('t', 'c', undefined, ids)).toEqual({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_CANCELED', timestamp: isoTime(AT) } } });
  });
});
