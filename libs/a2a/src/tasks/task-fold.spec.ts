import { describe, expect, it } from '@jest/globals';
import type { Artifact, Message, StreamResponse, Task } from '../protocol/types.js';
import { applyEvent } from './task-fold.js';

const userMessage: Message = { messageId: 'm-user', role: 'ROLE_USER', parts: [{ text: 'hi' }], taskId: 't1', contextId: 'c1' };

function baseTask(overrides: Partial<Task> = {}): Task {
  return {
    id: 't1',
    contextId: 'c1',
    status: { state: 'TASK_STATE_SUBMITTED', timestamp: '2030-01-01T00:00:00.000Z' },
    history: [userMessage],
    ...overrides,
  };
}

function agentMessage(id: string, text: string): Message {
  return { messageId: id, role: 'ROLE_AGENT', parts: [{ text }], taskId: 't1', contextId: 'c1' };
}

function artifactEvent(artifact: Artifact, append?: boolean, lastChunk?: boolean): StreamResponse {
  return { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact, append, lastChunk } };
}

describe('applyEvent', () => {
  describe('task event', () => {
    it('replaces the snapshot entirely', () => {
      const before = baseTask({ artifacts: [{ artifactId: 'a', parts: [{ text: 'old' }] }], metadata: { k: 'v' } });
      const replacement: Task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_SUBMITTED' }, history: [agentMessage('m2', 'new')] };
      expect(applyEvent(before, { task: replacement })).toEqual(replacement);
    });

    it('creates the snapshot when there is none', () => {
      const task = baseTask();
      expect(applyEvent(undefined, { task })).toEqual(task);
    });
  });

  describe('status update', () => {
    it('sets the status', () => {
      const status = { state: 'TASK_STATE_WORKING' as const, timestamp: '2030-01-01T00:00:01.000Z' };
      const after = applyEvent(baseTask(), { statusUpdate: { taskId: 't1', contextId: 'c1', status } });
      expect(after?.status).toEqual(status);
      expect(after?.history).toEqual([userMessage]);
    });

    it('appends its message to the history', () => {
      const message = agentMessage('m-agent', 'working on it');
      const status = { state: 'TASK_STATE_WORKING' as const, message };
      const after = applyEvent(baseTask(), { statusUpdate: { taskId: 't1', contextId: 'c1', status } });
      expect(after?.status).toEqual(status);
      expect(after?.history).toEqual([userMessage, message]);
    });

    it('appends a message only once, even when the same message is applied again', () => {
      const message = agentMessage('m-agent', 'need input');
      const event: StreamResponse = { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_INPUT_REQUIRED', message } } };
      const once = applyEvent(baseTask(), event);
      const twice = applyEvent(once, event);
      expect(twice?.history?.map((m) => m.messageId)).toEqual(['m-user', 'm-agent']);
      expect(twice?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    });

    it('starts a history when the task has none', () => {
      const message = agentMessage('m-agent', 'x');
      const after = applyEvent(baseTask({ history: undefined }), {
        statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING', message } },
      });
      expect(after?.history).toEqual([message]);
    });

    it('does not touch the previous snapshot', () => {
      const before = baseTask();
      applyEvent(before, { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING', message: agentMessage('m', 'x') } } });
      expect(before.status.state).toBe('TASK_STATE_SUBMITTED');
      expect(before.history).toEqual([userMessage]);
    });

    it('has nothing to update without a snapshot', () => {
      expect(applyEvent(undefined, { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } })).toBeUndefined();
    });
  });

  describe('artifact update', () => {
    it('adds a new artifact', () => {
      const artifact: Artifact = { artifactId: 'a1', name: 'report', parts: [{ text: 'hello' }] };
      const after = applyEvent(baseTask(), artifactEvent(artifact));
      expect(after?.artifacts).toEqual([artifact]);
    });

    it('adds a second artifact after the first', () => {
      const first: Artifact = { artifactId: 'a1', parts: [{ text: '1' }] };
      const second: Artifact = { artifactId: 'a2', parts: [{ text: '2' }] };
      const after = applyEvent(applyEvent(baseTask(), artifactEvent(first)), artifactEvent(second));
      expect(after?.artifacts).toEqual([first, second]);
    });

    it('treats an append to an unknown artifact as a new artifact', () => {
      const artifact: Artifact = { artifactId: 'a1', parts: [{ text: 'first chunk' }] };
      expect(applyEvent(baseTask(), artifactEvent(artifact, true))?.artifacts).toEqual([artifact]);
    });

    it('appends the parts of an append to the existing artifact, keeping its other fields', () => {
      const start = baseTask({ artifacts: [{ artifactId: 'a1', name: 'story', parts: [{ text: 'Once ' }] }] });
      const after = applyEvent(start, artifactEvent({ artifactId: 'a1', parts: [{ text: 'upon ' }, { text: 'a time' }] }, true));
      expect(after?.artifacts).toEqual([{ artifactId: 'a1', name: 'story', parts: [{ text: 'Once ' }, { text: 'upon ' }, { text: 'a time' }] }]);
    });

    it('replaces an existing artifact when append is not set', () => {
      const start = baseTask({
        artifacts: [
          { artifactId: 'a1', name: 'old', parts: [{ text: 'old' }] },
          { artifactId: 'a2', parts: [{ text: 'other' }] },
        ],
      });
      const replacement: Artifact = { artifactId: 'a1', name: 'new', parts: [{ data: { n: 1 } }] };
      const after = applyEvent(start, artifactEvent(replacement, false));
      expect(after?.artifacts).toEqual([replacement, { artifactId: 'a2', parts: [{ text: 'other' }] }]);
    });

    it('adds nothing for the empty text part that closes a streamed artifact (lastChunk)', () => {
      const start = baseTask({ artifacts: [{ artifactId: 'a1', parts: [{ text: 'a' }, { text: 'b' }] }] });
      const after = applyEvent(start, artifactEvent({ artifactId: 'a1', parts: [{ text: '' }] }, true, true));
      expect(after?.artifacts).toEqual([{ artifactId: 'a1', parts: [{ text: 'a' }, { text: 'b' }] }]);
    });

    it('keeps the non-text parts of an appended chunk', () => {
      const start = baseTask({ artifacts: [{ artifactId: 'a1', parts: [{ text: 'a' }] }] });
      const after = applyEvent(start, artifactEvent({ artifactId: 'a1', parts: [{ text: '' }, { data: { done: true } }, { url: 'https://x.test/f' }] }, true));
      expect(after?.artifacts?.[0].parts).toEqual([{ text: 'a' }, { data: { done: true } }, { url: 'https://x.test/f' }]);
    });

    it('leaves status and history alone', () => {
      const start = baseTask();
      const after = applyEvent(start, artifactEvent({ artifactId: 'a1', parts: [{ text: 'x' }] }));
      expect(after?.status).toEqual(start.status);
      expect(after?.history).toEqual(start.history);
    });

    it('has nothing to update without a snapshot', () => {
      expect(applyEvent(undefined, artifactEvent({ artifactId: 'a1', parts: [{ text: 'x' }] }))).toBeUndefined();
    });
  });

  it('leaves the task as it is for a message event', () => {
    const task = baseTask();
    expect(applyEvent(task, { message: agentMessage('m', 'x') })).toBe(task);
  });

  it('folds a whole turn into the final snapshot', () => {
    const events: StreamResponse[] = [
      { task: baseTask() },
      { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING', message: agentMessage('m1', 'searching') } } },
      artifactEvent({ artifactId: 'a1', parts: [{ text: 'Hel' }] }),
      artifactEvent({ artifactId: 'a1', parts: [{ text: 'lo' }] }, true),
      artifactEvent({ artifactId: 'a1', parts: [{ text: '' }] }, true, true),
      { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } },
    ];
    const final = events.reduce<Task | undefined>((task, event) => applyEvent(task, event), undefined);
    expect(final).toEqual({
      id: 't1',
      contextId: 'c1',
      status: { state: 'TASK_STATE_COMPLETED' },
      history: [userMessage, agentMessage('m1', 'searching')],
      artifacts: [{ artifactId: 'a1', parts: [{ text: 'Hel' }, { text: 'lo' }] }],
    });
  });
});
