/**
 * The relay from the push outbox to the delivery queue. A task marked due (by the commit that stored
 * its events) gets, for each config whose cursor lags behind, the job for the event after the cursor;
 * the entry is cleared once every cursor has reached it, and only if no commit changed it meanwhile.
 * Adding a job is idempotent (its id is the `webhook-id`), so any number of instances may relay the
 * same task at once, and one that dies mid-way leaves the entry for the next sweep.
 *
 * A config whose lease a live run holds is left to that run: it sends every event due before it lets
 * go of the lease, in the same atomic step as it reads what is due (see ordered-push-delivery.ts), so a
 * job enqueued for it would only step aside.
 *
 * Two ways in: this instance's own commits (as a {@link TaskEventListener}, without waiting: the turn
 * never waits for the queue), and a sweep of the whole outbox every `intervalMs`, which is what picks
 * up the work of an instance that died.
 *
 * For its own commits the relay starts the run itself when the worker has a slot free and first
 * attempts are not delayed (`run`: a direct run, no job; see ordered-push-delivery.ts): the same run
 * under the same lease, which saves the job's add, fetch and finish. Otherwise, and always in the
 * sweep, the job is enqueued. Nothing is lost either way: the due entry stays until every cursor has
 * reached it, and a direct run that dies leaves its lease to lapse, after which the sweep enqueues.
 */
import { Logger } from '@nestjs/common';
import { errorLine } from '../config/error-line.js';
import { captureTraceContext } from '../telemetry/telemetry-api.js';
import type { LoggedEvent } from '../tasks/event-log.js';
import { isTerminalEvent } from '../tasks/event-log.js';
import type { TaskEventListener } from '../tasks/task-events.js';
import type { TaskScope } from '../tasks/task-store.js';
import { pushJobFor } from './ordered-push-delivery.js';
import type { PushConfigStore } from './push-config-store.js';
import type { PushDeliveryQueue } from './push-delivery-queue.js';
import type { PushJobData } from './push-job.js';
import type { ResolvedPushOptions } from './push-options.js';
import type { RedisPushOutbox } from './push-outbox.js';

/** A W3C trace context as a job carries it (`traceparent`, `tracestate`). */
type TraceCarrier = NonNullable<PushJobData['trace']>;

/** Due tasks relayed at once, and read per HSCAN page. */
const BATCH = 100;

export interface PushRelayOptions extends Pick<ResolvedPushOptions, 'retrySchedule' | 'jitter'> {
  /** How long a finished task's configs (and cursors) are kept. */
  readonly finishedTaskConfigTtlMs: number;
  /** How often the whole outbox is swept. */
  readonly intervalMs: number;
  /**
   * The task backend marks tasks due in its own commits (the Redis backend does). Otherwise this
   * listener marks them after each commit (durably, before the write is reported done).
   */
  readonly marksInCommit: boolean;
}

/** @internal */
export class PushRelay implements TaskEventListener {
  private readonly logger = new Logger('A2A');
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  /**
   * Tasks this instance committed to, relayed together at the end of the tick, each with the trace
   * context of the commit that poked it (when traced): its notifications' spans join the turn's trace.
   */
  private readonly poked = new Map<string, { scope: TaskScope; trace: TraceCarrier | undefined }>();
  private pokeScheduled = false;
  private readonly running = new Set<Promise<unknown>>();
  private lastError = 0;
  private closed = false;

  constructor(
    private readonly outbox: Pick<RedisPushOutbox, 'mark' | 'scan' | 'pending' | 'clear'>,
    private readonly configs: PushConfigStore,
    private readonly queue: Pick<PushDeliveryQueue, 'add'>,
    private readonly options: PushRelayOptions,
    /** Starts a direct run of `data`'s config on this instance now; false when no slot is free. */
    private readonly run?: (data: PushJobData) => boolean,
  ) {}

