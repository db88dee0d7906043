/**
 * One attempt at a time, without BullMQ: the processor against a real Redis config store and a real
 * receiver on 127.0.0.1. Names are answered by a fake resolver; the only address dialled is 127.0.0.1.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { EgressPolicy, type EgressPolicyOptions } from '../net/egress-policy.js';
import { createPinnedDispatcher } from '../net/pinned-dispatcher.js';
import { fakeLookup, type FakeAnswer, type FakeLookup } from '../testing/fake-lookup.js';
import { connectClient, deleteKeys, uniquePrefix } from '../redis/testing/redis-test-support.js';
import type { TaskScope } from '../tasks/task-store.js';
import { RedisPushDeadLetters } from './push-dead-letters.js';
import { PushDeliveryEvents, type PushDeliveryEvent } from './push-delivery-events.js';
import type { StoredPushConfig } from './push-config-store.js';
import type { ResolvedPushOptions } from './push-options.js';
import { PushNotificationService } from './push-notification.service.js';
import { RedisPushConfigStore } from './redis-push-config-store.js';
import { SecretBox } from './secret-box.js';
import { sealConfig } from './stored-config.js';
import { startWebhookReceiver, type ReceiverReply, type WebhookReceiver } from '../testing/webhook-receiver.js';
import { DeliveryAttemptError, DeliveryFailedError, WebhookDeliveryProcessor, notificationOf, type DeliveryAttempt } from './webhook-delivery.processor.js';
import { v03PushNotificationBody } from '../protocol/v03/push-notification.js';

const prefix = uniquePrefix();
const scope: TaskScope = { agent: 'echo', tenant: '', subject: 'alice' };
const NOW = Date.parse('2026-03-01T12:00:00Z');
const box = new SecretBox(Buffer.alloc(32, 1));

let redis: Redis;
let configs: RedisPushConfigStore;
let deadLetters: RedisPushDeadLetters;
let receiver: WebhookReceiver;
let reply: (nth: number) => ReceiverReply;
const open: Array<{ close(): Promise<unknown> }> = [];

beforeAll(async () => {
  Logger.overrideLogger(false); // the failures these tests cause are logged by design
  redis = await connectClient();
  configs = new RedisPushConfigStore(redis, { keyPrefix: prefix });
  deadLetters = new RedisPushDeadLetters(redis, { keyPrefix: prefix, limit: 10, now: () => NOW }); // the processor's clock
  receiver = await startWebhookReceiver((_r, nth) => reply(nth));
});

afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
  receiver.received.length = 0;
});

afterAll(async () => {
  await receiver.close();
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

const OPTIONS: ResolvedPushOptions = {
  retrySchedule: [0, 1000, 60_000],
  jitter: 0,
  attemptTimeoutMs: 500,
  maxResponseBytes: 64,
  retryAfterCapMs: 3_600_000,
  egress: {},
  queuePrefix: 'p',
  concurrency: 1,
  maxInFlightPerHost: 1,
  maxInFlightPerCaller: 1,
  maxConfigsPerTask: 5,
  deadLetterLimit: 10,
  shutdownTimeoutMs: 1000,
};

function processor(policy: EgressPolicyOptions = { allowHttp: true, allowHosts: ['127.0.0.1'] }, dns: Record<string, FakeAnswer> | FakeLookup = {}) {
  const lookup = typeof dns === 'function' ? dns : fakeLookup(dns);
  const dispatcher = createPinnedDispatcher(new EgressPolicy({ ...policy, lookup }));
  open.push({ close: () => dispatcher.close() });
  const events: PushDeliveryEvent[] = [];
  const emitter = new PushDeliveryEvents();
  emitter.on('*', (e) => events.push(e));
  const p = new WebhookDeliveryProcessor({
    configs,
    box,
    dispatcher,
    events: emitter,
    deadLetters,
    options: OPTIONS,
    issuerOf: (agent) => `https://agents.example/${agent}`,
    now: () => NOW,
  });
  return { p, events, lookup };
}

let next = 0;
/** A stored config for a task of its own, and a job for its event `seq` 1. */
async function given(url: string, extra: { token?: string; authentication?: { scheme: string; credentials?: string } } = {}) {
  const taskId = `task-${++next}`;
  const config = sealConfig(box, scope, taskId, 'cfg', { url, ...extra }, NOW);
  await configs.put(scope, config, 5);
  const job = (attemptsMade: number) => attemptOf(taskId, config, attemptsMade);
  return { taskId, job };
}

/** Attempt `attemptsMade + 1` (of 3) of event 1 of `taskId`, with `config` as read, the body `body`. */
function attemptOf(taskId: string, config: StoredPushConfig, attemptsMade = 0, body = '{"statusUpdate":{}}'): DeliveryAttempt {
  return { webhookId: `${taskId}.1.cfg`, data: { scope, taskId, seq: 1, configId: 'cfg' }, config, notification: notificationOf(body), attemptsMade, maxAttempts: 3 };
}

