/**
 * Push deliveries in traces and metrics, on the real Redis (a key prefix of this file's own), real
 * BullMQ workers and a real webhook receiver on 127.0.0.1; and the rule that no span, event or
 * metric carries a message's text, a credential or a token.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { A2AModule } from 'nestjs-a2a';
import { A2AClient } from 'nestjs-a2a/client';
import { startWebhookReceiver, waitUntil, type WebhookReceiver } from 'nestjs-a2a/testing';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { REDIS_URL, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { EchoAgent } from '../src/echo.agent.js';
import { startApp } from './support/custom-app.js';
import type { RunningApp } from './support/demo-app.js';
import { installTelemetry, pointsWith, spansWith, traceparentOf, type TestTelemetry } from './support/telemetry.js';
import { restClient, userMessage, type BindingClient } from './support/wire-client.js';

const prefix = uniquePrefix();
/** The events of `/task <text>`: the task, WORKING, the artifact, COMPLETED. */
const TASK_EVENTS = 4;

let telemetry: TestTelemetry;
let app: RunningApp;
let rest: BindingClient;
let receiver: WebhookReceiver;

beforeAll(async () => {
  telemetry = installTelemetry();
  app = await startApp(
    A2AModule.forRoot({
      redis: { url: REDIS_URL, keyPrefix: prefix },
      defaultAgent: 'echo',
      push: { retrySchedule: '0,50ms,100ms', jitter: 0, egress: { allowHttp: true, allowHosts: ['127.0.0.1'] }, attemptTimeoutMs: 1000 },
    }),
    [EchoAgent],
  );
  rest = restClient(`${app.url}/a2a/rest`);
});

afterEach(async () => {
  await receiver?.close();
});

afterAll(async () => {
  await app?.close();
  await deleteKeysUnder(prefix);
  await telemetry?.shutdown();
});

const deliverySpans = (taskId: string): ReadableSpan[] => spansWith(telemetry.spans(), 'a2a.push.delivery', { 'a2a.task.id': taskId });