  async onAppended(scope: TaskScope, taskId: string, events: readonly LoggedEvent[]): Promise<void> {
    const last = events[events.length - 1];
    if (!last) return;
    if (!this.options.marksInCommit) {
      if ((await this.configs.list(scope, taskId)).length === 0) return;
      await this.outbox.mark(scope, taskId, last.seq, isTerminalEvent(last.event));
    }
    this.poke(scope, taskId, captureTraceContext());
  }

  /** Sweeps the outbox now and then every `intervalMs`, until {@link close}. */
  start(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => void this.sweep(), this.options.intervalMs);
    this.timer.unref();
    void this.sweep();
  }

  /** Relays every due task once (a sweep already running is joined, not doubled). */
  sweep(): Promise<void> {
    this.sweeping ??= this.track(this.sweepAll()).finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  /** Stops sweeping and waits for the relaying in progress. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await Promise.allSettled([...this.running]);
  }

  private poke(scope: TaskScope, taskId: string, trace: TraceCarrier | undefined): void {
    if (this.closed) return;
    this.poked.set(taskId, { scope, trace });
    if (this.pokeScheduled) return;
    this.pokeScheduled = true;
    setImmediate(() => {
      this.pokeScheduled = false;
      const poked = [...this.poked];
      this.poked.clear();
      void this.track(this.relayPoked(poked));
    });
  }

  private async relayPoked(poked: ReadonlyArray<readonly [string, { scope: TaskScope; trace: TraceCarrier | undefined }]>): Promise<void> {
    for (let i = 0; i < poked.length; i += BATCH) {
      await Promise.all(poked.slice(i, i + BATCH).map(([taskId, { scope, trace }]) => this.relay(scope, taskId, { trace })));
    }
  }

  private async sweepAll(): Promise<void> {
    let cursor = '0';
    do {
      const page = await this.outbox.scan(cursor, BATCH);
      cursor = page.cursor;
      await Promise.all(page.tasks.map((task) => this.relay(task.scope, task.taskId)));
    } while (cursor !== '0' && !this.closed);
  }

  /**
   * Enqueues the next job of every config lagging behind the task's due event, unless a live run
   * holds its lease (for a task this instance `poked`, starts the run directly when it can); clears
   * the entry when none lags. A finished task's configs and cursors get their TTL then, once, in the
   * step that clears the entry: until every config has caught up, the entry is relayed again every
   * sweep, and setting the TTL each time only pushed it back.
   */
  private async relay(scope: TaskScope, taskId: string, poked?: { trace: TraceCarrier | undefined }): Promise<void> {
    // the entry, the configs, their cursors and leases in one command
    const { due, configs, cursors, leased } = await this.outbox.pending(scope, taskId);
    if (!due) return;
    const lagging = [...configs].map(([configId, start]) => ({ configId, cursor: cursors.get(configId) ?? start })).filter(({ cursor }) => cursor < due.seq);
    if (lagging.length === 0) {
      // a finished task's keys get their TTL in the same step
      await this.outbox.clear(due, due.terminal && configs.size > 0 ? this.options.finishedTaskConfigTtlMs : undefined);
      return;
    }
    const trace = poked?.trace;
    const jobs = lagging.filter(({ configId }) => !leased.has(configId)).map(({ configId, cursor }) => pushJobFor({ scope, taskId, seq: cursor + 1, configId, trace }, this.options));
    const direct = poked && this.run && this.options.retrySchedule[0] === 0 ? this.run : undefined;
    await this.queue.add(direct ? jobs.filter((job) => !direct(job.data)) : jobs);
  }

  /** Keeps hold of a relaying promise until it settles; a failure (Redis down) is logged once a minute, and the next sweep retries. */
  private track(work: Promise<void>): Promise<void> {
    const tracked = work.catch((error: unknown) => {
      if (Date.now() - this.lastError < 60_000) return;
      this.lastError = Date.now();
      this.logger.warn(`Push relay: ${errorLine(error)}; retrying on the next sweep`);
    });
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
    return tracked;
  }
}
