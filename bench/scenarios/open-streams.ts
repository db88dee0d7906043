/**
 * 10,000 open streams (issue 14): one held task, `--streams` SubscribeToTask streams on it (JSON-RPC,
 * SSE), opened 500 at a time from the bench's process. The server's RSS is taken (after full
 * collections, in the server's own process) with the task held and no stream, then with every
 * stream open and past its first event: the growth per stream. Then the task publishes
 * {@link STEPS} updates and COMPLETED, and every stream must receive all of them.
 *
 * One server at a time, each fresh: ours on Express and on Fastify, in memory and on Redis (one log
 * tail per task per instance), and the SDK (in memory), against which the goal is judged.
 */
import { out, reportGoal, type BenchConfig, type Scenario } from '../harness.js';
import { memoryGrowth, printFigures, type Row } from '../support/figures.js';
import { streamsOnHeldTask } from '../support/held-task.js';
import { cleanUpRedis, runKeyPrefix } from '../support/lifecycle.js';
import { LoadClient } from '../support/load.js';
import { ServerProcess, ServerUnavailable } from '../support/server-process.js';
import { mayBeUnavailable, oursStack, PLATFORMS, SDK_STACK, type StackDef } from '../support/stacks.js';

const STEPS = 3;
const BATCH = 500;
const KB = 1024;

interface Outcome {
  readonly def: StackDef;
  /** RSS growth per open stream, bytes; undefined when the server is not available. */
  readonly perStream?: number;
  /** Where the growth sits (heap, external). */
  readonly growth?: string;
  readonly missed?: number;
  readonly example?: string;
  readonly deliverMs?: number;
  readonly unavailable?: string;
}

async function measure(def: StackDef, streams: number): Promise<Outcome> {
  const server = await ServerProcess.start(def.label, def.spec);
  if (server instanceof ServerUnavailable) {
    if (mayBeUnavailable(def)) return { def, unavailable: 'did not start' };
    throw new Error(`${def.label} did not start: ${server.reason}`);
  }
  const client = new LoadClient();
  let seq = 0;
  const next = () => seq++;
  try {
    // one stream first, so the code of a stream is loaded before the baseline is taken
    const warm = await streamsOnHeldTask(client, server, 1, STEPS, next);
    await warm.releaseAndTally();
    await warm.close();
    const before = await server.memory();
    const streamsOpen = await streamsOnHeldTask(client, server, streams, STEPS, next, BATCH);
    try {
      const after = await server.memory();
      const { elapsedMs, missed, example } = await streamsOpen.releaseAndTally();
      return {
        def,
        perStream: (after.rss - before.rss) / streams,
        growth: memoryGrowth(before, after),
        missed,
        example,
        deliverMs: elapsedMs,
      };
    } finally {
      await streamsOpen.close();
    }
  } finally {
    await client.close();
    await server.close();
  }
}

const scenario: Scenario = {
  description: 'N open SubscribeToTask streams on one task: RSS growth per stream, and every event delivered to every stream',
  async run(config: BenchConfig) {
    const keyPrefix = runKeyPrefix();
    const defs = [SDK_STACK, ...PLATFORMS.flatMap((p) => [oursStack(p), oursStack(p, keyPrefix)])];
    const outcomes: Outcome[] = [];
    try {
      for (const def of defs) outcomes.push(await measure(def, config.streams));
      report(outcomes, config.streams);
    } finally {
      await cleanUpRedis(keyPrefix);
    }
  },
};

function report(outcomes: readonly Outcome[], streams: number): void {
  const sdk = outcomes[0];
  const rows: Row[] = outcomes.map((o) => ({
    label: o.def.label,
    inFlight: streams,
    measured: o.perStream === undefined ? { unavailable: o.unavailable ?? 'not measured' } : { perRound: [o.perStream / KB] },
    vsSdk: o.def === SDK_STACK || o.perStream === undefined ? undefined : o.perStream / sdk.perStream!,
  }));
  printFigures(`${streams.toLocaleString('en-US')} open streams on one task: server RSS growth per stream (KB; ours/SDK: lower is better)`, 'KB/stream', rows, 1);
  for (const o of outcomes) {
    if (o.perStream === undefined) continue;
    const delivered = o.missed === 0 ? 'every event delivered to every stream' : `${o.missed} streams missed events (${o.example})`;
    out(
      `  ${o.def.label}: +${((o.perStream * streams) / KB / KB).toFixed(0)} MB RSS (${o.growth}); ` +
        `${STEPS + 1} events to ${streams} streams in ${o.deliverMs!.toFixed(0)} ms; ${delivered}`,
    );
  }
  for (const o of outcomes.slice(1)) {
    const goal = `${o.def.label}: ${streams.toLocaleString('en-US')} streams, every event delivered, RSS growth ≤ half the SDK's (~12 KB a stream)`;
    if (o.perStream === undefined) {
      reportGoal({ goal, measured: o.unavailable ?? 'not measured', status: 'not available yet' });
      continue;
    }
    const ratio = o.perStream / sdk.perStream!;
    reportGoal({
      goal,
      measured: `${(o.perStream / KB).toFixed(1)} KB a stream, ${ratio.toFixed(2)} of the SDK's ${(sdk.perStream! / KB).toFixed(1)} KB (goal ≤ 0.50); ${o.missed === 0 ? 'all delivered' : `${o.missed} streams missed events`}`,
      status: ratio <= 0.5 && o.missed === 0 ? 'MET' : 'NOT MET',
    });
  }
}

export default scenario;
