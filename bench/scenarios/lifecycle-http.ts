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
import { compare, muteConsole, mutedConsoleCalls, out, type BenchCase, type BenchConfig, type Scenario } from '../harness.js';
import { checkSendMessageAnswer, cleanUpRedis, inputOf, lifecycleModule, printVerdict, REDIS_URL, runKeyPrefix, sdkRequestHandler, sendMessageParams, type Stack } from '../support/lifecycle.js';

const BASELINE = '@a2a-js/sdk express in-memory';
const NEST_MEMORY = 'nestjs-a2a in-memory';
const NEST_REDIS = 'nestjs-a2a Redis';

/** The JSON-RPC endpoint's path on every server (nestjs-a2a's default; the SDK's is mounted there too). */
const JSON_RPC_PATH = '/a2a/jsonrpc';
const HEADERS = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };
/**
 * How long an idle keep-alive connection stays open, on the servers and in the client. Node's
 * default (5 s) is shorter than the other stacks' turns in a round, so connections would be closed
 * and opened again between turns; with this they are opened once per server (`connections` below).
 */
const KEEP_ALIVE_MS = 120_000;

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

/** Listens on 127.0.0.1 on a free port, counting the connections; resolves to the origin. */
async function listenLocally(server: Server, count: () => void): Promise<string> {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.on('connection', count);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes `server`, and its keep-alive connections with it. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
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
    const keyPrefix = runKeyPrefix();
    const client = new Agent({ connections: Math.max(...config.concurrency), pipelining: 1, keepAliveTimeout: KEEP_ALIVE_MS, keepAliveMaxTimeout: KEEP_ALIVE_MS });
    const stacks: HttpStack[] = [];
    let redisUsed = false;
    // The SDK's server logs its failures with console.*; the client's checks report them instead.
    const mutedBefore = mutedConsoleCalls();
    const unmute = muteConsole();
    try {
      const sdk = await sdkStack(client);
      stacks.push(sdk);
      const memory = await nestStack(NEST_MEMORY, client);
      stacks.push(memory);
      const redis = await nestStack(NEST_REDIS, client, { url: REDIS_URL, keyPrefix });
      stacks.push(redis);
      redisUsed = true;
      const cases: BenchCase[] = [
        { label: BASELINE, op: sdk.op },
        { label: NEST_MEMORY, op: memory.op },
        { label: NEST_REDIS, op: redis.op },
      ];
      const results = await compare('task lifecycle over HTTP (vs base = ops/s over the SDK express in-memory at the same in-flight level)', cases, config);
      unmute();
      printVerdict('Redis lifecycle over HTTP / SDK in-memory lifecycle over HTTP', results, NEST_REDIS, BASELINE, config, mutedBefore);
      out(`(HTTP: TCP connections accepted: ${cases.map(({ label }, i) => `${label} ${stacks[i].connections()}`).join(', ')})`);
    } finally {
      unmute();
      await client.close();
      await Promise.all(stacks.map((s) => s.close()));
      if (redisUsed) await cleanUpRedis(keyPrefix);
    }
  },
};

export default scenario;
