/**
 * Push notifications end to end: a real app on the real Redis (a key prefix and a BullMQ prefix of
 * this file's own), real BullMQ workers, and a real webhook receiver on 127.0.0.1 scripted to fail,
 * answer 410, 429/503 with Retry-After, redirect, stall. A fast schedule keeps it quick.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLocalJWKSet, decodeProtectedHeader, generateKeyPair, jwtVerify, type CryptoKey, type JSONWebKeySet } from 'jose';
import { A2AModule, PushDeadLetters, PushDeliveryEvents, TASK_EVENT_LISTENERS, type A2APushOptions, type PushDeliveryEvent } from 'nestjs-a2a';
import { startWebhookReceiver, waitUntil, type ReceivedNotification, type WebhookReceiver } from 'nestjs-a2a/testing';
// the shape of the push providers is the module's own business: looked at from inside
import { PushNotifications } from '../libs/a2a/src/push/push-notifications.js';
import { REDIS_URL, connectClient, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { EchoAgent } from '../src/echo.agent.js';
import { startApp } from './support/custom-app.js';
import type { RunningApp } from './support/demo-app.js';
import { jsonRpcClient, restClient, userMessage, type BindingClient, type Json } from './support/wire-client.js';

const prefix = uniquePrefix();
const ENCRYPTION_KEY = Buffer.alloc(32, 7);
let signingKey: CryptoKey;

/** The events of `/task <text>`: the task, WORKING, the artifact, COMPLETED. */
const TASK_EVENTS = 4;

function pushOptions(overrides: A2APushOptions = {}): A2APushOptions {
  return {
    retrySchedule: '0,50ms,100ms,150ms',
    jitter: 0,
    // only the receiver on 127.0.0.1 may be dialled, over http
    egress: { allowHttp: true, allowHosts: ['127.0.0.1'] },
    encryptionKey: ENCRYPTION_KEY,
    signing: { key: signingKey, alg: 'ES256', kid: 'push-test-key' },
    attemptTimeoutMs: 1000,
    ...overrides,
  };
}

function pushApp(overrides: A2APushOptions = {}): Promise<RunningApp> {
  return startApp(A2AModule.forRoot({ redis: { url: REDIS_URL, keyPrefix: prefix }, defaultAgent: 'echo', push: pushOptions(overrides) }), [EchoAgent]);
}

let app: RunningApp;
let rest: BindingClient;
let rpc: BindingClient;
let receiver: WebhookReceiver;
let events: PushDeliveryEvent[];

beforeAll(async () => {
  ({ privateKey: signingKey } = await generateKeyPair('ES256'));
  app = await pushApp();
  rest = restClient(`${app.url}/a2a/rest`);
  rpc = jsonRpcClient(`${app.url}/a2a/jsonrpc`);
  events = [];
  app.app.get(PushDeliveryEvents).on('*', (e) => events.push(e));
});

afterEach(async () => {
  await receiver?.close();
});

afterAll(async () => {
  await app?.close();
  await deleteKeysUnder(prefix);
});

/** Sends `/task <text>` with an inline config pointing at `path` of the receiver; answers the task. */
async function taskWithWebhook(path: string, config: Json = {}, client: BindingClient = rest): Promise<Json> {
  const res = await client.call('SendMessage', {
    message: userMessage(`/task ${path}`),
    configuration: { taskPushNotificationConfig: { url: receiver.url(path), ...config } },
  });
  expect(res.error).toBeUndefined();
  return res.result.task;
}

const ids = (received: readonly ReceivedNotification[]) => [...new Set(received.map((r) => r.webhookId))];
const eventsOf = (type: string, taskId: string) => events.filter((e) => e.type === type && e.taskId === taskId);

