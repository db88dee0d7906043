/**
 * The task lifecycle (issue 6): one blocking SendMessage whose executor publishes the task
 * (SUBMITTED), WORKING, one text artifact and COMPLETED, answered with the finished Task.
 *
 * The same work on three stacks, in process (no HTTP, so the stores are what differs):
 *   - the official SDK's `DefaultRequestHandler` with its `InMemoryTaskStore` (the baseline);
 *   - nestjs-a2a's request handler with the in-memory backends, called in process (`InProcessA2A`);
 *   - the same on Redis (`REDIS_URL`, default 127.0.0.1:6379), under a key prefix of this run
 *     whose keys are deleted at the end.
 * nestjs-a2a's handler also decodes the params and encodes the answer (ProtoJSON), which the
 * SDK's handler leaves to its transports: the comparison is, if anything, unfair to nestjs-a2a.
 * Every answer is checked (COMPLETED, the artifact made from this very message), so a broken
 * stack fails the run instead of looking fast. The agents and checks are in ../support/lifecycle.ts,
 * shared with the same lifecycle over HTTP (./lifecycle-http.ts).
 *
 * Goal: the Redis-backed lifecycle at least as fast as the SDK's in-memory one.
 */
import { randomUUID } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { Role, TaskState, type Message as SdkMessage, type Task as SdkTask } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import type { A2ARedisOptions } from 'nestjs-a2a';
import { InProcessA2A } from 'nestjs-a2a/testing';
import type { BenchConfig, Scenario } from '../harness.js';
import { answerTo, checkSendMessageAnswer, inputOf, lifecycleModule, runLifecycle, sdkRequestHandler, sdkText, sendMessageParams, type Stack } from '../support/lifecycle.js';

const BASELINE = '@a2a-js/sdk in-memory';

// ---------------------------------------------------------------- the official SDK (baseline)

function sdkStack(): Stack {
  const handler = sdkRequestHandler();
  return {
    async op(seq) {
      const input = inputOf(seq);
      const message: SdkMessage = {
        messageId: randomUUID(),
        contextId: '',
        taskId: '',
        role: Role.ROLE_USER,
        parts: [sdkText(input)],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      };
      // the SDK logs its failures with console.* (muted by runLifecycle); the check below reports them
      const answer: SdkMessage | SdkTask = await handler.sendMessage(
        { tenant: '', message, configuration: undefined, metadata: undefined },
        new ServerCallContext({ requestedVersion: '1.0' }),
      );
      const task = 'status' in answer ? answer : undefined;
      const part = task?.artifacts[0]?.parts[0]?.content;
      if (task?.status?.state !== TaskState.TASK_STATE_COMPLETED || task.artifacts.length !== 1 || part?.$case !== 'text' || part.value !== answerTo(input)) {
        throw new Error(`${BASELINE}: unexpected answer ${JSON.stringify(answer).slice(0, 300)}`);
      }
    },
    async close() {},
  };
}

// ---------------------------------------------------------------- nestjs-a2a

async function nestStack(label: string, redis?: A2ARedisOptions): Promise<Stack> {
  const app = await NestFactory.createApplicationContext(lifecycleModule(redis), { logger: false, abortOnError: false });
  try {
    const a2a = InProcessA2A.of(app, { caller: { subject: 'bench' } });
    return {
      async op(seq) {
        const input = inputOf(seq);
        checkSendMessageAnswer(label, input, { result: await a2a.call('SendMessage', sendMessageParams(input)) });
      },
      close: () => app.close(),
    };
  } catch (error) {
    await app.close();
    throw error;
  }
}

// ---------------------------------------------------------------- the scenario

const scenario: Scenario = {
  description: 'blocking SendMessage → SUBMITTED, WORKING, one artifact, COMPLETED; in process, no HTTP',
  run: (config: BenchConfig) =>
    runLifecycle(
      {
        title: 'task lifecycle (vs base = ops/s over the SDK in-memory at the same in-flight level)',
        verdict: 'Redis lifecycle / SDK in-memory lifecycle',
        baseline: BASELINE,
        sdk: sdkStack,
        nest: nestStack,
      },
      config,
    ),
};

export default scenario;
