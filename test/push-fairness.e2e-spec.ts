/**
 * One caller's dead receiver cannot delay another caller's notifications: alice's tasks all point at
 * a receiver that never answers, bob's at one that does; bob's arrive at once, and the hanging host
 * gets one delivery at a time. A real app on the real Redis (a key prefix of this file's own), real
 * BullMQ workers, both receivers on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2AModule } from 'nestjs-a2a';
import { startWebhookReceiver, type WebhookReceiver } from 'nestjs-a2a/testing';
import { REDIS_URL, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { EchoAgent } from '../src/echo.agent.js';
import { startApp } from './support/custom-app.js';
import type { RunningApp } from './support/demo-app.js';
import { restClient, userMessage } from './support/wire-client.js';

const prefix = uniquePrefix();
/** Longer than any wait below: a delivery to the hanging receiver always ends at its deadline. */
const ATTEMPT_TIMEOUT_MS = 4000;

/** The caller is whoever the X-Caller header names. */
@Injectable()
class CallerHeaderGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest();
    request.user = { sub: request.headers['x-caller'] ?? 'nobody' };
    return true;
  }
}

let app: RunningApp;
let hanging: WebhookReceiver;
let answering: WebhookReceiver;

beforeAll(async () => {
  hanging = await startWebhookReceiver(() => ({ delayMs: 30_000 }));
  answering = await startWebhookReceiver();
  app = await startApp(
    A2AModule.forRoot({
      redis: { url: REDIS_URL, keyPrefix: prefix },
      defaultAgent: 'echo',
      push: {
        retrySchedule: '0,100ms,100ms,100ms,100ms',
        jitter: 0,
        attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
        // four workers: without fairness alice's hanging deliveries would take them all
        concurrency: 4,
        shutdownTimeoutMs: 200,
        egress: { allowHttp: true, allowHosts: ['127.0.0.1'] },
      },
    }),
    [EchoAgent, { provide: APP_GUARD, useClass: CallerHeaderGuard }],
  );
});

afterAll(async () => {
  await app?.close();
  await hanging?.close();
  await answering?.close();
  await deleteKeysUnder(prefix);
});

async function send(caller: string, url: string): Promise<string> {
  const rest = restClient(`${app.url}/a2a/rest`);
  const res = await rest.call(
    'SendMessage',
    { message: userMessage('/task hello'), configuration: { taskPushNotificationConfig: { url } } },
    { headers: { 'x-caller': caller } },
  );
  expect(res.error).toBeUndefined();
  return res.result.task.id;
}

describe('push fairness', () => {
  it("delivers bob's notifications on time while alice's receiver hangs, and gives the hanging host one delivery at a time", async () => {
    await Promise.all(Array.from({ length: 8 }, (_, i) => send('alice', hanging.url(`/alice/${i}`))));
    await sleep(300); // alice's first deliveries are under way
    const t0 = Date.now();
    const bobs = await send('bob', answering.url('/bob'));
    await answering.waitFor((r) => r.filter((x) => x.webhookId.startsWith(`${bobs}.`)).length >= 4, 3000);
    // bob's four events, one after another, well before any of alice's attempts could end
    expect(Date.now() - t0).toBeLessThan(ATTEMPT_TIMEOUT_MS / 2);
    // a quarter of the four workers per host: alice's receiver has had exactly one delivery so far
    expect(hanging.received).toHaveLength(1);
  }, 20_000);
});
