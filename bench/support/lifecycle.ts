/**
 * What the task-lifecycle scenarios share (`bench/scenarios/lifecycle.ts`, in process, and
 * `bench/scenarios/lifecycle-http.ts`, over HTTP): the agent on both stacks, the answer checks, the
 * three-stack run with its verdict line, and the Redis housekeeping. One operation is a blocking SendMessage whose executor
 * publishes the task (SUBMITTED), WORKING, one text artifact `echo: <text>` and COMPLETED.
 *
 * The agents know two more texts, for the scenarios whose servers run in processes of their own
 * (../servers/server.ts): `msg …` is answered with a Message `echo: <text>`; `hold <n> …` reaches
 * WORKING, waits for {@link heldTasks}' release, then publishes n WORKING updates whose message is
 * `step-<i>` and COMPLETED.
 *
 * This folder is not `bench/scenarios/`, so `run.ts` does not take these files for scenarios.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Module } from '@nestjs/common';
import { Role, TaskState, type AgentCard, type Part as SdkPart } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore as SdkInMemoryTaskStore, type AgentExecutor as SdkAgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { Redis } from 'ioredis';
import { A2AAgent, A2AModule, type A2APushOptions, type A2ARedisOptions, type A2AStreamingOptions, type AgentExecutor, type TaskContext } from 'nestjs-a2a';
import { compare, muteConsole, mutedConsoleCalls, out, ratio, type BenchConfig, type Measurement } from '../harness.js';
import { JSON_RPC_PATH, REST_PATH } from './http.js';

export const AGENT = 'bench';
const SKILLS = [{ id: 'echo', name: 'Echo', description: 'Answers with the text it was sent', tags: ['bench'] }];
/** What the executors make of a message's text: the artifact proves which message it answered. */
export const answerTo = (text: string) => `echo: ${text}`;
export const inputOf = (seq: number) => `lifecycle ${seq}`;
/** A text the agents answer with a Message. */
export const MESSAGE_PREFIX = 'msg ';

