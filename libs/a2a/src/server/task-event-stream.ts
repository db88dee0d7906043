/**
 * A task's log as a stream's events (SubscribeToTask, SendStreamingMessage): an iterator object
 * rather than an async generator, since an open stream waits in it for as long as its task runs.
 * A generator would keep a suspended frame, its promise and request queue per stream on top of the
 * log's own follower; this keeps five fields and, while waiting, one pending `then` (issue 14).
 */
import { isTerminalState, type StreamResponse } from '../protocol/types.js';
import { taskView } from '../protocol/task-view.js';
import type { LoggedEvent } from '../tasks/event-log.js';
import type { StreamEvent } from './a2a-request-handler.js';
import { DONE, nextTo, whenSettled, type ReceivingIterator, type ResultReceiver } from '../tasks/event-log-follower.js';

/**
 * The events of `log`, shown as a stream shows them: ends after a terminal state or
 * INPUT_REQUIRED (AUTH_REQUIRED stays open: the agent may resume once credentials arrive out of
 * band), or when the log ends (its follow was aborted: the client went away). `first`
 * (SubscribeToTask's snapshot) goes out before the log's events and is not held after. After a
 * stream's first event, a `task` event (a continuation) is shown as its status update.
 */
export class TaskEventStream implements AsyncIterableIterator<StreamEvent>, ReceivingIterator<StreamEvent>, ResultReceiver<LoggedEvent> {
  private ended = false;
  /** Who waits for this stream's next event ({@link nextTo}) while the log's follower waits for the log's. */
  private receiver?: ResultReceiver<StreamEvent>;

  constructor(
    private readonly log: AsyncIterator<LoggedEvent>,
    private started: boolean,
    private readonly historyLength?: number,
    private first?: StreamEvent,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<StreamEvent>> {
    if (this.first) {
      const value = this.first;
      this.first = undefined;
      return Promise.resolve({ done: false, value });
    }
    if (this.ended) return Promise.resolve(DONE);
    return this.log.next().then((next) => this.shown(next));
  }

  /**
   * {@link next} for a receiver: while it waits, the log's follower holds this stream and this
   * stream holds the receiver, with no promise or closure between them (issue 14).
   */
  nextTo(receiver: ResultReceiver<StreamEvent>): IteratorResult<StreamEvent> | undefined {
    if (this.first) {
      const value = this.first;
      this.first = undefined;
      return { done: false, value };
    }
    if (this.ended) return DONE;
    this.receiver = receiver;
    const next = nextTo(this.log, this);
    if (next === undefined) return undefined;
    this.receiver = undefined;
    return this.shownTo(next, receiver);
  }

  /** @internal The log's next event, for the receiver that waits. */
  receive(next: IteratorResult<LoggedEvent>): void {
    const receiver = this.receiver!;
    this.receiver = undefined;
    const shown = this.shownTo(next, receiver);
    if (shown) receiver.receive(shown);
  }

  /** @internal The log failed. */
  fail(error: unknown): void {
    const receiver = this.receiver!;
    this.receiver = undefined;
    receiver.fail(error);
  }

  /** {@link shown} now, or undefined when it comes later (the last event, once the log is let go) to `receiver`. */
  private shownTo(next: IteratorResult<LoggedEvent>, receiver: ResultReceiver<StreamEvent>): IteratorResult<StreamEvent> | undefined {
    const shown = this.shown(next);
    if (!(shown instanceof Promise)) return shown;
    whenSettled(shown, receiver);
    return undefined;
  }

  /** Stops following the log (the consumer left early, or failed). */
  async return(): Promise<IteratorResult<StreamEvent>> {
    this.first = undefined;
    await this.end();
    return DONE;
  }

  /** Not async: a promise only for the last event (while the log is let go), none per event before it. */
  private shown(next: IteratorResult<LoggedEvent>): IteratorResult<StreamEvent> | Promise<IteratorResult<StreamEvent>> {
    if (next.done || this.ended) {
      this.ended = true;
      return DONE;
    }
    const { seq, event } = next.value;
    let shown: StreamResponse = event;
    if ('task' in event) {
      shown = this.started
        ? { statusUpdate: { taskId: event.task.id, contextId: event.task.contextId ?? '', status: event.task.status } }
        : { task: taskView(event.task, { historyLength: this.historyLength }) };
    }
    this.started = true;
    const result: IteratorResult<StreamEvent> = { done: false, value: { seq, event: shown } };
    if ('statusUpdate' in shown) {
      const state = shown.statusUpdate.status.state;
      // the log is let go at once: its follower stops waiting for events this stream will not show
      if (isTerminalState(state) || state === 'TASK_STATE_INPUT_REQUIRED') return this.end().then(() => result);
    }
    return result;
  }

  private async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.log.return?.();
  }
}