async function outcome(promise: Promise<unknown>): Promise<unknown> {
  try {
    return await promise;
  } catch (error) {
    return error;
  }
}

const signal = new AbortController().signal;

describe('WebhookDeliveryProcessor', () => {
  it('sends the body with Content-Type, Authorization, the token header and the webhook headers', async () => {
    reply = () => ({ status: 202 });
    const { p, events } = processor();
    const { job } = await given(receiver.url('/h?k=v'), { token: 't-1', authentication: { scheme: 'Basic', credentials: 'dXNlcjpwYXNz' } });
    expect(await p.process(job(0), signal)).toBe('delivered');
    const [r] = receiver.received;
    expect(r.path).toBe('/h?k=v');
    expect(r.body).toBe('{"statusUpdate":{}}');
    expect(r.headers).toMatchObject({
      'content-type': 'application/a2a+json',
      authorization: 'Basic dXNlcjpwYXNz',
      'x-a2a-notification-token': 't-1',
      'webhook-id': job(0).webhookId,
      'webhook-timestamp': String(NOW / 1000),
      'a2a-version': '1.0',
    });
    expect(r.headers['x-a2a-notification-signature']).toBeUndefined();
    expect(events).toEqual([expect.objectContaining({ type: 'delivered', status: 202, attempt: 1, maxAttempts: 3, url: receiver.url('/h?k=REDACTED') })]);
  });

  it('sends a 0.3 notification (the whole task, kind-tagged) as application/json without A2A-Version', async () => {
    reply = () => ({});
    const { p } = processor();
    const { taskId, job } = await given(receiver.url('/v03'), { token: 't-3' });
    const body = JSON.stringify(v03PushNotificationBody({ id: taskId, contextId: 'ctx', status: { state: 'TASK_STATE_INPUT_REQUIRED' }, artifacts: [{ artifactId: 'a', parts: [{ text: 'so far' }] }] }));
    expect(await p.process({ ...job(0), notification: { body, contentType: 'application/json' } }, signal)).toBe('delivered');
    const [r] = receiver.received;
    expect(r.json).toEqual({ kind: 'task', id: taskId, contextId: 'ctx', status: { state: 'input-required' }, artifacts: [{ artifactId: 'a', parts: [{ kind: 'text', text: 'so far' }] }] });
    expect(r.headers).toMatchObject({ 'content-type': 'application/json', 'x-a2a-notification-token': 't-3', 'webhook-id': job(0).webhookId });
    expect(r.headers['a2a-version']).toBeUndefined();
  });

  it('sends no Authorization when the config has a scheme but no credentials', async () => {
    reply = () => ({});
    const { p } = processor();
    const { job } = await given(receiver.url('/bare'), { authentication: { scheme: 'Bearer' } });
    await p.process(job(0), signal);
    expect(receiver.received[0].headers.authorization).toBeUndefined();
  });

  it.each([
    [500, {}, 'HTTP 500', 1000],
    [404, {}, 'HTTP 404', 1000],
    [301, { Location: 'https://elsewhere.example/' }, 'HTTP 301 (redirects are not followed)', 1000],
    [429, { 'Retry-After': '7' }, 'HTTP 429', 7000],
    [503, { 'Retry-After': 'Sun, 01 Mar 2026 12:00:30 GMT' }, 'HTTP 503', 30_000],
    [429, { 'Retry-After': '999999' }, 'HTTP 429', 3_600_000],
    [429, {}, 'HTTP 429', 1000],
    [500, { 'Retry-After': '7' }, 'HTTP 500', 1000],
  ])('a %p answer (%j) is retried: %s, next in %p ms', async (status, headers, reason, delay) => {
    reply = () => ({ status, headers });
    const { p, events } = processor();
    const { job } = await given(receiver.url('/fail'));
    const error = await outcome(p.process(job(0), signal));
    expect(error).toBeInstanceOf(DeliveryAttemptError);
    expect((error as DeliveryAttemptError).message).toBe(reason);
    expect(p.nextDelay(1, error)).toBe(delay);
    expect(events).toEqual([expect.objectContaining({ type: 'retried', status, error: reason, nextDelayMs: delay })]);
  });

  it('follows the schedule for a failure it did not judge (the second retry waits the third delay)', () => {
    const { p } = processor();
    expect(p.nextDelay(2, new Error('something else'))).toBe(60_000);
    expect(p.nextDelay(9, undefined)).toBe(60_000);
  });

  it('reads at most maxResponseBytes of an answer and gives each attempt one deadline', async () => {
    reply = () => ({ status: 200, body: 'x'.repeat(10_000) });
    const { p } = processor();
    expect(await p.process((await given(receiver.url('/big'))).job(0), signal)).toBe('delivered');
    reply = () => ({ status: 200, body: 'slow body', trickleMs: 100 });
    const t0 = Date.now();
    const error = await outcome(p.process((await given(receiver.url('/trickle'))).job(0), signal));
    expect((error as Error).message).toBe('timeout (no complete answer within 500 ms)');
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it('disables the config on 410: deleted, nothing retried', async () => {
    reply = () => ({ status: 410 });
    const { p, events } = processor();
    const { taskId, job } = await given(receiver.url('/gone'));
    expect(await p.process(job(0), signal)).toBe('disabled');
    expect(await configs.get(scope, taskId, 'cfg')).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(['disabled']);
    expect(receiver.received).toHaveLength(1);
  });

  it('writes a dead letter after the last attempt, without secrets', async () => {
    reply = () => ({ status: 502 });
    const { p, events } = processor();
    const { taskId, job } = await given(receiver.url('/dead?sig=SIGSECRET'), { token: 'TOKSECRET', authentication: { scheme: 'Bearer', credentials: 'CREDSECRET' } });
    const error = await outcome(p.process(job(2), signal));
    expect(error).toBeInstanceOf(DeliveryFailedError);
    const [letter] = (await deadLetters.list(10)).filter((l) => l.taskId === taskId);
    expect(letter).toEqual({
      webhookId: job(2).webhookId,
      scope,
      taskId,
      seq: 1,
      configId: 'cfg',
      url: receiver.url('/dead?sig=REDACTED'),
      attempts: 3,
      lastStatus: 502,
      lastError: 'HTTP 502',
      failedAt: '2026-03-01T12:00:00.000Z',
    });
    expect(events.map((e) => e.type)).toEqual(['failed']);
    expect(JSON.stringify([letter, events])).not.toMatch(/SIGSECRET|TOKSECRET|CREDSECRET/);
  });

  it('checks the address again at every attempt: a name that rebinds to loopback is refused, nothing is dialled', async () => {
    reply = () => ({});
    const dns = { 'hooks.rebind.example': (call: number) => (call === 0 ? ['93.184.215.14'] : ['127.0.0.1']) };
    const lookup = fakeLookup(dns);
    // registration: the name resolves to a public address and is accepted
    const policy = new EgressPolicy({ allowHttp: true, lookup });
    const service = new PushNotificationService(configs, { get: async () => undefined } as never, policy, box, { maxConfigsPerTask: 5, finishedTaskConfigTtlMs: 1000 });
    const url = `http://hooks.rebind.example:${receiver.port}/rebind`;
    await service.validate({ url });
    // delivery: the same name now answers 127.0.0.1 (DNS rebinding)
    const { p, events } = processor({ allowHttp: true }, lookup);
    const { job } = await given(url);
    const error = await outcome(p.process(job(0), signal));
    expect((error as Error).message).toBe('egress refused (loopback)');
    expect(lookup.calls).toEqual(['hooks.rebind.example', 'hooks.rebind.example']);
    expect(receiver.received).toEqual([]);
    expect(events).toEqual([expect.objectContaining({ type: 'retried', error: 'egress refused (loopback)' })]);
  });

  it('dials the checked address of an allowed name, keeping the name in Host', async () => {
    reply = () => ({});
    const { p, lookup } = processor({ allowHttp: true, allowHosts: ['hooks.internal.test'] }, { 'hooks.internal.test': ['127.0.0.1'] });
    const { job } = await given(`http://hooks.internal.test:${receiver.port}/named`);
    expect(await p.process(job(0), signal)).toBe('delivered');
    expect(lookup.calls).toEqual(['hooks.internal.test']);
    expect(receiver.received[0].headers.host).toBe(`hooks.internal.test:${receiver.port}`);
  });

  it('sends no secret to a URL rewritten in the store: the sealed secrets are bound to the URL and scheme they were registered with', async () => {
    reply = () => ({});
    const { p } = processor();
    for (const rewrite of [{ url: receiver.url('/attacker') }, { authentication: { scheme: 'Basic', credentials: undefined } }]) {
      const taskId = `task-${++next}`;
      const sealed = sealConfig(box, scope, taskId, 'cfg', { url: receiver.url('/owner'), token: 'T', authentication: { scheme: 'Bearer', credentials: 'CRED' } }, NOW);
      const credentials = sealed.authentication!.credentials;
      const moved = { ...sealed, ...rewrite, ...(rewrite.authentication ? { authentication: { scheme: 'Basic', credentials } } : {}) };
      await configs.put(scope, moved, 5);
      const error = await outcome(p.process(attemptOf(taskId, moved, 0, '{}'), signal));
      expect((error as Error).message).toBe('a push config secret does not decrypt: it was altered, or belongs to another config or another URL');
      expect(receiver.received).toEqual([]);
    }
  });

  it('counts a secret that no longer opens (another key) as a failed attempt, naming no secret', async () => {
    reply = () => ({});
    const { p } = processor();
    const taskId = `task-${++next}`;
    const config = sealConfig(new SecretBox(Buffer.alloc(32, 9)), scope, taskId, 'cfg', { url: receiver.url('/k'), token: 'T' }, NOW);
    const error = await outcome(p.process(attemptOf(taskId, config, 0, '{}'), signal));
    expect((error as Error).message).toMatch(/^a push config secret was encrypted with another key/);
    expect(receiver.received).toEqual([]);
  });
});
