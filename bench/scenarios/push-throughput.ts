/**
 * Push throughput (issues 3 and 13): deliveries per second from one instance's worker to a local
 * receiver, across many tasks, each config's events in order.
 *
 * One operation is one task and its notifications: a blocking SendMessage (in process) with an inline
 * push config pointing at the receiver; the task's commit marks it due in the push outbox (Redis,
 * `REDIS_URL`, default 127.0.0.1:6379, under a key prefix of this run, deleted at the end), the relay
 * enqueues the job of its first event, the worker takes the config's lease, reads the event from the
 * log and the config, dials the receiver through the egress policy's pinned dispatcher and POSTs it,
 * then goes on with the next event in the same run while one is due (a later commit finding the lease
 * free gets a job of its own); the operation ends when the task's last event is delivered. So N in flight is N tasks, each
 * delivering its events one after another, as ordering requires. The worker's concurrency, and the
 * per-host and per-caller limits (one receiver, one caller here), are the largest in-flight level.
 *
 * Three cases against the same receiver (node:http on 127.0.0.1, keep-alive, answers 204 at once):
 *   - raw undici POSTs: as many POSTs, one after another per operation, with the same number of
 *     operations in flight (the baseline: what delivering costs without a queue);
 *   - nestjs-a2a push, plain (no signing, no encryption);
 *   - nestjs-a2a push with a signed JWT (ES256) per attempt and the credentials encrypted at rest.
 * Deliveries per second are the operations' rate times the events per task.
 */
import { createServer, type Server } from 'node:http';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { generateKeyPair } from 'jose';
import { PushDeliveryEvents, type A2APushOptions } from 'nestjs-a2a';
import { InProcessA2A } from 'nestjs-a2a/testing';
import { Agent } from 'undici';
import { compare, out, ratio, type BenchCase, type BenchConfig, type Scenario } from '../harness.js';
import { closeServer, KEEP_ALIVE_MS, listenLocally } from '../support/http.js';
import { REDIS_URL, cleanUpRedis, lifecycleModule, runKeyPrefix, sendMessageParams, type Stack } from '../support/lifecycle.js';

/** The bench agent's task: SUBMITTED, WORKING, its artifact, COMPLETED. */
const EVENTS_PER_TASK = 4;
/** Longest wait for one task's notifications before the run is called broken. */
const OP_DEADLINE_MS = 30_000;

const BASELINE = 'raw undici POST';
const PUSH = 'nestjs-a2a push';
const PUSH_SIGNED = 'nestjs-a2a push, signed + encrypted';
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
 * An app with push on (its own key prefix); an operation sends a task with an inline config pointing
 * at `hook` and resolves once its last event is delivered, having checked they came in order.
 */
async function pushStack(label: string, keyPrefix: string, hook: string, push: A2APushOptions): Promise<Stack> {
  const app: INestApplicationContext = await NestFactory.createApplicationContext(lifecycleModule({ url: REDIS_URL, keyPrefix }, push), { logger: false, abortOnError: false });
  try {
    const a2a = InProcessA2A.of(app, { caller: { subject: 'bench' } });
    /** Per task: the seqs delivered so far, and who waits for the last one. */
    const waiting = new Map<string, { seqs: number[]; done?: () => void }>();
    const events = app.get(PushDeliveryEvents);
    events.on('delivered', (e) => {
      const task = waiting.get(e.taskId) ?? { seqs: [] };
      waiting.set(e.taskId, task);
      task.seqs.push(e.seq);
      if (task.seqs.length === EVENTS_PER_TASK) task.done?.();
    });
    events.on('retried', (e) => out(`${label}: a delivery was retried (${e.error}); the numbers are off`));
    const params = sendMessageParams('push bench');
    const op = async () => {
      const answer = await a2a.call<{ task: { id: string } }>('SendMessage', {
        ...params,
        message: { ...params.message, messageId: `${Math.random()}` },
        configuration: { taskPushNotificationConfig: { url: hook, token: 'bench-token', authentication: { scheme: 'Bearer', credentials: 'bench-credentials' } } },
      });
      const taskId = answer.task.id;
      const task = waiting.get(taskId) ?? { seqs: [] };
      waiting.set(taskId, task);
      if (task.seqs.length < EVENTS_PER_TASK) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve, reject) => {
          task.done = resolve;
          timer = setTimeout(() => reject(new Error(`${label}: task ${taskId} got ${task.seqs.length} of ${EVENTS_PER_TASK} notifications in ${OP_DEADLINE_MS} ms`)), OP_DEADLINE_MS);
        }).finally(() => clearTimeout(timer));
      }
      waiting.delete(taskId);
      if (task.seqs.some((seq, i) => seq !== i + 1)) throw new Error(`${label}: task ${taskId} delivered out of order: ${task.seqs.join(',')}`);
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
      const body = JSON.stringify({ statusUpdate: { taskId: 'raw', contextId: 'bench-context', status: { state: 'TASK_STATE_WORKING', timestamp: new Date().toISOString() } } });
      // one task's worth of notifications, one after another (as one config's must go)
      const raw = async (seq: number) => {
        for (let event = 1; event <= EVENTS_PER_TASK; event++) {
          const { statusCode, body: answer } = await client.request({
            origin: receiver.origin,
            path: '/raw',
            method: 'POST',
            headers: { 'content-type': 'application/a2a+json', authorization: 'Bearer bench-credentials', 'webhook-id': `raw.${seq}.${event}` },
            body,
          });
          await answer.dump();
          if (statusCode !== 204) throw new Error(`raw POST: HTTP ${statusCode}`);
        }
      };
      const inFlight = Math.max(...config.concurrency);
      const common: A2APushOptions = {
        retrySchedule: '0,100ms',
        concurrency: inFlight,
        // one receiver and one caller here: fairness limits would measure themselves
        maxInFlightPerHost: inFlight,
        maxInFlightPerCaller: inFlight,
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
      const results = await compare(`push: tasks of ${EVENTS_PER_TASK} notifications each, delivered in order (vs base = over raw undici POSTs at the same in-flight level)`, cases, config);
      for (const level of config.concurrency) {
        const rate = (label: string) => EVENTS_PER_TASK * results.find((m) => m.label === label && m.concurrency === level)!.opsPerSec;
        out(
          `\nwith ${level} tasks in flight: push ${rate(PUSH).toFixed(0)} deliveries/s, signed + encrypted ${rate(PUSH_SIGNED).toFixed(0)}/s, raw POSTs ${rate(BASELINE).toFixed(0)}/s` +
            ` (${ratio(results, PUSH, BASELINE, level).toFixed(2)} × and ${ratio(results, PUSH_SIGNED, BASELINE, level).toFixed(2)} × the raw rate)`,
        );
      }
      const top = Math.max(...config.concurrency);
      out(`GOAL  push deliveries/s with ${top} in flight = ${(EVENTS_PER_TASK * results.find((m) => m.label === PUSH && m.concurrency === top)!.opsPerSec).toFixed(0)} (goal ≥ 3000)`);
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
