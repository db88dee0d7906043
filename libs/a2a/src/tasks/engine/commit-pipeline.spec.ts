import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { StreamResponse } from '../../protocol/types.js';
import { InMemoryTaskBackend } from '../in-memory/in-memory-task-backend.js';
import type { TaskWrite } from '../task-backend.js';
import { ConcurrentTaskUpdateError, type StoredTask, type TaskScope } from '../task-store.js';
import { CommitPipeline, type CommitFn } from './commit-pipeline.js';

const scope: TaskScope = { agent: 'a', tenant: '', subject: 'alice' };

describe('CommitPipeline', () => {
  const backend = new InMemoryTaskBackend();
  afterAll(() => backend.close());

  /** The backend's commit, with each write it was given recorded. */
  function recordingCommit() {
    const writes: TaskWrite[] = [];
    const commit: CommitFn = (write) => {
      writes.push(write);
      return backend.commit(write);
    };
    return { writes, commit };
  }

  function opening(taskId: string): StreamResponse {
    return { task: { id: taskId, contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } } };
  }

  function working(taskId: string, text: string): StreamResponse {
    return { statusUpdate: { taskId, contextId: 'c', status: { state: 'TASK_STATE_WORKING', message: { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text }] } } } };
  }

  it('commits the events of one turn of the event loop together, and folds each into the snapshot as it comes', async () => {
    const id = randomUUID();
    const { writes, commit } = recordingCommit();
    const pipeline = new CommitPipeline(commit, scope, undefined, () => undefined);
    const seqs = [pipeline.push(opening(id)), pipeline.push(working(id, 'one')), pipeline.push(working(id, 'two'))];
    expect(pipeline.snapshot).toMatchObject({ seq: 3, version: 1, task: { status: { state: 'TASK_STATE_WORKING' } } });
    expect(writes).toHaveLength(0); // issued when the turn of the event loop ends
    expect(await Promise.all(seqs)).toEqual([1, 2, 3]);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatchObject({ current: undefined, next: pipeline.snapshot!.task });
    expect(writes[0].events).toHaveLength(3);
    expect(await backend.store.get(scope, id)).toEqual(pipeline.snapshot);
  });

  it('issues each commit without waiting for the one before', async () => {
    const id = randomUUID();
    const issued: TaskWrite[] = [];
    const answers: Array<() => void> = [];
    // each answer waits until the test lets it through, so the second is issued while the first is on its way
    const commit: CommitFn = (write) => {
      issued.push(write);
      const stored = backend.commit(write);
      return new Promise<StoredTask>((resolve, reject) => answers.push(() => void stored.then(resolve, reject)));
    };
    const pipeline = new CommitPipeline(commit, scope, undefined, () => undefined);
    const first = pipeline.push(opening(id));
    pipeline.flush();
    const second = pipeline.push(working(id, 'next'));
    pipeline.flush();
    expect(issued.map((w) => [w.current?.version ?? 0, w.events.length])).toEqual([[0, 1], [1, 1]]);
    answers.forEach((answer) => answer());
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    await pipeline.flushed();
  });

  it('after the first failed commit, fails every later one, says so once, and flushed() throws that failure', async () => {
    const id = randomUUID();
    // another writer got there first, and moved the task on
    const created = await backend.commit({ scope, current: undefined, events: [opening(id)], next: { id, contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } } });
    await backend.commit({ scope, current: created, events: [working(id, 'theirs')], next: { id, contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } });
    const failures: unknown[] = [];
    // a writer that believes it creates the task
    const pipeline = new CommitPipeline((write) => backend.commit(write), scope, undefined, () => failures.push(pipeline.failure?.error));
    const lost = pipeline.push(opening(id));
    pipeline.flush();
    const later = pipeline.push(working(id, 'never'));
    await expect(lost).rejects.toBeInstanceOf(ConcurrentTaskUpdateError);
    await expect(later).rejects.toBeInstanceOf(ConcurrentTaskUpdateError);
    await expect(pipeline.flushed()).rejects.toBeInstanceOf(ConcurrentTaskUpdateError);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(ConcurrentTaskUpdateError);
    expect((await backend.store.get(scope, id))?.seq).toBe(2);
  });
});
