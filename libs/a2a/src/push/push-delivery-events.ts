/** What happens to webhook deliveries, for the app: events to listen to, counters to read. */
import { Injectable, Logger } from '@nestjs/common';
import type { TaskScope } from '../tasks/task-store.js';

/**
 * - `delivered`: the receiver answered 2xx.
 * - `retried`: an attempt failed and another one is scheduled (`nextDelayMs`).
 * - `failed`: the last attempt failed; a dead-letter record is written.
 * - `disabled`: the receiver answered 410 Gone; its config is deleted.
 * - `dropped`: the config was deleted (or expired) before the attempt: nothing was sent.
 * @publicApi
 */
export type PushDeliveryEventType = 'delivered' | 'retried' | 'failed' | 'disabled' | 'dropped';

/** One delivery event. It never carries credentials, tokens or a URL's query values. @publicApi */
export interface PushDeliveryEvent {
  readonly type: PushDeliveryEventType;
  /** The notification's `webhook-id` (the same across its attempts). */
  readonly webhookId: string;
  readonly scope: TaskScope;
  readonly taskId: string;
  /** The event's sequence number in the task's log. */
  readonly seq: number;
  readonly configId: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Attempts the schedule allows. */
  readonly maxAttempts: number;
  /** The webhook URL, redacted (no userinfo, query values replaced). Absent for `dropped`. */
  readonly url?: string;
  /** The receiver's HTTP status, when it answered. */
  readonly status?: number;
  /** Why the attempt failed (`timeout`, `ECONNREFUSED`, `egress refused: …`, `HTTP 500` …). */
  readonly error?: string;
  /** `retried`: the delay before the next attempt, in ms. */
  readonly nextDelayMs?: number;
}

/** Counts since this instance started (per process, not across instances). @publicApi */
export type PushDeliveryCounters = Readonly<Record<PushDeliveryEventType, number>>;

export type PushDeliveryListener = (event: PushDeliveryEvent) => void;

/**
 * Delivery events and counters of this instance. Listeners run synchronously in the worker: keep
 * them quick; an error thrown by one is logged and does not affect the delivery.
 * @publicApi
 */
@Injectable()
export class PushDeliveryEvents {
  private readonly logger = new Logger('A2A');
  private readonly listeners = new Set<{ type: PushDeliveryEventType | '*'; listener: PushDeliveryListener }>();
  private readonly counts: Record<PushDeliveryEventType, number> = { delivered: 0, retried: 0, failed: 0, disabled: 0, dropped: 0 };

  /**
   * Calls `listener` for every event of `type` (`'*'`: all of them).
   * @returns a function that removes the listener
   */
  on(type: PushDeliveryEventType | '*', listener: PushDeliveryListener): () => void {
    const entry = { type, listener };
    this.listeners.add(entry);
    return () => void this.listeners.delete(entry);
  }

  counters(): PushDeliveryCounters {
    return { ...this.counts };
  }

  /** @internal */
  emit(event: PushDeliveryEvent): void {
    this.counts[event.type]++;
    for (const { type, listener } of this.listeners) {
      if (type !== '*' && type !== event.type) continue;
      try {
        listener(event);
      } catch (error) {
        this.logger.warn(`A push delivery listener threw ${(error as Error)?.name ?? typeof error}`);
      }
    }
  }
}
