/**
 * The task lifecycle (issue 6): one blocking SendMessage whose executor publishes the task
 * (SUBMITTED), WORKING, one text artifact and COMPLETED, answered with the finished Task.
 *
 * The same work on three stacks, in process (no HTTP, so the stores are what differs):
 *   - the official SDK's `DefaultRequestHandler` with its `InMemoryTaskStore` (the baseline);
 *   - nestjs-a2a's `A2ARequestHandler.dispatch` with the in-memory backends;
 *   - the same on Redis (`REDIS_URL`, default 127.0.0.1:6379), under a key prefix of this run
 *     whose keys are deleted at the end.
 * nestjs-a2a's `dispatch` also decodes the params and encodes the answer (ProtoJSON), which the
 * SDK's handler leaves to its transports: the comparison is, if anything, unfair to nestjs-a2a.
 * Every answer is checked (COMPLETED, the artifact made from this very message), so a broken
 * stack fails the run instead of looking fast.
 *
 * Goal: the Redis-backed lifecycle at least as fast as the SDK's in-memory one.
 */
import { randomUUID } from 'node:crypto';
import { Injectable, Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Role, TaskState, type AgentCard, type Message as SdkMessage, type Part as SdkPart, type Task as SdkTask } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore as SdkInMemoryTaskStore,
  ServerCallContext,
  type AgentExecutor as SdkAgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { Redis } from 'ioredis';
import { A2AAgent, A2AModule, A2ARequestHandler, AgentRegistry, type PublishedAgent, type A2ACall, type A2ARedisOptions, type AgentExecutor, type TaskContext } from 'nestjs-a2a';
import { compare, muteConsole, mutedConsoleCalls, out, ratio, type BenchCase, type BenchConfig, type Scenario } from '../harness.js';

const AGENT = 'bench';
const SKILLS = [{ id: 'echo', name: 'Echo', description: 'Answers with the text it was sent', tags: ['bench'] }];
/** What the executors make of a message's text: the artifact proves which message it answered. */
const answerTo = (text: string) => `echo: ${text}`;
const inputOf = (seq: number) => `lifecycle ${seq}`;

const BASELINE = '@a2a-js/sdk in-memory';
const NEST_MEMORY = 'nestjs-a2a in-memory';
const NEST_REDIS = 'nestjs-a2a Redis';

interface Stack {
  readonly op: (seq: number) => Promise<void>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------- the official SDK (baseline)

const sdkText = (value: string): SdkPart => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const sdkTimestamp = () => new Date().toISOString();

/** The SDK's way: every event published on the bus, the first one the Task. */
class SdkBenchExecutor implements SdkAgentExecutor {
  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = request;
    const text = userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('\n');
    const status = (state: TaskState) => ({ state, message: undefined, timestamp: sdkTimestamp() });
    bus.publish(AgentEvent.task({ id: taskId, contextId, status: status(TaskState.TASK_STATE_SUBMITTED), artifacts: [], history: [userMessage], metadata: undefined }));
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_WORKING), metadata: undefined }));
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: { artifactId: randomUUID(), name: 'answer', description: '', parts: [sdkText(answerTo(text))], metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_COMPLETED), metadata: undefined }));
  }

  async cancelTask(): Promise<void> {}
}

