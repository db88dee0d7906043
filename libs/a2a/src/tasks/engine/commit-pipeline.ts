/**
 * How a turn's events reach the backend. The events of one turn of the event loop go in one commit
 * (one round trip for a whole quick lifecycle); commits are pipelined: each is issued without waiting
 * for the one before, and since each expects the snapshot the one before makes, a failed commit fails
 * every later one. After the first failure the turn writes nothing more.
 */
import type { StreamResponse } from '../../protocol/types.js';
import type { TaskBackend, TaskWrite } from '../task-backend.js';
import type { TaskEventListener } from '../task-events.js';
import { applyEvent } from '../task-fold.js';
import type { StoredTask, TaskScope } from '../task-store.js';
import { deferred, RESOLVED, type Deferred } from './deferred.js';

/** One write as the engine makes it. */
export type CommitFn = (write: TaskWrite) => Promise<StoredTask>;

/** The backend's commit, then every listener with the commit's events in log order (a listener that fails fails the write). */
export function notifyingCommit(backend: Pick<TaskBackend, 'commit'>, listeners: readonly TaskEventListener[]): CommitFn {
  if (listeners.length === 0) return (write) => backend.commit(write);
  return async (write) => {
    const stored = await backend.commit(write);
    const first = stored.seq - write.events.length + 1;
    const logged = write.events.map((event, i) => ({ seq: first + i, event }));
    for (const listener of listeners) await listener.onAppended(write.scope, stored.task.id, logged);
    return stored;
  };
}

/** What the end of a turn of the event loop runs: a module function given its pipeline, not a closure per pipeline. */
const flushPipeline = (pipeline: CommitPipeline) => pipeline.flush();

export class CommitPipeline {
  /** The task as the commits issued so far make it: ahead of the store while they are on their way. */
  private stored: StoredTask | undefined;
  /** Events of the current turn of the event loop, committed together when it ends. */
  private batch?: { readonly base: StoredTask | undefined; readonly events: StreamResponse[]; readonly done: Deferred<StoredTask> };
  /** The last commit issued. */
  private lastCommit: Promise<unknown> = RESOLVED;
  private failedWith?: { readonly error: unknown };

  constructor(
    private readonly commit: CommitFn,
    private readonly scope: TaskScope,
    base: StoredTask | undefined,
    /** Called once, at the first failed commit. */
    private readonly onFailure: () => void,
  ) {
    this.stored = base;
  }

  /** The snapshot the issued commits make (undefined before the first event of a new task). */
  get snapshot(): StoredTask | undefined {
    return this.stored;
  }

  /** The first commit that failed, if one did: what the store holds is not {@link snapshot}. */
  get failure(): { readonly error: unknown } | undefined {
    return this.failedWith;
  }

  /**
   * Queues `event` after the ones before it and moves the snapshot on to what it makes. Resolves
   * with the event's sequence number once it is stored.
   */
  push(event: StreamResponse): Promise<number> {
    const stored = this.add(event);
    const seq = this.stored!.seq;
    return stored.then(() => seq);
  }

  /**
   * {@link push} without a promise of the event's own: resolves (or fails) with the commit of the
   * event's batch, one promise shared by every event in it, already handled when nobody awaits it.
   */
  add(event: StreamResponse): Promise<StoredTask> {
    if (!this.batch) {
      this.batch = { base: this.stored, events: [], done: deferred<StoredTask>() };
      setImmediate(flushPipeline, this);
    }
    const batch = this.batch;
    batch.events.push(event);
    const seq = (this.stored?.seq ?? 0) + 1;
    this.stored = { task: applyEvent(this.stored?.task, event)!, scope: this.scope, seq, version: (batch.base?.version ?? 0) + 1 };
    return batch.done.promise;
  }

  /** Issues the queued events as one commit, after the commits before it. */
  flush(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    // push() folded every queued event into the snapshot as it came: that is the batch's `next`
    const written = this.commit({ scope: this.scope, current: batch.base, events: batch.events, next: this.stored!.task });
    written.then(batch.done.resolve, batch.done.reject);
    this.lastCommit = written.catch((error: unknown) => {
      if (this.failedWith) return;
      this.failedWith = { error };
      this.onFailure();
    });
  }

  /** Every event queued so far is issued, and every commit issued has landed or failed. */
  async settle(): Promise<void> {
    this.flush();
    await this.lastCommit;
  }

  /** Every event so far is stored, or the first failure is thrown. */
  async flushed(): Promise<void> {
    await this.settle();
    if (this.failedWith) throw this.failedWith.error;
  }
}