describe('a push delivery', () => {
  it('is a span per attempt under the turn that wrote its event, whose traceparent the webhook POST carries; attempts, deliveries and lag are counted', async () => {
    receiver = await startWebhookReceiver();
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const res = await rest.call(
      'SendMessage',
      { message: userMessage('/task pushed'), configuration: { taskPushNotificationConfig: { url: receiver.url('/hook') } } },
      { headers: { traceparent: traceparentOf(traceId, 'b7ad6b7169203331') } },
    );
    const taskId = res.result.task.id;
    await receiver.waitFor((r) => r.length >= TASK_EVENTS);
    await waitUntil(() => deliverySpans(taskId).length >= TASK_EVENTS);

    const [turn] = spansWith(telemetry.spans(), 'a2a.turn', { 'a2a.task.id': taskId });
    const spans = deliverySpans(taskId);
    for (const span of spans) {
      expect(span.spanContext().traceId).toBe(traceId);
      expect(span.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
      expect(span.attributes).toMatchObject({ 'a2a.agent': 'echo', 'a2a.push.attempt': 1, 'a2a.push.outcome': 'delivered', 'http.response.status_code': 200 });
    }
    // each POST carries its own attempt's span as the parent of whatever the receiver does
    const sent = receiver.received.map((r) => r.headers.traceparent);
    expect(sent.sort()).toEqual(spans.map((s) => traceparentOf(traceId, s.spanContext().spanId)).sort());

    await telemetry.collect();
    expect(pointsWith(telemetry.points('a2a.push.attempts'), { 'a2a.push.outcome': 'delivered' })[0].value).toBeGreaterThanOrEqual(TASK_EVENTS);
    const attempts = pointsWith(telemetry.points('a2a.push.delivery.attempts'), { 'a2a.push.outcome': 'delivered' })[0].value as Histogram;
    expect(attempts.count).toBeGreaterThanOrEqual(TASK_EVENTS);
    expect(attempts.max).toBe(1);
    const lag = pointsWith(telemetry.points('a2a.push.delivery.lag'), { 'a2a.push.outcome': 'delivered' })[0].value as Histogram;
    expect(lag.count).toBeGreaterThanOrEqual(TASK_EVENTS);
  });

  it('a failed attempt: retried on its span (with the status), then delivered on the next; the delivery took 2 attempts', async () => {
    // the first attempt of the task event's notification fails, every other attempt passes
    receiver = await startWebhookReceiver((request, nth) => (nth === 0 && request.json?.task !== undefined ? { status: 500 } : undefined));
    const res = await rest.call('SendMessage', { message: userMessage('/task retried'), configuration: { taskPushNotificationConfig: { url: receiver.url('/flaky') } } });
    const taskId = res.result.task.id;
    await waitUntil(() => deliverySpans(taskId).length >= TASK_EVENTS + 1);
    const retried = deliverySpans(taskId).filter((s) => s.attributes['a2a.push.outcome'] === 'retried');
    expect(retried).toHaveLength(1);
    expect(retried[0].attributes).toMatchObject({ 'a2a.push.attempt': 1, 'http.response.status_code': 500, 'error.type': 'DeliveryAttemptError' });
    expect(deliverySpans(taskId).filter((s) => s.attributes['a2a.push.attempt'] === 2)[0].attributes['a2a.push.outcome']).toBe('delivered');

    await telemetry.collect();
    expect(pointsWith(telemetry.points('a2a.push.attempts'), { 'a2a.push.outcome': 'retried' })[0].value).toBe(1);
    expect((pointsWith(telemetry.points('a2a.push.delivery.attempts'), { 'a2a.push.outcome': 'delivered' })[0].value as Histogram).max).toBe(2);
  });
});

describe('what telemetry never carries', () => {
  it("no span name, attribute, event or status, and no metric attribute, holds a message's text, a webhook credential or token, or a caller's header", async () => {
    const marker = 'MARKER-7f3a9c';
    receiver = await startWebhookReceiver();
    const config = { url: receiver.url('/secret'), token: `token-${marker}`, authentication: { scheme: 'Bearer', credentials: `cred-${marker}` } };
    const res = await rest.call(
      'SendMessage',
      { message: userMessage(`/task text-${marker}`, { metadata: { note: `meta-${marker}` } }), configuration: { taskPushNotificationConfig: config } },
      { headers: { authorization: `Bearer header-${marker}` } },
    );
    const taskId = res.result.task.id;
    await receiver.waitFor((r) => r.length >= TASK_EVENTS);
    // the webhook did get them: the marker is there to be leaked
    expect(receiver.received.some((r) => r.headers['x-a2a-notification-token'] === `token-${marker}` && r.body.includes(marker))).toBe(true);

    // an outbound call with a credential header, and a failing executor whose error names a secret
    const client = new A2AClient({ cardUrl: app.url, egress: { allowHttp: true, allowHosts: ['127.0.0.1'] }, headers: { authorization: `Bearer client-${marker}` } });
    try {
      await client.sendMessage({ message: userMessage(`/task client-${marker}`) });
      await client.sendMessage({ message: userMessage(`/throw ${marker}`) });
      await expect(client.getTask({ id: `id-${marker}` })).rejects.toThrow();
    } finally {
      await client.close();
    }
    await waitUntil(() => deliverySpans(taskId).length >= TASK_EVENTS);

    const spans = telemetry.spans();
    const seen = JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status, links: s.links })));
    expect(seen).toContain(taskId); // what is recorded is there
    expect(seen).not.toContain(marker);
    const metrics = await telemetry.collect();
    const recorded = JSON.stringify(metrics.map((m) => ({ name: m.descriptor.name, points: m.dataPoints.map((p) => p.attributes) })));
    expect(recorded).toContain('a2a.push.attempts');
    expect(recorded).not.toContain(marker);
    expect(recorded).not.toContain(taskId); // metrics carry no ids either
  });
});
