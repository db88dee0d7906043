import { afterEach, describe, expect, it } from '@jest/globals';
import type { StreamResponse, Task, TaskState } from '../protocol/types.js';
import type { LoggedEvent } from '../tasks/event-log.js';
import { InMemoryEventLog } from '../tasks/in-memory/in-memory-event-log.js';
import type { StreamEvent } from './a2a-request-handler.js';
import { TaskEventStream } from './task-event-stream.js';

const TASK = 't1';

function stateEvent(state: TaskState): StreamResponse {
  return { statusUpdate: { taskId: TASK, contextId: 'ctx', status: { state } } };
}

function task(state: TaskState): Task {
  return { id: TASK, contextId: 'ctx', status: { state }, history: [{ messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] }] } as Task;
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const seen: StreamEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe('TaskEventStream', () => {
  let log: InMemoryEventLog;
  const controller = new AbortController();

  afterEach(() => log.close());

  /** Did the stream tell the log's follower it is no longer wanted? */
  let released = false;

  function streamOf(afterSeq: number, started: boolean, first?: StreamEvent, historyLength?: number): TaskEventStream {
    released = false;
    const follower = log.follow(TASK, afterSeq, controller.signal)[Symbol.asyncIterator]();
    const tracked: AsyncIterator<LoggedEvent> = {
      next: () => follower.next(),
      return: () => {
        released = true;
        return follower.return!();
      },
    };
    return new TaskEventStream(tracked, started, historyLength, first);
  }

  it('sends the snapshot first, then the log after it, and ends at the terminal state, letting the log go', async () => {
    log = new InMemoryEventLog();
    let seq = await log.append(TASK, { task: task('TASK_STATE_SUBMITTED') }, 0);
    const snapshot: StreamEvent = { seq, event: { task: task('TASK_STATE_SUBMITTED') } };
    const events = collect(streamOf(seq, true, snapshot));
    seq = await log.append(TASK, stateEvent('TASK_STATE_WORKING'), seq);
    seq = await log.append(TASK, stateEvent('TASK_STATE_COMPLETED'), seq);
    await log.append(TASK, stateEvent('TASK_STATE_WORKING'), seq); // never shown: the stream ended before it
    const seen = await events;
    expect(seen.map((e) => [e.seq, Object.keys(e.event)[0]])).toEqual([
      [1, 'task'],
      [2, 'statusUpdate'],
      [3, 'statusUpdate'],
    ]);
    expect(seen[0]).toBe(snapshot);
    expect(released).toBe(true);
    expect(log.waitingFollowers).toBe(0);
  });

  it('shows a continuation (a task event after the first) as its status update, and the first task event as the task', async () => {
    log = new InMemoryEventLog();
    let seq = await log.append(TASK, { task: task('TASK_STATE_WORKING') }, 0);
    seq = await log.append(TASK, { task: task('TASK_STATE_INPUT_REQUIRED') }, seq);
    const seen = await collect(streamOf(0, false, undefined, 0));
    expect(seen[0].event).toEqual({ task: { id: TASK, contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' } } });
    // INPUT_REQUIRED ends a stream too
    expect(seen[1]).toEqual({ seq, event: { statusUpdate: { taskId: TASK, contextId: 'ctx', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } } });
    expect(seen).toHaveLength(2);
    expect(released).toBe(true);
  });

  it('stays open at AUTH_REQUIRED', async () => {
    log = new InMemoryEventLog();
    let seq = await log.append(TASK, stateEvent('TASK_STATE_AUTH_REQUIRED'), 0);
    const stream = streamOf(0, true);
    expect((await stream.next()).value).toEqual({ seq, event: stateEvent('TASK_STATE_AUTH_REQUIRED') });
    const next = stream.next();
    seq = await log.append(TASK, stateEvent('TASK_STATE_COMPLETED'), seq);
    expect((await next).value).toEqual({ seq, event: stateEvent('TASK_STATE_COMPLETED') });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it('lets the log go when its consumer leaves early (return), snapshot unsent included', async () => {
    log = new InMemoryEventLog();
    await log.append(TASK, stateEvent('TASK_STATE_WORKING'), 0);
    const stream = streamOf(0, true, { seq: 1, event: { task: task('TASK_STATE_WORKING') } });
    await stream.next(); // the snapshot
    await stream.next(); // WORKING, from the log: its follower now waits at the event it yielded
    expect(await stream.return()).toEqual({ done: true, value: undefined });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(released).toBe(true);
    expect(log.waitingFollowers).toBe(0);
  });

  it('ends when the follow is aborted (the client went away), leaving no follower behind', async () => {
    log = new InMemoryEventLog();
    await log.append(TASK, stateEvent('TASK_STATE_WORKING'), 0);
    const leaving = new AbortController();
    const stream = new TaskEventStream(log.follow(TASK, 1, leaving.signal)[Symbol.asyncIterator](), true);
    const next = stream.next();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log.waitingFollowers).toBe(1);
    leaving.abort();
    expect(await next).toEqual({ done: true, value: undefined });
    expect(log.waitingFollowers).toBe(0);
  });
});
