/**
 * Push throughput (issue 3): deliveries per second from one instance's worker to a local receiver.
 *
 * One operation is one notification, from the event to the receiver's answer: the task event
 * listener (what the task's writer calls after each event) enqueues the job in BullMQ on Redis
 * (`REDIS_URL`, default 127.0.0.1:6379, under a key prefix of this run, deleted at the end); the
 * worker takes it, reads the config again, dials the receiver through the egress policy's pinned
 * dispatcher and POSTs the event; the operation ends when the 'delivered' event fires. The worker's
 * concurrency is the largest in-flight level, so the queue, not the worker, is what is measured.
 *
 * Three cases against the same receiver (node:http on 127.0.0.1, keep-alive, answers 204 at once):
 *   - raw undici POSTs of the same body and headers with the same number in flight (the baseline:
 *     what delivering costs without a queue);
 *   - nestjs-a2a push, plain (no signing, no encryption);
 *   - nestjs-a2a push with a signed JWT (ES256) per attempt and the credentials encrypted at rest.
 * The ratio is the queue's (and the signing's) price per notification.
 */
import { createServer, type Server } from 'node:http';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { generateKeyPair } from 'jose';
import { PushDeliveryEvents, TASK_EVENT_LISTENERS, type A2APushOptions, type StreamResponse, type TaskEventListener, type TaskScope } from 'nestjs-a2a';
import { InProcessA2A } from 'nestjs-a2a/testing';
import { Agent } from 'undici';
import { compare, out, ratio, type BenchCase, type BenchConfig, type Scenario } from '../harness.js';
import { closeServer, KEEP_ALIVE_MS, listenLocally } from '../support/http.js';
import { AGENT, REDIS_URL, cleanUpRedis, lifecycleModule, runKeyPrefix, sendMessageParams, type Stack } from '../support/lifecycle.js';

const BASELINE = 'raw undici POST';
const PUSH = 'nestjs-a2a push';
const PUSH_SIGNED = 'nestjs-a2a push, signed + encrypted';
/** Whose task the notifications are about: the in-process caller's. */
const SCOPE: TaskScope = { agent: AGENT, tenant: '', subject: 'bench' };

/** The event every notification carries (a status update, as most notifications are). */
function eventOf(taskId: string, seq: number): StreamResponse {
  return {
    statusUpdate: {
      taskId,
      contextId: 'bench-context',
      status: { state: 'TASK_STATE_WORKING', timestamp: new Date(1_700_000_000_000 + seq).toISOString() },
    },
  };
}

/** The receiver: answers 204 at once, counts what it got. */
async function startReceiver(): Promise<{ origin: string; received: () => number; close(): Promise<void> }> {
  let received = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  return { origin: await listenLocally(server), received: () => received, close: () => closeServer(server) };
}

/**
 * An app with push on (its own key prefix), one (finished) task with one config pointing at the
 * receiver; the operations append events to that task's listener, as its writer would.
 */
async function pushStack(label: string, keyPrefix: string, hook: string, push: A2APushOptions): Promise<Stack> {
  const app: INestApplicationContext = await NestFactory.createApplicationContext(lifecycleModule({ url: REDIS_URL, keyPrefix }, push), { logger: false, abortOnError: false });
  try {
    const a2a = InProcessA2A.of(app, { caller: { subject: SCOPE.subject } });
    const { task } = await a2a.call<{ task: { id: string } }>('SendMessage', sendMessageParams('push bench'));
    const taskId = task.id;
    await a2a.call('CreateTaskPushNotificationConfig', { taskId, id: 'hook', url: hook, token: 'bench-token', authentication: { scheme: 'Bearer', credentials: 'bench-credentials' } });
    const [listener] = app.get<TaskEventListener[]>(TASK_EVENT_LISTENERS);
    const waiting = new Map<string, () => void>();
    const events = app.get(PushDeliveryEvents);
    events.on('delivered', (e) => {
      waiting.get(e.webhookId)?.();
      waiting.delete(e.webhookId);
    });
    events.on('retried', (e) => out(`${label}: a delivery was retried (${e.error}); the numbers are off`));
    const op = async (seq: number) => {
      const delivered = new Promise<void>((resolve) => waiting.set(`${taskId}.${seq + 1}.hook`, resolve));
      // seq + 1: event sequence numbers start at 1
      await listener.onAppended(SCOPE, taskId, [{ seq: seq + 1, event: eventOf(taskId, seq + 1) }]);
      await delivered;
    };
    return { op, close: () => app.close() };
  } catch (error) {
    await app.close();
    throw error;
  }
}

const scenario: Scenario = {
  description: 'push notifications: event → BullMQ → worker → POST to a receiver on 127.0.0.1, vs raw undici POSTs',
  async run(config: BenchConfig) {
    const receiver = await startReceiver();
    const client = new Agent({ connections: Math.max(...config.concurrency), keepAliveTimeout: KEEP_ALIVE_MS, keepAliveMaxTimeout: KEEP_ALIVE_MS });
    const prefixes = [runKeyPrefix(), runKeyPrefix()];
    const stacks: Stack[] = [];
    try {
      const body = JSON.stringify(eventOf('raw', 1));
      const raw = async (seq: number) => {
        const { statusCode, body: answer } = await client.request({
          origin: receiver.origin,
          path: '/raw',
          method: 'POST',
          headers: { 'content-type': 'application/a2a+json', authorization: 'Bearer bench-credentials', 'webhook-id': `raw.${seq}` },
          body,
        });
        await answer.dump();
        if (statusCode !== 204) throw new Error(`raw POST: HTTP ${statusCode}`);
      };
      const common: A2APushOptions = {
        retrySchedule: '0,100ms',
        concurrency: Math.max(...config.concurrency),
        egress: { allowHttp: true, allowHosts: ['127.0.0.1'] },
      };
      const { privateKey } = await generateKeyPair('ES256');
      stacks.push(await pushStack(PUSH, prefixes[0], `${receiver.origin}/plain`, common));
      stacks.push(
        await pushStack(PUSH_SIGNED, prefixes[1], `${receiver.origin}/signed`, {
          ...common,
          signing: { key: privateKey, alg: 'ES256', kid: 'bench' },
          encryptionKey: Buffer.alloc(32, 5),
        }),
      );
      const cases: BenchCase[] = [
        { label: BASELINE, op: raw },
        { label: PUSH, op: stacks[0].op },
        { label: PUSH_SIGNED, op: stacks[1].op },
      ];
      const results = await compare('push deliveries (vs base = deliveries/s over raw undici POSTs at the same in-flight level)', cases, config);
      for (const level of config.concurrency) {
        out(
          `\nwith ${level} in flight: push delivers at ${ratio(results, PUSH, BASELINE, level).toFixed(2)} × the raw POST rate` +
            ` (signed + encrypted: ${ratio(results, PUSH_SIGNED, BASELINE, level).toFixed(2)} ×)`,
        );
      }
      out(`(receiver: ${receiver.received()} requests)`);
    } finally {
      await Promise.all(stacks.map((s) => s.close()));
      await client.close();
      await receiver.close();
      for (const prefix of prefixes) await cleanUpRedis(prefix);
    }
  },
};

export default scenario;