/** `hold <steps> …`: the number of steps the held task publishes once released, else undefined. */
export function parseHold(text: string): number | undefined {
  const match = /^hold (\d+) /.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** The `hold` tasks of this process waiting for {@link release}, and who waits for enough of them. */
class HeldTasks {
  private readonly held: Array<() => void> = [];
  private readonly waiters: Array<{ atLeast: number; resolve: () => void }> = [];

  /** A held task's executor: resolves at the release. */
  wait(): Promise<void> {
    return new Promise((resolve) => {
      this.held.push(resolve);
      for (const waiter of this.waiters.filter((w) => this.held.length >= w.atLeast)) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
  }

  /** Resolves once at least `atLeast` tasks are held. */
  whenAtLeast(atLeast: number): Promise<void> {
    return this.held.length >= atLeast ? Promise.resolve() : new Promise((resolve) => this.waiters.push({ atLeast, resolve }));
  }

  /** Lets every held task go on. */
  release(): void {
    for (const release of this.held.splice(0)) release();
  }
}

export const heldTasks = new HeldTasks();

/** One stack under measurement: its operation, and how to let go of what it holds. */
export interface Stack {
  readonly op: (seq: number) => Promise<void>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------- the official SDK (baseline)

export const sdkText = (value: string): SdkPart => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const sdkTimestamp = () => new Date().toISOString();

/** The SDK's way: every event published on the bus, the first one the Task (or the one Message). */
class SdkBenchExecutor implements SdkAgentExecutor {
  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = request;
    const text = userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('\n');
    const agentMessage = (value: string, taskIdOf = taskId) => ({
      messageId: randomUUID(),
      contextId,
      taskId: taskIdOf,
      role: Role.ROLE_AGENT,
      parts: [sdkText(value)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    });
    if (text.startsWith(MESSAGE_PREFIX)) {
      bus.publish(AgentEvent.message(agentMessage(answerTo(text), '')));
      bus.finished();
      return;
    }
    const steps = parseHold(text);
    const status = (state: TaskState, message?: string) => ({ state, message: message === undefined ? undefined : agentMessage(message), timestamp: sdkTimestamp() });
    const update = (state: TaskState, message?: string) => AgentEvent.statusUpdate({ taskId, contextId, status: status(state, message), metadata: undefined });
    bus.publish(AgentEvent.task({ id: taskId, contextId, status: status(TaskState.TASK_STATE_SUBMITTED), artifacts: [], history: [userMessage], metadata: undefined }));
    bus.publish(update(TaskState.TASK_STATE_WORKING));
    if (steps !== undefined) {
      await heldTasks.wait();
      for (let i = 0; i < steps; i++) bus.publish(update(TaskState.TASK_STATE_WORKING, `step-${i}`));
    } else {
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
    }
    bus.publish(update(TaskState.TASK_STATE_COMPLETED));
  }

  async cancelTask(): Promise<void> {}
}

const SDK_CARD: AgentCard = {
  name: AGENT,
  description: 'lifecycle benchmark',
  // the SDK accepts a binding's A2A-Version only when the card lists that binding with that version
  supportedInterfaces: [
    { url: `http://127.0.0.1${JSON_RPC_PATH}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    { url: `http://127.0.0.1${REST_PATH}`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
  ],
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

/** The SDK's request handler over its `InMemoryTaskStore`, running the bench executor. */
export function sdkRequestHandler(): DefaultRequestHandler {
  return new DefaultRequestHandler(SDK_CARD, new SdkInMemoryTaskStore(), new SdkBenchExecutor());
}

// ---------------------------------------------------------------- nestjs-a2a

@A2AAgent({ name: AGENT, description: 'lifecycle benchmark', skills: SKILLS })
@Injectable()
export class NestBenchAgent implements AgentExecutor {
  async execute(ctx: TaskContext): Promise<void> {
    const text = ctx.text;
    if (text.startsWith(MESSAGE_PREFIX)) return ctx.reply(answerTo(text));
    const steps = parseHold(text);
    await ctx.working();
    if (steps === undefined) {
      await ctx.addArtifact({ name: 'answer', parts: [{ text: answerTo(text) }] });
      return ctx.complete();
    }
    await ctx.flushed(); // a subscriber that comes now sees WORKING in its snapshot
    await heldTasks.wait();
    for (let i = 0; i < steps; i++) await ctx.working(`step-${i}`);
    await ctx.complete();
  }
}

/**
 * The app module: A2AModule serving the bench agent, in memory or on `redis` (with `push` and
 * `streaming`, if given; `v03`: 0.3 served too, as the demo does).
 */
export function lifecycleModule(redis?: A2ARedisOptions, push?: A2APushOptions, streaming?: A2AStreamingOptions, v03?: boolean): new () => object {
  @Module({ imports: [A2AModule.forRoot({ defaultAgent: AGENT, redis, push, streaming, v03 })], providers: [NestBenchAgent] })
  class LifecycleBenchModule {}
  return LifecycleBenchModule;
}

/** The SendMessage params (ProtoJSON) both an in-process call (`InProcessA2A`) and the JSON-RPC endpoints take. */
export function sendMessageParams(input: string) {
  return { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: input, mediaType: 'text/plain' }] } };
}

interface ProtoJsonTask {
  status?: { state?: string };
  artifacts?: Array<{ parts?: Array<{ text?: string }> }>;
}

/**
 * Throws unless `answer` (a JSON-RPC answer, or `{ result }` of an in-process call) carries
 * the COMPLETED task with one artifact made from `input`.
 */
export function checkSendMessageAnswer(label: string, input: string, answer: unknown): void {
  const result = typeof answer === 'object' && answer !== null && 'result' in answer ? (answer.result as { task?: ProtoJsonTask } | undefined) : undefined;
  const task = result?.task;
  if (task?.status?.state !== 'TASK_STATE_COMPLETED' || task.artifacts?.length !== 1 || task.artifacts[0].parts?.[0]?.text !== answerTo(input)) {
    throw new Error(`${label}: unexpected answer ${JSON.stringify(answer).slice(0, 300)}`);
  }
}

// ---------------------------------------------------------------- the comparison

const NEST_MEMORY = 'nestjs-a2a in-memory';
const NEST_REDIS = 'nestjs-a2a Redis';

/** What a lifecycle scenario brings to {@link runLifecycle}: its baseline and its way to make a nestjs-a2a stack. */
export interface LifecycleRun<S extends Stack> {
  /** `compare`'s title and the verdict's subject. */
  readonly title: string;
  readonly verdict: string;
  /** The SDK stack's label and maker. */
  readonly baseline: string;
  readonly sdk: () => S | Promise<S>;
  /** A nestjs-a2a stack, in memory or on `redis`. */
  readonly nest: (label: string, redis?: A2ARedisOptions) => Promise<S>;
  /** More lines after the verdict, about the stacks (baseline, in memory, Redis). */
  readonly report?: (stacks: readonly S[], labels: readonly string[]) => void;
}

/**
 * The SDK's stack, nestjs-a2a in memory and on Redis (under a key prefix of this run, deleted at
 * the end), measured against each other, then the verdict. The SDK's server logs its failures with
 * console.*: muted for the run (every answer is checked, so a failure still fails the run).
 */
export async function runLifecycle<S extends Stack>(run: LifecycleRun<S>, config: BenchConfig): Promise<void> {
  const keyPrefix = runKeyPrefix();
  const mutedBefore = mutedConsoleCalls();
  const unmute = muteConsole();
  const stacks: S[] = [];
  let redisUsed = false;
  try {
    stacks.push(await run.sdk());
    stacks.push(await run.nest(NEST_MEMORY));
    stacks.push(await run.nest(NEST_REDIS, { url: REDIS_URL, keyPrefix }));
    redisUsed = true;
    const labels = [run.baseline, NEST_MEMORY, NEST_REDIS];
    const results = await compare(run.title, stacks.map((stack, i) => ({ label: labels[i], op: stack.op })), config);
    unmute();
    printVerdict(run.verdict, results, NEST_REDIS, run.baseline, config, mutedBefore);
    await printRedisFloor(results, run.baseline);
    run.report?.(stacks, labels);
  } finally {
    unmute();
    await Promise.all(stacks.map((s) => s.close()));
    if (redisUsed) await cleanUpRedis(keyPrefix);
  }
}

// ---------------------------------------------------------------- the verdict

/**
 * Prints the goal's line: `label`'s ops/s over `baseline`'s, the worst over the concurrency levels,
 * against ≥ 1.00; then how many console lines were muted since `mutedBefore`, if any.
 */
function printVerdict(subject: string, results: readonly Measurement[], label: string, baseline: string, config: BenchConfig, mutedBefore = 0): void {
  const ratios = config.concurrency.map((level) => ({ level, value: ratio(results, label, baseline, level) }));
  const worst = ratios.reduce((a, b) => (b.value < a.value ? b : a));
  out(
    `\nVERDICT  ${subject} = ${worst.value.toFixed(2)} (goal ≥ 1.00): ${worst.value >= 1 ? 'MET' : 'NOT MET'}` +
      (ratios.length > 1 ? `  [worst of ${ratios.map((r) => `${r.value.toFixed(2)} with ${r.level} in flight`).join(', ')}]` : ''),
  );
  const muted = mutedConsoleCalls() - mutedBefore;
  if (muted > 0) out(`note: the SDK wrote ${muted} console lines (muted)`);
}

/**
 * The least one durable write costs with 1 in flight, beside the baseline's whole operation: a PING
 * to the same Redis sent after the server idled for a millisecond (as it does between one
 * operation's write and the next), p50. When that alone reaches the baseline's p50, no Redis-backed
 * stack can match it one operation at a time; with more in flight, round trips overlap.
 */
export async function printRedisFloor(results: readonly Measurement[], baseline: string): Promise<void> {
  const base = results.find((m) => m.label === baseline && m.concurrency === 1);
  if (!base) return;
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, connectionName: 'a2a-bench-floor' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const latencies: number[] = [];
    for (let i = 0; i < 300; i++) {
      await sleep(1);
      const start = performance.now();
      await client.ping();
      latencies.push(performance.now() - start);
    }
    latencies.sort((a, b) => a - b);
    out(
      `floor    one round trip to an idle Redis (PING after 1 ms, p50) = ${latencies[150].toFixed(3)} ms; ` +
        `${baseline}, whole operation with 1 in flight (p50) = ${base.p50Ms.toFixed(3)} ms`,
    );
  } catch (error) {
    out(`(Redis floor not measured: ${(error as Error).message})`);
  } finally {
    client.disconnect();
  }
}

// ---------------------------------------------------------------- Redis housekeeping

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix of its own for one run: `a2a-bench:<uuid>:`. */
export const runKeyPrefix = () => `a2a-bench:${randomUUID()}:`;

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

/** Deletes the run's keys under `prefix` and says how it went (never throws). */
export async function cleanUpRedis(prefix: string): Promise<void> {
  await deleteKeysUnder(prefix).then(
    (deleted) => out(`(Redis: deleted the ${deleted} keys of this run, under ${prefix})`),
    (error: Error) => out(`(Redis: could not delete the keys of this run under ${prefix}: ${error.message})`),
  );
}
