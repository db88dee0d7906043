/**
 * Push delivery attempts: a CLIENT span per attempt, child of the turn that wrote the event (its
 * trace context travels in the job), and the attempts, deliveries and lag by outcome.
 */
import { Observation, SpanKind, observing } from './observation.js';
import { restoreTraceContext } from './telemetry-api.js';
import { ATTR, SPAN } from './telemetry-names.js';

/** How an attempt ended (the push delivery event types, and `aborted` when the worker stopped). */
export type PushAttemptOutcome = 'delivered' | 'retried' | 'failed' | 'disabled' | 'dropped' | 'aborted';

/** What an attempt's observation needs of its job. */
export interface ObservedPushJob {
  readonly agent: string;
  readonly taskId: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** When the job was enqueued (ms since the epoch). */
  readonly enqueuedAt: number;
  /** The W3C trace context of the commit that enqueued it. */
  readonly trace?: Readonly<Record<string, string>>;
}

/**
 * Runs one delivery attempt observed. `outcomeOf` names how it ended from what `run` answered or
 * threw; the POST it makes carries the attempt's `traceparent` (see `injectTraceContext`).
 */
export async function observePushAttempt<T>(job: ObservedPushJob, run: () => Promise<T>, outcomeOf: (settled: { value: T } | { error: unknown }) => PushAttemptOutcome): Promise<T> {
  if (!observing()) return run();
  const attributes = { [ATTR.agent]: job.agent, [ATTR.taskId]: job.taskId, [ATTR.pushAttempt]: job.attempt };
  const observation = new Observation(SPAN.pushDelivery, SpanKind.CLIENT, attributes, restoreTraceContext(job.trace));
  try {
    const value = await observation.run(run);
    end(observation, job, outcomeOf({ value }));
    return value;
  } catch (error) {
    const outcome = outcomeOf({ error });
    observation.fail(error);
    end(observation, job, outcome);
    throw error;
  }
}

/** The webhook's HTTP status, on the attempt's span (a no-op outside an observed attempt). */
export function recordPushStatus(status: number): void {
  Observation.current()?.set(ATTR.httpStatus, status);
}

function end(observation: Observation, job: ObservedPushJob, outcome: PushAttemptOutcome): void {
  observation.set(ATTR.pushOutcome, outcome);
  observation.end();
  const meters = observation.meters;
  if (meters === undefined) return;
  const attributes = { [ATTR.agent]: job.agent, [ATTR.pushOutcome]: outcome };
  meters.pushAttempts.add(1, attributes);
  if (outcome === 'retried' || outcome === 'aborted') return;
  // the notification's last attempt: how many it took, and how long after its event
  meters.pushDeliveryAttempts.record(job.attempt, attributes);
  meters.pushDeliveryLag.record(Math.max(0, Date.now() - job.enqueuedAt) / 1000, attributes);
}