describe('delivery', () => {
  it('sends every event as its own notification, with the config\'s credentials and the documented headers', async () => {
    receiver = await startWebhookReceiver();
    const task = await taskWithWebhook('/all', { token: 'tok-123', authentication: { scheme: 'Bearer', credentials: 's3cret' } });
    const got = await receiver.waitFor((r) => r.length >= TASK_EVENTS);
    await sleep(100);
    expect(got).toHaveLength(TASK_EVENTS);
    const kinds = got.map((r) => Object.keys(r.json)[0]).sort();
    expect(kinds).toEqual(['artifactUpdate', 'statusUpdate', 'statusUpdate', 'task']);
    const completed = got.find((r) => r.json.statusUpdate?.status.state === 'TASK_STATE_COMPLETED')!;
    expect(completed.json.statusUpdate.taskId).toBe(task.id);
    for (const r of got) {
      expect(r.method).toBe('POST');
      expect(r.headers['content-type']).toBe('application/a2a+json');
      expect(r.headers.authorization).toBe('Bearer s3cret');
      expect(r.headers['x-a2a-notification-token']).toBe('tok-123');
      expect(Number(r.headers['webhook-timestamp'])).toBeGreaterThan(Date.now() / 1000 - 60);
      expect(r.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
      expect(r.webhookId).toMatch(new RegExp(`^${task.id}\\.\\d+\\.`));
    }
    expect(ids(got)).toHaveLength(TASK_EVENTS);
    expect(eventsOf('delivered', task.id)).toHaveLength(TASK_EVENTS);
  });

  it('gets every notification to a receiver that fails the first attempts, each retry with the same webhook-id', async () => {
    // the first two attempts of every notification fail: a 500, then a cut connection
    receiver = await startWebhookReceiver((_r, nth) => (nth === 0 ? { status: 500 } : nth === 1 ? { destroy: true } : { status: 204 }));
    const task = await taskWithWebhook('/flaky');
    const got = await receiver.waitFor((r) => r.length >= 3 * TASK_EVENTS);
    await sleep(300);
    expect(got).toHaveLength(3 * TASK_EVENTS);
    expect(ids(got)).toHaveLength(TASK_EVENTS);
    for (const id of ids(got)) {
      const attempts = got.filter((r) => r.webhookId === id);
      expect(attempts).toHaveLength(3);
      expect(new Set(attempts.map((a) => a.body)).size).toBe(1); // the same notification, three times
    }
    expect(eventsOf('delivered', task.id)).toHaveLength(TASK_EVENTS);
    expect(eventsOf('retried', task.id)).toHaveLength(2 * TASK_EVENTS);
    expect(eventsOf('retried', task.id).map((e) => e.error).sort()).toEqual(
      expect.arrayContaining(['HTTP 500', expect.stringMatching(/^connection failed/)]),
    );
  });

  it('disables a config whose receiver answers 410: deleted, no longer listed, nothing more sent', async () => {
    receiver = await startWebhookReceiver(() => ({ status: 410 }));
    const asked = (await rest.call('SendMessage', { message: userMessage('/ask') })).result.task;
    const created = await rest.call('CreateTaskPushNotificationConfig', { taskId: asked.id, id: 'gone', url: receiver.url('/gone') });
    expect(created.result.id).toBe('gone');
    // the continuation appends three events: the task, its artifact, COMPLETED
    await rest.call('SendMessage', { message: userMessage('answer', { taskId: asked.id }) });
    await receiver.waitFor((r) => r.length >= 1);
    await sleep(500);
    // a config's events go one after another: the first 410 stops the rest, none is retried
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0].json.task?.id).toBe(asked.id);
    expect(eventsOf('disabled', asked.id)).toHaveLength(1);
    expect(eventsOf('dropped', asked.id)).toHaveLength(0);
    expect(eventsOf('retried', asked.id)).toHaveLength(0);
    const listed = await rest.call('ListTaskPushNotificationConfigs', { taskId: asked.id });
    expect(listed.result.configs ?? []).toEqual([]);
    expect((await rest.call('GetTaskPushNotificationConfig', { taskId: asked.id, id: 'gone' })).error?.reason).toBe('TASK_NOT_FOUND');
  });

  it('honours Retry-After (seconds) on 429, beyond the schedule\'s delay', async () => {
    receiver = await startWebhookReceiver((_r, nth) => (nth === 0 ? { status: 429, headers: { 'Retry-After': '1' } } : {}));
    const task = await taskWithWebhook('/busy');
    const got = await receiver.waitFor((r) => r.length >= 2 * TASK_EVENTS, 8000);
    for (const id of ids(got)) {
      const [first, second] = got.filter((r) => r.webhookId === id);
      expect(second.at - first.at).toBeGreaterThanOrEqual(950); // the schedule alone would retry after 50 ms
    }
    expect(eventsOf('retried', task.id).every((e) => e.nextDelayMs === 1000 && e.status === 429)).toBe(true);
  });

  it('honours Retry-After as an HTTP date on 503', async () => {
    const when = () => new Date(Date.now() + 2000).toUTCString();
    receiver = await startWebhookReceiver((_r, nth) => (nth === 0 ? { status: 503, headers: { 'Retry-After': when() } } : {}));
    const task = await taskWithWebhook('/maintenance');
    // in order per config: the four events' Retry-After waits (1–2 s each, whole seconds) come one after another
    const got = await receiver.waitFor((r) => r.length >= 2 * TASK_EVENTS, 16_000);
    for (const id of ids(got)) {
      const [first, second] = got.filter((r) => r.webhookId === id);
      expect(second.at - first.at).toBeGreaterThanOrEqual(900); // an HTTP date has whole seconds
    }
    expect(eventsOf('retried', task.id).every((e) => e.status === 503 && e.nextDelayMs! > 900)).toBe(true);
  });

  it('stops delivering to a deleted config: its pending retries send nothing', async () => {
    receiver = await startWebhookReceiver(() => ({ status: 500 }));
    const slow = await startApp(
      A2AModule.forRoot({ redis: { url: REDIS_URL, keyPrefix: `${prefix}slow:` }, defaultAgent: 'echo', push: pushOptions({ retrySchedule: '0,600ms,600ms,600ms' }) }),
      [EchoAgent],
    );
    try {
      const client = restClient(`${slow.url}/a2a/rest`);
      const task = (await client.call('SendMessage', { message: userMessage('/task x'), configuration: { taskPushNotificationConfig: { id: 'doomed', url: receiver.url('/doomed') } } })).result.task;
      await receiver.waitFor((r) => r.length >= 2); // the first event's attempts fail; its retries wait 600 ms
      expect((await client.call('DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'doomed' })).result).toEqual({});
      const sent = receiver.received.length;
      await sleep(1500);
      expect(receiver.received).toHaveLength(sent);
      // the waiting retry found no config; the later events of a deleted config get no job at all
      expect(slow.app.get(PushDeliveryEvents).counters().dropped).toBe(1);
      expect(slow.app.get(PushDeliveryEvents).counters().delivered).toBe(0);
    } finally {
      await slow.close();
    }
  });

  it('never follows a redirect: a 3xx is a failed attempt, retried, and its Location is never asked', async () => {
    receiver = await startWebhookReceiver((r, nth) => (r.path === '/moved' && nth === 0 ? { status: 302, headers: { Location: receiver.url('/elsewhere') } } : {}));
    const task = await taskWithWebhook('/moved');
    await receiver.waitFor((r) => r.length >= 2 * TASK_EVENTS);
    await sleep(200);
    expect(receiver.on('/elsewhere')).toEqual([]);
    expect(eventsOf('retried', task.id).every((e) => e.status === 302 && /redirects are not followed/.test(e.error!))).toBe(true);
    expect(eventsOf('delivered', task.id)).toHaveLength(TASK_EVENTS);
  });

  it('gives a stalled or trickling receiver one deadline per attempt, and retries', async () => {
    receiver = await startWebhookReceiver((r, nth) =>
      nth === 0 ? (r.json?.task ? { delayMs: 3000 } : { body: 'x'.repeat(50), trickleMs: 100 }) : {},
    );
    const task = await taskWithWebhook('/stall');
    const got = await receiver.waitFor((r) => ids(r).every((id) => r.filter((x) => x.webhookId === id).length >= 2) && r.length >= 2 * TASK_EVENTS, 15_000);
    // each first attempt is cut at its 1 s deadline (the stall would last 3 s, the trickle 5 s); the retry follows 50 ms later
    for (const id of ids(got)) {
      const [first, second] = got.filter((r) => r.webhookId === id);
      expect(second.at - first.at).toBeGreaterThanOrEqual(1000);
      expect(second.at - first.at).toBeLessThan(2500);
    }
    expect(eventsOf('retried', task.id).map((e) => e.error)).toEqual(Array(TASK_EVENTS).fill('timeout (no complete answer within 1000 ms)'));
  });

  it('records a dead letter once the schedule is used up: observable as "failed", never with secrets', async () => {
    receiver = await startWebhookReceiver(() => ({ status: 500 }));
    const task = await taskWithWebhook('/down?sig=QUERYSECRET', { token: 'TOKENSECRET', authentication: { scheme: 'Basic', credentials: 'CREDSECRET' } });
    await receiver.waitFor((r) => r.length >= 4 * TASK_EVENTS); // four schedule entries: four attempts each
    await sleep(300);
    expect(receiver.received).toHaveLength(4 * TASK_EVENTS);
    const failed = eventsOf('failed', task.id);
    expect(failed).toHaveLength(TASK_EVENTS);
    const letters = (await app.app.get<PushDeadLetters>(PushDeadLetters).list(50)).filter((l) => l.taskId === task.id);
    expect(letters).toHaveLength(TASK_EVENTS);
    expect(letters[0]).toMatchObject({ attempts: 4, lastStatus: 500, lastError: 'HTTP 500', url: `${receiver.url('/down')}?sig=REDACTED` });
    const text = JSON.stringify([letters, failed]);
    for (const secret of ['QUERYSECRET', 'TOKENSECRET', 'CREDSECRET']) expect(text).not.toContain(secret);
    const counters = app.app.get(PushDeliveryEvents).counters();
    expect(counters.failed).toBeGreaterThanOrEqual(TASK_EVENTS);
    expect(counters.delivered).toBeGreaterThan(0);
    expect(counters.retried).toBeGreaterThan(0);
  });
});

describe('signed notifications', () => {
  it('carries a JWT in X-A2A-Notification-Signature that verifies against the served JWKS; Authorization stays the config\'s', async () => {
    receiver = await startWebhookReceiver();
    const task = await taskWithWebhook('/signed?x=1', { authentication: { scheme: 'Bearer', credentials: 'abc' } });
    const got = await receiver.waitFor((r) => r.length >= TASK_EVENTS);
    const jwks = (await (await fetch(`${app.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    expect(jwks.keys.map((k) => [k.kid, k.alg, k.use, k.d])).toEqual([['push-test-key', 'ES256', 'sig', undefined]]);
    const keySet = createLocalJWKSet(jwks);
    const issuer = `${app.url}/agents/echo/.well-known/agent-card.json`;
    const jtis = new Set<string>();
    for (const r of got) {
      expect(r.headers.authorization).toBe('Bearer abc');
      const jwt = String(r.headers['x-a2a-notification-signature']);
      expect(decodeProtectedHeader(jwt)).toMatchObject({ alg: 'ES256', kid: 'push-test-key', typ: 'JWT' });
      const { payload } = await jwtVerify(jwt, keySet, { issuer, audience: receiver.url('/signed') });
      expect(payload.taskId).toBe(task.id);
      expect(payload.bodySha256).toBe(createHash('sha256').update(r.body).digest('base64url'));
      expect(payload.exp! - payload.iat!).toBe(300);
      jtis.add(String(payload.jti));
    }
    expect(jtis.size).toBe(got.length);
  });
});

describe('the push-config operations', () => {
  it('Create echoes the config; Get and List redact its secrets; Redis holds them encrypted', async () => {
    receiver = await startWebhookReceiver();
    const asked = (await rpc.call('SendMessage', { message: userMessage('/ask') })).result.task;
    const config = { taskId: asked.id, id: 'cfg-1', url: receiver.url('/ops'), token: 'TOKEN-1', authentication: { scheme: 'Bearer', credentials: 'CRED-1' } };
    for (const client of [rpc, rest]) {
      const created = await client.call('CreateTaskPushNotificationConfig', config);
      expect(created.result).toEqual(config);
      const redacted = { ...config, token: '***', authentication: { scheme: 'Bearer', credentials: '***' } };
      expect((await client.call('GetTaskPushNotificationConfig', { taskId: asked.id, id: 'cfg-1' })).result).toEqual(redacted);
      expect((await client.call('ListTaskPushNotificationConfigs', { taskId: asked.id })).result.configs).toEqual([redacted]);
    }
    const redis = await connectClient();
    try {
      const keys = await redis.keys(`${prefix}push:cfg:*:${asked.id}`);
      expect(keys).toHaveLength(1);
      const raw = await redis.hget(keys[0], 'cfg-1');
      expect(raw).not.toContain('TOKEN-1');
      expect(raw).not.toContain('CRED-1');
      expect(raw).toContain('a2a-sealed:v2:');
    } finally {
      redis.disconnect();
    }
    // and what was sealed is what is sent
    await rpc.call('SendMessage', { message: userMessage('go', { taskId: asked.id }) });
    const [first] = await receiver.waitFor((r) => r.length >= 1);
    expect(first.headers.authorization).toBe('Bearer CRED-1');
    expect(first.headers['x-a2a-notification-token']).toBe('TOKEN-1');
  });

  it('assigns an id when none is given, lists by page, deletes idempotently', async () => {
    const asked = (await rest.call('SendMessage', { message: userMessage('/ask') })).result.task;
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await rest.call('CreateTaskPushNotificationConfig', { taskId: asked.id, url: `http://127.0.0.1:9/hook${i}` })).result);
    expect(new Set(made.map((c) => c.id)).size).toBe(3);
    const page1 = (await rpc.call('ListTaskPushNotificationConfigs', { taskId: asked.id, pageSize: 2 })).result;
    expect(page1.configs).toHaveLength(2);
    const page2 = (await rpc.call('ListTaskPushNotificationConfigs', { taskId: asked.id, pageSize: 2, pageToken: page1.nextPageToken })).result;
    expect(page2.configs).toHaveLength(1);
    expect(page2.nextPageToken ?? '').toBe('');
    expect([...page1.configs, ...page2.configs].map((c: Json) => c.id).sort()).toEqual(made.map((c) => c.id).sort());
    for (let i = 0; i < 2; i++) expect((await rest.call('DeleteTaskPushNotificationConfig', { taskId: asked.id, id: made[0].id })).status).toBe(200);
    expect((await rest.call('ListTaskPushNotificationConfigs', { taskId: asked.id })).result.configs).toHaveLength(2);
  });

  it('refuses header-breaking values and names each bad field', async () => {
    const asked = (await rest.call('SendMessage', { message: userMessage('/ask') })).result.task;
    const res = await rpc.call('CreateTaskPushNotificationConfig', {
      taskId: asked.id,
      url: 'http://127.0.0.1:9/hook',
      token: 'a\r\nX-Injected: 1',
      authentication: { scheme: 'Bearer x', credentials: 'ok' },
    });
    expect(res.error?.code).toBe(-32602);
    const fields = res.error!.details.flatMap((d: Json) => d.fieldViolations ?? []).map((v: Json) => v.field);
    expect(fields.sort()).toEqual(['authentication.scheme', 'token']);
  });

  it('answers TaskNotFound for a config of a missing task, and for a missing config', async () => {
    expect((await rest.call('CreateTaskPushNotificationConfig', { taskId: 'nope', url: 'http://127.0.0.1:9/x' })).error?.reason).toBe('TASK_NOT_FOUND');
    const asked = (await rest.call('SendMessage', { message: userMessage('/ask') })).result.task;
    expect((await rpc.call('GetTaskPushNotificationConfig', { taskId: asked.id, id: 'missing' })).error?.code).toBe(-32001);
  });

  it('caps the configs of one task', async () => {
    const capped = await startApp(
      A2AModule.forRoot({ redis: { url: REDIS_URL, keyPrefix: `${prefix}cap:` }, defaultAgent: 'echo', push: pushOptions({ maxConfigsPerTask: 2 }) }),
      [EchoAgent],
    );
    try {
      const client = restClient(`${capped.url}/a2a/rest`);
      const asked = (await client.call('SendMessage', { message: userMessage('/ask') })).result.task;
      for (const id of ['a', 'b']) expect((await client.call('CreateTaskPushNotificationConfig', { taskId: asked.id, id, url: 'http://127.0.0.1:9/x' })).status).toBe(200);
      expect((await client.call('CreateTaskPushNotificationConfig', { taskId: asked.id, id: 'a', url: 'http://127.0.0.1:9/y' })).status).toBe(200); // a replacement
      const third = await client.call('CreateTaskPushNotificationConfig', { taskId: asked.id, id: 'c', url: 'http://127.0.0.1:9/x' });
      expect(third.error?.reason).toBe('RESOURCE_EXHAUSTED');
    } finally {
      await capped.close();
    }
  });

  it('says pushNotifications: true on the card', async () => {
    const card = (await (await fetch(`${app.url}/.well-known/agent-card.json`)).json()) as Json;
    expect(card.capabilities.pushNotifications).toBe(true);
  });
});

describe('restarts and shutdown', () => {
  const own = `${prefix}restart:`; // under prefix: the file's afterAll deletes its keys
  const instance = (schedule: string) =>
    startApp(A2AModule.forRoot({ redis: { url: REDIS_URL, keyPrefix: own }, defaultAgent: 'echo', push: pushOptions({ retrySchedule: schedule }) }), [EchoAgent]);

  it('loses nothing when the worker stops mid-schedule: the next instance delivers the pending retries', async () => {
    receiver = await startWebhookReceiver((_r, nth) => (nth === 0 ? { status: 500 } : {}));
    const first = await instance('0,1500ms');
    let taskId: string;
    try {
      taskId = (await taskWithWebhook('/restart', {}, restClient(`${first.url}/a2a/rest`))).id;
      await receiver.waitFor((r) => r.length >= 1); // the first event's first attempt failed; its retry waits 1.5 s
    } finally {
      await first.close();
    }
    expect(receiver.received).toHaveLength(1);
    const second = await instance('0,1500ms');
    try {
      const delivered: PushDeliveryEvent[] = [];
      second.app.get(PushDeliveryEvents).on('delivered', (e) => delivered.push(e));
      // the retry, then each later event (its first attempt failing too), in order
      const got = await receiver.waitFor((r) => r.length >= 2 * TASK_EVENTS, 15_000);
      expect(got.map((r) => Number(r.webhookId.split('.')[1]))).toEqual([1, 1, 2, 2, 3, 3, 4, 4]);
      expect(ids(got)).toHaveLength(TASK_EVENTS);
      for (const id of ids(got)) expect(got.filter((r) => r.webhookId === id)).toHaveLength(2);
      // 'delivered' comes once the worker has read each answer
      await waitUntil(() => delivered.length >= ids(got).length, { attempts: 50, intervalMs: 20 });
      expect(delivered.map((e) => e.webhookId).sort()).toEqual(ids(got).sort());
      expect(delivered.every((e) => e.taskId === taskId && e.attempt === 2)).toBe(true);
    } finally {
      await second.close();
    }
  });

  it('lets a delivery in flight finish before the app closes', async () => {
    receiver = await startWebhookReceiver(() => ({ delayMs: 400 }));
    const app = await instance('0,50ms');
    const delivered: PushDeliveryEvent[] = [];
    app.app.get(PushDeliveryEvents).on('delivered', (e) => delivered.push(e));
    await taskWithWebhook('/inflight', {}, restClient(`${app.url}/a2a/rest`));
    await receiver.waitFor((r) => r.length >= 1);
    const t0 = Date.now();
    await app.close();
    expect(Date.now() - t0).toBeLessThan(3000);
    // every notification that had reached the receiver was answered and counted before close() returned
    expect(delivered.length).toBeGreaterThanOrEqual(1);
    expect(delivered.length).toBe(receiver.received.length);
  });
});

describe('the module\'s shape with and without push', () => {
  const shape = async (a2a: ReturnType<typeof A2AModule.forRoot>) => {
    const running = await startApp(a2a, [EchoAgent]);
    try {
      return {
        push: running.app.get(PushNotifications).constructor.name,
        listeners: running.app.get<unknown[]>(TASK_EVENT_LISTENERS).map((l) => (l as object).constructor.name),
        deadLetters: running.app.get(PushDeadLetters, { strict: false }) === undefined ? 'none' : 'redis',
      };
    } finally {
      await running.close();
    }
  };

  it('is off by default, even on Redis', async () => {
    expect(await shape(A2AModule.forRoot({ defaultAgent: 'echo' }))).toEqual({ push: 'DisabledPushNotifications', listeners: [], deadLetters: 'none' });
    expect(await shape(A2AModule.forRoot({ defaultAgent: 'echo', redis: { url: REDIS_URL, keyPrefix: `${prefix}shape:` } }))).toEqual({
      push: 'DisabledPushNotifications',
      listeners: [],
      deadLetters: 'none',
    });
  });

  it('is on with push, through forRootAsync too (told beforehand, so that the queue is registered)', async () => {
    const a2a = A2AModule.forRootAsync({
      push: true,
      useFactory: async () => ({ defaultAgent: 'echo', redis: { url: REDIS_URL, keyPrefix: `${prefix}shape:` }, push: pushOptions() }),
    });
    expect(await shape(a2a)).toEqual({ push: 'PushNotificationService', listeners: ['PushRelay'], deadLetters: 'redis' });
  });

  it('fails start-up when push is set without redis, saying so', async () => {
    await expect(startApp(A2AModule.forRoot({ defaultAgent: 'echo', push: {} }), [EchoAgent])).rejects.toThrow(
      'push: needs redis (configs and the delivery queue live in Redis): set redis, or remove push',
    );
  });
});