const SDK_CARD: AgentCard = {
  name: AGENT,
  description: 'lifecycle benchmark',
  supportedInterfaces: [{ url: 'http://127.0.0.1/', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
  provider: undefined,
  version: '1.0.0',
  documentationUrl: '',
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: SKILLS.map((s) => ({ ...s, examples: [], inputModes: [], outputModes: [], securityRequirements: [] })),
  signatures: [],
};

function sdkStack(): Stack {
  const handler = new DefaultRequestHandler(SDK_CARD, new SdkInMemoryTaskStore(), new SdkBenchExecutor());
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
      const unmute = muteConsole(); // the SDK logs its failures with console.*; the check below reports them
      let answer: SdkMessage | SdkTask;
      try {
        answer = await handler.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined }, new ServerCallContext({ requestedVersion: '1.0' }));
      } finally {
        unmute();
      }
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

@A2AAgent({ name: AGENT, description: 'lifecycle benchmark', skills: SKILLS })
@Injectable()
class NestBenchAgent implements AgentExecutor {
  async execute(ctx: TaskContext): Promise<void> {
    await ctx.working();
    await ctx.addArtifact({ name: 'answer', parts: [{ text: answerTo(ctx.text) }] });
    await ctx.complete();
  }
}

/** The published agent, for the `A2ACall`s. */
function publishedAgent(app: INestApplicationContext): PublishedAgent {
  return app.get(AgentRegistry).defaultAgent;
}

interface ProtoJsonTask {
  status?: { state?: string };
  artifacts?: Array<{ parts?: Array<{ text?: string }> }>;
}

async function nestStack(label: string, redis?: A2ARedisOptions): Promise<Stack> {
  @Module({ imports: [A2AModule.forRoot({ defaultAgent: AGENT, redis })], providers: [NestBenchAgent] })
  class LifecycleBenchModule {}
  const app = await NestFactory.createApplicationContext(LifecycleBenchModule, { logger: false, abortOnError: false });
  try {
    const handler = app.get(A2ARequestHandler);
    const never = new AbortController().signal;
    const call: A2ACall = { agent: await publishedAgent(app), caller: { subject: 'bench' }, extensions: [], signal: never, viaAgentPath: false };
    return {
      async op(seq) {
        const input = inputOf(seq);
        const params = { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: input, mediaType: 'text/plain' }] } };
        const answer = await handler.dispatch(call, 'SendMessage', params);
        const task = 'result' in answer ? (answer.result as { task?: ProtoJsonTask }).task : undefined;
        if (task?.status?.state !== 'TASK_STATE_COMPLETED' || task.artifacts?.length !== 1 || task.artifacts[0].parts?.[0]?.text !== answerTo(input)) {
          throw new Error(`${label}: unexpected answer ${JSON.stringify(answer).slice(0, 300)}`);
        }
      },
      close: () => app.close(),
    };
  } catch (error) {
    await app.close();
    throw error;
  }
}

// ---------------------------------------------------------------- Redis housekeeping

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Deletes the keys under `prefix`, and only those (SCAN MATCH + DEL, never FLUSH*). */
async function deleteKeysUnder(prefix: string): Promise<number> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, connectionName: 'a2a-bench-cleanup' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const pattern = `${prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;
    let deleted = 0;
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      if (keys.length > 0) deleted += await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    return deleted;
  } finally {
    client.disconnect();
  }
}

// ---------------------------------------------------------------- the scenario

const scenario: Scenario = {
  description: 'blocking SendMessage → SUBMITTED, WORKING, one artifact, COMPLETED; in process, no HTTP',
  async run(config: BenchConfig) {
    const keyPrefix = `a2a-bench:${randomUUID()}:`;
    const stacks: Stack[] = [];
    let redisUsed = false;
    try {
      const sdk = sdkStack();
      stacks.push(sdk);
      const memory = await nestStack(NEST_MEMORY);
      stacks.push(memory);
      const redis = await nestStack(NEST_REDIS, { url: REDIS_URL, keyPrefix });
      stacks.push(redis);
      redisUsed = true;
      const cases: BenchCase[] = [
        { label: BASELINE, op: sdk.op },
        { label: NEST_MEMORY, op: memory.op },
        { label: NEST_REDIS, op: redis.op },
      ];
      const results = await compare('task lifecycle (vs base = ops/s over the SDK in-memory at the same in-flight level)', cases, config);

      const ratios = config.concurrency.map((level) => ({ level, value: ratio(results, NEST_REDIS, BASELINE, level) }));
      const worst = ratios.reduce((a, b) => (b.value < a.value ? b : a));
      out(
        `\nVERDICT  Redis lifecycle / SDK in-memory lifecycle = ${worst.value.toFixed(2)} (goal ≥ 1.00): ${worst.value >= 1 ? 'MET' : 'NOT MET'}` +
          (ratios.length > 1 ? `  [worst of ${ratios.map((r) => `${r.value.toFixed(2)} with ${r.level} in flight`).join(', ')}]` : ''),
      );
      if (mutedConsoleCalls() > 0) out(`note: the SDK wrote ${mutedConsoleCalls()} console lines (muted)`);
    } finally {
      await Promise.all(stacks.map((s) => s.close()));
      if (redisUsed) {
        await deleteKeysUnder(keyPrefix).then(
          (deleted) => out(`(Redis: deleted the ${deleted} keys of this run, under ${keyPrefix})`),
          (error: Error) => out(`(Redis: could not delete the keys of this run under ${keyPrefix}: ${error.message})`),
        );
      }
    }
  },
};

export default scenario;
