/** How a task is shown: historyLength (spec digest §5.4) and includeArtifacts (§5.9). */
import { describe, expect, it } from '@jest/globals';
import { taskView, type TaskViewOptions } from './task-view.js';
import type { Message, Task } from './types.js';

const message = (id: string): Message => ({ messageId: id, role: 'ROLE_USER', parts: [{ text: id }], contextId: 'ctx-1', taskId: 'task-1' });

const TASK: Task = {
  id: 'task-1',
  contextId: 'ctx-1',
  status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: '2026-03-12T10:00:00.000Z' },
  artifacts: [{ artifactId: 'a1', name: 'Report', parts: [{ text: '…' }] }],
  history: [message('m1'), message('m2'), message('m3')],
  metadata: { source: 'test' },
};

describe('taskView', () => {
  it.each<{ name: string; options: TaskViewOptions | undefined; history: string[] | undefined }>([
    { name: 'no options: all history', options: undefined, history: ['m1', 'm2', 'm3'] },
    { name: 'historyLength unset: all history', options: {}, history: ['m1', 'm2', 'm3'] },
    { name: 'historyLength 0: the history key is omitted', options: { historyLength: 0 }, history: undefined },
    { name: 'historyLength 1: the most recent message', options: { historyLength: 1 }, history: ['m3'] },
    { name: 'historyLength 2: the 2 most recent, oldest first', options: { historyLength: 2 }, history: ['m2', 'm3'] },
    { name: 'historyLength 3: all', options: { historyLength: 3 }, history: ['m1', 'm2', 'm3'] },
    { name: 'historyLength 50 > history: all', options: { historyLength: 50 }, history: ['m1', 'm2', 'm3'] },
  ])('$name', ({ options, history }) => {
    const view = taskView(TASK, options);
    if (history === undefined) expect('history' in view).toBe(false);
    else expect(view.history?.map((m) => m.messageId)).toEqual(history);
    expect(view.history?.length ?? 0).toBeLessThanOrEqual(options?.historyLength ?? Infinity);
  });

  it.each<{ name: string; options: TaskViewOptions; artifacts: boolean }>([
    { name: 'includeArtifacts unset keeps artifacts', options: {}, artifacts: true },
    { name: 'includeArtifacts true keeps artifacts', options: { includeArtifacts: true }, artifacts: true },
    { name: 'includeArtifacts false removes the key', options: { includeArtifacts: false }, artifacts: false },
  ])('$name', ({ options, artifacts }) => {
    const view = taskView(TASK, options);
    expect('artifacts' in view).toBe(artifacts);
    if (artifacts) expect(view.artifacts).toEqual(TASK.artifacts);
    expect(JSON.stringify(view).includes('"artifacts"')).toBe(artifacts);
  });

  it('keeps every other field and leaves the stored task untouched', () => {
    const snapshot = structuredClone(TASK);
    const view = taskView(TASK, { historyLength: 0, includeArtifacts: false });
    expect(view).toEqual({ id: 'task-1', contextId: 'ctx-1', status: TASK.status, metadata: { source: 'test' } });
    expect(TASK).toEqual(snapshot);
  });

  it('a whole task (no historyLength, artifacts kept) is the stored task itself, and a cut one is a copy', () => {
    expect(taskView(TASK)).toBe(TASK);
    expect(taskView(TASK, { includeArtifacts: true })).toBe(TASK);
    expect(taskView(TASK, { historyLength: 3 })).not.toBe(TASK);
    expect(taskView({ ...TASK, history: [] })).not.toHaveProperty('history');
  });

  it('a task without history or artifacts has neither key', () => {
    const bare: Task = { id: 't', status: { state: 'TASK_STATE_SUBMITTED' }, history: [], artifacts: [] };
    const view = taskView(bare, { historyLength: 5, includeArtifacts: true });
    expect(Object.keys(view).sort()).toEqual(['id', 'status']);
  });
});
