/**
 * The task lifecycle of ./lifecycle.ts end to end, as a client sees it: one blocking SendMessage
 * over HTTP on 127.0.0.1 (JSON-RPC binding, `A2A-Version: 1.0`), whose executor publishes the task
 * (SUBMITTED), WORKING, one text artifact and COMPLETED, answered with the finished Task.
 *
 * Three servers, each listening on 127.0.0.1 on a port of its own, driven by one HTTP client (an
 * undici `Agent`, keep-alive, as many connections per server as operations in flight):
 *   - the official SDK's: an express 5 app with its `jsonRpcHandler` over a `DefaultRequestHandler`
 *     with its `InMemoryTaskStore` (the baseline);
 *   - a Nest app (`bodyParser: false`) importing `A2AModule.forRoot`, in-memory backends;
 *   - the same on Redis (`REDIS_URL`, default 127.0.0.1:6379), under a key prefix of this run
 *     whose keys are deleted at the end.
 * Every answer is checked (HTTP 200, the request's id, COMPLETED, the artifact made from this very
 * message), so a broken stack fails the run instead of looking fast. The client and the servers
 * share this process (and its event loop): the client's work is in every operation's time.
 *
 * Goal: the Redis-backed lifecycle at least as fast as the SDK's in-memory one, over HTTP too.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';
import type { A2ARedisOptions } from 'nestjs-a2a';
import { Agent } from 'undici';
import { out, type BenchConfig, type Scenario } from '../harness.js';
import { closeServer, JSON_RPC_PATH, KEEP_ALIVE_MS, listenLocally } from '../support/http.js';
import { checkSendMessageAnswer, inputOf, lifecycleModule, runLifecycle, sdkRequestHandler, sendMessageParams, type Stack } from '../support/lifecycle.js';

const BASELINE = '@a2a-js/sdk express in-memory';

const HEADERS = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };
/** A server listening on 127.0.0.1, and how many TCP connections it accepted (keep-alive: the most in flight). */
interface HttpStack extends Stack {
  readonly connections: () => number;
}

/** The client's side of one operation: POST the SendMessage to `origin`, check the answer. */
function operation(label: string, client: Agent, origin: string): (seq: number) => Promise<void> {
  return async (seq) => {
    const input = inputOf(seq);
    const { statusCode, body } = await client.request({
      origin,
      path: JSON_RPC_PATH,
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: seq, method: 'SendMessage', params: sendMessageParams(input) }),
    });
    const text = await body.text();
    if (statusCode !== 200) throw new Error(`${label}: HTTP ${statusCode} ${text.slice(0, 300)}`);
    const answer = JSON.parse(text) as { jsonrpc?: unknown; id?: unknown };
    if (answer.jsonrpc !== '2.0' || answer.id !== seq) throw new Error(`${label}: not the answer to request ${seq}: ${text.slice(0, 300)}`);
    checkSendMessageAnswer(label, input, answer);
  };
}

// ---------------------------------------------------------------- the official SDK (baseline)

async function sdkStack(client: Agent): Promise<HttpStack> {
  const app = express();
  app.use(JSON_RPC_PATH, jsonRpcHandler({ requestHandler: sdkRequestHandler(), userBuilder: UserBuilder.noAuthentication }));
  const server = createServer(app);
  let connections = 0;
  const origin = await listenLocally(server, () => void connections++);
  return { op: operation(BASELINE, client, origin), connections: () => connections, close: () => closeServer(server) };
}

// ---------------------------------------------------------------- nestjs-a2a

async function nestStack(label: string, client: Agent, redis?: A2ARedisOptions): Promise<HttpStack> {
  const app: INestApplication = await NestFactory.create(lifecycleModule(redis), { bodyParser: false, logger: false, abortOnError: false });
  try {
    let connections = 0;
    const server = app.getHttpServer() as Server;
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    server.on('connection', () => void connections++);
    await app.listen(0, '127.0.0.1');
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { op: operation(label, client, origin), connections: () => connections, close: () => app.close() };
  } catch (error) {
    await app.close();
    throw error;
  }
}

// ---------------------------------------------------------------- the scenario

const scenario: Scenario = {
  description: 'blocking SendMessage → SUBMITTED, WORKING, one artifact, COMPLETED; over HTTP on 127.0.0.1 (JSON-RPC), client included',
  async run(config: BenchConfig) {
    const client = new Agent({ connections: Math.max(...config.concurrency), pipelining: 1, keepAliveTimeout: KEEP_ALIVE_MS, keepAliveMaxTimeout: KEEP_ALIVE_MS });
    try {
      await runLifecycle<HttpStack>(
        {
          title: 'task lifecycle over HTTP (vs base = ops/s over the SDK express in-memory at the same in-flight level)',
          verdict: 'Redis lifecycle over HTTP / SDK in-memory lifecycle over HTTP',
          baseline: BASELINE,
          sdk: () => sdkStack(client),
          nest: (label, redis) => nestStack(label, client, redis),
          report: (stacks, labels) => out(`(HTTP: TCP connections accepted: ${labels.map((label, i) => `${label} ${stacks[i].connections()}`).join(', ')})`),
        },
        config,
      );
    } finally {
      await client.close();
    }
  },
};

export default scenario;
