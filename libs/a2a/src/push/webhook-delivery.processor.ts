/**
 * One attempt of one notification: with the config as just read (its caller sends nothing to a deleted one), dial its URL
 * through the egress policy (checked and pinned at connect time), POST the event, and judge the
 * answer. 2xx delivered; 410 disables the config; 429 and 503 retry after `Retry-After` (capped);
 * anything else (3xx included: redirects are never followed), a timeout or a connection error is
 * retried on the schedule until it is used up, then recorded as a dead letter.
 */
import { Logger } from '@nestjs/common';
import { EgressDeadlineError, EgressRefusedError, EgressRequestError } from '../net/egress-errors.js';
import type { PinnedDispatcher } from '../net/pinned-dispatcher.js';
import { redactUrl } from '../net/redact-url.js';
import { requestWithDeadline } from '../net/request-with-deadline.js';
import { A2A_JSON } from '../protocol/json-body.js';
import { PROTOCOL_VERSION, type TaskPushNotificationConfig } from '../protocol/types.js';
import type { PushConfigStore, StoredPushConfig } from './push-config-store.js';
import type { PushDeadLetters } from './push-dead-letters.js';
import type { PushDeliveryEvent, PushDeliveryEvents } from './push-delivery-events.js';
import type { PushJobData } from './push-job.js';
import type { ResolvedPushOptions } from './push-options.js';
import { injectTraceContext } from '../telemetry/telemetry-api.js';
import { observePushAttempt, recordPushStatus, type PushAttemptOutcome } from '../telemetry/push-telemetry.js';
import { formatDelay, jittered, retryAfterDelay } from './retry-schedule.js';
import { NOTIFICATION_SIGNATURE_HEADER, type NotificationSigner } from './notification-signer.js';
import { SealedSecretError, type SecretBox } from './secret-box.js';
import { openConfig } from './stored-config.js';

/** Header with the config's `token` (the 0.3 convention, which SDKs and receivers still use). @publicApi */
export const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';

