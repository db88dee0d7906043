import { describe, expect, it } from '@jest/globals';
import type { StreamResponse, TaskState } from '../protocol/types.js';
import { isTerminalEvent } from './event-log.js';

function stateEvent(taskId: string, state: TaskState): StreamResponse {
  return { statusUpdate: { taskId, contextId: 'ctx', status: { state } } };
}

describe('isTerminalEvent', () => {
  it.each<[string, StreamResponse, boolean]>([
    ['a COMPLETED status update', stateEvent('t', 'TASK_STATE_COMPLETED'), true],
    ['a FAILED status update', stateEvent('t', 'TASK_STATE_FAILED'), true],
    ['a CANCELED status update', stateEvent('t', 'TASK_STATE_CANCELED'), true],
    ['a REJECTED status update', stateEvent('t', 'TASK_STATE_REJECTED'), true],
    ['a WORKING status update', stateEvent('t', 'TASK_STATE_WORKING'), false],
    ['an INPUT_REQUIRED status update', stateEvent('t', 'TASK_STATE_INPUT_REQUIRED'), false],
    ['a task event in a terminal state', { task: { id: 't', status: { state: 'TASK_STATE_COMPLETED' } } }, true],
    ['a task event in SUBMITTED', { task: { id: 't', status: { state: 'TASK_STATE_SUBMITTED' } } }, false],
    ['an artifact update', { artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [] } } }, false],
    ['a message', { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [] } }, false],
  ])('%s → %s', (_label, event, terminal) => {
    expect(isTerminalEvent(event)).toBe(terminal);
  });
});