/** An attempt failed and another one follows after `nextDelayMs`. */
export class DeliveryAttemptError extends Error {
  constructor(
    message: string,
    readonly nextDelayMs: number,
    /** The receiver gave no complete answer within the attempt's deadline. */
    readonly timedOut = false,
    /** The receiver's HTTP status, when it answered. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'DeliveryAttemptError';
  }
}

/** The last attempt failed: the notification is a dead letter. */
export class DeliveryFailedError extends Error {
  constructor(
    message: string,
    /** The receiver gave no complete answer within the attempt's deadline. */
    readonly timedOut = false,
  ) {
    super(message);
    this.name = 'DeliveryFailedError';
  }
}

/** One notification as sent: its body, media type and `A2A-Version` (0.3 sent none). */
export interface Notification {
  readonly body: string;
  readonly contentType: string;
  readonly protocolVersion?: string;
}

/** A 1.0 notification: the event, a StreamResponse in its HTTP+JSON (ProtoJSON) form. */
export function notificationOf(body: string): Notification {
  return { body, contentType: A2A_JSON, protocolVersion: PROTOCOL_VERSION };
}

/** One attempt of one notification, as the ordered delivery hands it over. */
export interface DeliveryAttempt {
  /** The notification's `webhook-id`. */
  readonly webhookId: string;
  readonly data: PushJobData;
  /** The config as read just before this attempt. */
  readonly config: StoredPushConfig;
  /** What is POSTed, exactly as sent. */
  readonly notification: Notification;
  /** When the job was enqueued (ms since the epoch), for the delivery lag. */
  readonly enqueuedAt?: number;
  /** Attempts made before this one. */
  readonly attemptsMade: number;
  readonly maxAttempts: number;
}

/** How an attempt went, when it did not succeed. */
interface Failure {
  readonly reason: string;
  readonly status?: number;
  /** `Retry-After` asked for this delay. */
  readonly retryAfterMs?: number;
  /** No complete answer within the deadline. */
  readonly timedOut?: boolean;
}

export interface WebhookDeliveryDeps {
  readonly configs: PushConfigStore;
  readonly box: SecretBox;
  readonly dispatcher: PinnedDispatcher;
  readonly events: PushDeliveryEvents;
  readonly deadLetters: PushDeadLetters;
  readonly options: ResolvedPushOptions;
  /** The JWT `iss` for an agent's notifications: its card URL (unless the signing options name one). */
  readonly issuerOf: (agent: string) => string;
  readonly signer?: NotificationSigner;
  readonly now?: () => number;
  readonly random?: () => number;
}

/** @internal */
export class WebhookDeliveryProcessor {
  private readonly logger = new Logger('A2A');
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(private readonly deps: WebhookDeliveryDeps) {
    this.now = deps.now ?? Date.now;
    this.random = deps.random ?? Math.random;
  }

  /**
   * One attempt. `config` is the config as just read (the caller read it: a deleted one gets nothing).
   * @returns 'delivered' (2xx) or 'disabled' (410: the config is deleted)
   * @throws DeliveryAttemptError when another attempt follows, DeliveryFailedError after the last one
   */
  process(attempt: DeliveryAttempt, signal: AbortSignal): Promise<'delivered' | 'disabled'> {
    const { scope, taskId, trace } = attempt.data;
    const observed = { agent: scope.agent, taskId, attempt: attempt.attemptsMade + 1, enqueuedAt: attempt.enqueuedAt ?? Date.now(), trace };
    return observePushAttempt(observed, () => this.send(attempt, signal), attemptOutcome);
  }

  private async send(attempt: DeliveryAttempt, signal: AbortSignal): Promise<'delivered' | 'disabled'> {
    const { webhookId, config: stored, notification } = attempt;
    const { scope, taskId, seq, configId } = attempt.data;
    const base = { webhookId, scope, taskId, seq, configId, attempt: attempt.attemptsMade + 1, maxAttempts: attempt.maxAttempts };
    const shown = redactUrl(stored.url);
    let failure: Failure;
    try {
      const config = openConfig(this.deps.box, scope, stored);
      const headers = await this.headers(webhookId, scope.agent, taskId, config, notification);
      const answer = await requestWithDeadline(this.deps.dispatcher, config.url, {
        method: 'POST',
        headers,
        body: notification.body,
        deadlineMs: this.deps.options.attemptTimeoutMs,
        maxBodyBytes: this.deps.options.maxResponseBytes,
        signal,
      });
      const status = answer.statusCode;
      recordPushStatus(status);
      if (status >= 200 && status < 300) {
        this.emit({ type: 'delivered', ...base, url: shown, status });
        return 'delivered';
      }
      if (status === 410) {
        // the receiver says this webhook is gone for good: no more notifications to it
        await this.deps.configs.delete(scope, taskId, configId);
        this.logger.warn(`Push config ${configId} of task ${taskId} disabled: ${shown} answered 410 Gone`);
        this.emit({ type: 'disabled', ...base, url: shown, status });
        return 'disabled';
      }
      const retryAfterMs =
        status === 429 || status === 503 ? retryAfterDelay(answer.headers['retry-after'], this.now(), this.deps.options.retryAfterCapMs) : undefined;
      failure = { reason: status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`, status, retryAfterMs };
    } catch (error) {
      if (signal.aborted && error === signal.reason) throw error; // shutting down: the job is attempted again later
      failure = { reason: describeFailure(error), timedOut: error instanceof EgressDeadlineError };
    }
    return this.failed(base, shown, failure);
  }

  /** A config that is gone (deleted, expired) before an attempt: nothing is sent. */
  dropped(attempt: Omit<DeliveryAttempt, 'config' | 'notification'>): 'dropped' {
    const { scope, taskId, seq, configId } = attempt.data;
    this.emit({ type: 'dropped', webhookId: attempt.webhookId, scope, taskId, seq, configId, attempt: attempt.attemptsMade + 1, maxAttempts: attempt.maxAttempts });
    return 'dropped';
  }

  /** BullMQ's backoff: the delay chosen when the attempt failed, else the schedule's. */
  nextDelay(attemptsMade: number, error: unknown): number {
    const chosen = (error as { nextDelayMs?: unknown } | undefined)?.nextDelayMs;
    if (typeof chosen === 'number') return chosen;
    return this.scheduledDelay(attemptsMade);
  }

  /** Releases the connections of the dispatcher. */
  async close(): Promise<void> {
    await this.deps.dispatcher.close().catch(() => undefined);
  }

  private scheduledDelay(attemptsMade: number): number {
    const schedule = this.deps.options.retrySchedule;
    return jittered(schedule[Math.min(attemptsMade, schedule.length - 1)], this.deps.options.jitter, this.random);
  }

  private async failed(base: Omit<PushDeliveryEvent, 'type'>, url: string, failure: Failure): Promise<never> {
    const { attempt, maxAttempts } = base;
    if (attempt >= maxAttempts) {
      await this.deps.deadLetters.record({
        webhookId: base.webhookId,
        scope: base.scope,
        taskId: base.taskId,
        seq: base.seq,
        configId: base.configId,
        url,
        attempts: attempt,
        ...(failure.status === undefined ? {} : { lastStatus: failure.status }),
        lastError: failure.reason,
        failedAt: new Date(this.now()).toISOString(),
      });
      this.logger.warn(`Push notification ${base.webhookId} to ${url} failed after ${attempt} attempts: ${failure.reason}`);
      this.emit({ type: 'failed', ...base, url, status: failure.status, error: failure.reason });
      throw new DeliveryFailedError(failure.reason, failure.timedOut);
    }
    const nextDelayMs = failure.retryAfterMs ?? this.scheduledDelay(attempt);
    this.logger.debug(`Push notification ${base.webhookId} to ${url}: attempt ${attempt} of ${maxAttempts} failed (${failure.reason}); next in ${formatDelay(nextDelayMs)}`);
    this.emit({ type: 'retried', ...base, url, status: failure.status, error: failure.reason, nextDelayMs });
    throw new DeliveryAttemptError(failure.reason, nextDelayMs, failure.timedOut, failure.status);
  }

  private async headers(
    webhookId: string,
    agent: string,
    taskId: string,
    config: TaskPushNotificationConfig,
    notification: Notification,
  ): Promise<Record<string, string>> {
    const nowSeconds = Math.floor(this.now() / 1000);
    const body = notification.body;
    const headers: Record<string, string> = {
      'content-type': notification.contentType,
      'user-agent': 'nestjs-a2a',
      ...(notification.protocolVersion ? { 'a2a-version': notification.protocolVersion } : {}),
      'webhook-id': webhookId,
      'webhook-timestamp': String(nowSeconds),
    };
    const auth = config.authentication;
    if (auth?.credentials) headers.authorization = `${auth.scheme} ${auth.credentials}`;
    if (config.token) headers[NOTIFICATION_TOKEN_HEADER.toLowerCase()] = config.token;
    injectTraceContext(headers); // the attempt's span: the receiver's work joins the task's trace
    if (this.deps.signer) {
      const url = new URL(config.url);
      headers[NOTIFICATION_SIGNATURE_HEADER.toLowerCase()] = await this.deps.signer.sign({
        issuer: this.deps.signer.issuer ?? this.deps.issuerOf(agent),
        audience: `${url.origin}${url.pathname}`,
        taskId,
        body,
        nowSeconds,
      });
    }
    return headers;
  }

  private emit(event: PushDeliveryEvent): void {
    this.deps.events.emit(event);
  }
}

function attemptOutcome(settled: { value: 'delivered' | 'disabled' } | { error: unknown }): PushAttemptOutcome {
  if ('value' in settled) return settled.value;
  if (settled.error instanceof DeliveryAttemptError) return 'retried';
  return settled.error instanceof DeliveryFailedError ? 'failed' : 'aborted';
}

/** A failure in words fit for a log line and a dead letter: no secret, no full URL. */
function describeFailure(error: unknown): string {
  if (error instanceof EgressDeadlineError) return `timeout (no complete answer within ${error.deadlineMs} ms)`;
  if (error instanceof EgressRequestError) return `connection failed (${error.code})`;
  if (error instanceof EgressRefusedError) return `egress refused (${error.reason})`;
  if (error instanceof SealedSecretError) return error.message;
  return `error (${(error as Error)?.name ?? typeof error})`;
}
