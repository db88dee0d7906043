/**
 * 10,000 open streams (issue 14): one held task, `--streams` SubscribeToTask streams on it (JSON-RPC,
 * SSE), opened 500 at a time from the bench's process. The server's RSS is taken (after full
 * collections, in the server's own process) with the task held and no stream, then with every
 * stream open and past its first event: the growth per stream. Then the task publishes
 * {@link STEPS} updates and COMPLETED, and every stream must receive all of them.
 *
 * One server at a time, each fresh: ours on Express and on Fastify, in memory and on Redis (one log
 * tail per task per instance), and the SDK (in memory), against which the goal is judged.
 *
 * With `--base=<dir>` (another build's root, its `dist-bench/` built) each of ours is measured on that
 * build too, right before or after this one's (the order flips every time), and `--sittings=N` repeats
 * the whole: RSS per stream moves by ±0.5–1 KB between runs of the same code (V8's held pages), so a
 * change is told apart only by builds measured in turn in the same sitting.
 */
import { out, reportGoal, type BenchConfig, type Scenario } from '../harness.js';
import { median, memoryGrowth, printFigures, type Row } from '../support/figures.js';
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
  /** This build's server, or the `--base` build's. */
  readonly build: 'this' | 'base';
  /** RSS growth per open stream, bytes; undefined when the server is not available. */
  readonly perStream?: number;
  /** Where the growth sits (heap, external). */
  readonly growth?: string;
  /** Heap used and heap held growth per open stream, bytes. */
  readonly heapUsed?: number;
  readonly heapHeld?: number;
  readonly missed?: number;
  readonly example?: string;
  readonly deliverMs?: number;
  readonly unavailable?: string;
}

/** One server of `def`, fresh, of this build or of the build at `base`. */
async function measure(def: StackDef, streams: number, base?: string): Promise<Outcome> {
  const build = base === undefined ? 'this' : 'base';
  const server = await ServerProcess.start(def.label, def.spec, base);
  if (server instanceof ServerUnavailable) {
    if (mayBeUnavailable(def)) return { def, build, unavailable: 'did not start' };
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
        build,
        perStream: (after.rss - before.rss) / streams,
        growth: memoryGrowth(before, after),
        heapUsed: (after.heapUsed - before.heapUsed) / streams,
        heapHeld: (after.heapTotal - before.heapTotal) / streams,
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
  description: 'N open SubscribeToTask streams on one task: RSS growth per stream, and every event delivered to every stream (with --base=<dir>, another build in turn)',
  async run(config: BenchConfig) {
    const keyPrefix = runKeyPrefix();
    const ours = PLATFORMS.flatMap((p) => [oursStack(p), oursStack(p, keyPrefix)]);
    const sittings: Outcome[][] = [];
    try {
      for (let s = 0; s < config.sittings; s++) {
        const outcomes = [await measure(SDK_STACK, config.streams)];
        for (const [i, def] of ours.entries()) {
          if (config.base === undefined) {
            outcomes.push(await measure(def, config.streams));
            continue;
          }
          // the two builds in turn, the first of each pair alternating: A B B A …
          const baseFirst = (s * ours.length + i) % 2 === 1;
          const pair = baseFirst ? [config.base, undefined] : [undefined, config.base];
          for (const build of pair) outcomes.push(await measure(def, config.streams, build));
        }
        sittings.push(outcomes);
      }
      report(sittings, config.streams);
    } finally {
      await cleanUpRedis(keyPrefix);
    }
  },
};

const kb = (bytes: number) => (bytes / KB).toFixed(1);

/**
 * The table (each row's figure per sitting; ours/SDK the median of the sittings' ratios), each
 * server's details, this build against the base's when there is one, and the goal lines (this build).
 */
function report(sittings: ReadonlyArray<readonly Outcome[]>, streams: number): void {
  const first = sittings[0];
  const same = (o: Outcome) => (outcomes: readonly Outcome[]) => outcomes.find((x) => x.def === o.def && x.build === o.build)!;
  const perSitting = (o: Outcome) => sittings.map(same(o));
  const sdk = perSitting(first[0]);
  const ratios = (o: Outcome) => perSitting(o).map((x, s) => x.perStream! / sdk[s].perStream!);
  const label = (o: Outcome) => (o.build === 'base' ? `${o.def.label} (base)` : o.def.label);
  const rows: Row[] = first.map((o) => ({
    label: label(o),
    inFlight: streams,
    measured: o.perStream === undefined ? { unavailable: o.unavailable ?? 'not measured' } : { perRound: perSitting(o).map((x) => x.perStream! / KB) },
    vsSdk: o.def === SDK_STACK || o.perStream === undefined ? undefined : median(ratios(o)),
  }));
  const many = sittings.length > 1 ? ` (${sittings.length} sittings: median and range of theirs)` : '';
  printFigures(`${streams.toLocaleString('en-US')} open streams on one task: server RSS growth per stream (KB; ours/SDK: lower is better)${many}`, 'KB/stream', rows, 1);
  for (const [s, outcomes] of sittings.entries()) {
    if (sittings.length > 1) out(`  sitting ${s + 1}:`);
    for (const o of outcomes) {
      if (o.perStream === undefined) continue;
      const delivered = o.missed === 0 ? 'every event delivered to every stream' : `${o.missed} streams missed events (${o.example})`;
      out(
        `  ${label(o)}: ${kb(o.perStream)} KB a stream (heap used ${kb(o.heapUsed!)}, held ${kb(o.heapHeld!)}), +${((o.perStream * streams) / KB / KB).toFixed(0)} MB RSS (${o.growth}); ` +
          `${STEPS + 1} events to ${streams} streams in ${o.deliverMs!.toFixed(0)} ms; ${delivered}`,
      );
    }
  }
  const mine = first.filter((o) => o.def !== SDK_STACK && o.build === 'this');
  if (first.some((o) => o.build === 'base')) {
    out('\nthis build against the base, per sitting (KB a stream; this/base below 1: less memory)');
    for (const o of mine) {
      if (o.perStream === undefined) continue;
      const base = perSitting(first.find((x) => x.def === o.def && x.build === 'base')!);
      const each = perSitting(o).map((x, s) => `${kb(x.perStream!)} vs ${kb(base[s].perStream!)} (heap used ${kb(x.heapUsed!)} vs ${kb(base[s].heapUsed!)})`);
      const ratio = median(perSitting(o).map((x, s) => x.perStream! / base[s].perStream!));
      out(`  ${o.def.label}: this/base ${ratio.toFixed(2)}; ${each.join('; ')}`);
    }
  }
  for (const o of mine) {
    const goal = `${o.def.label}: ${streams.toLocaleString('en-US')} streams, every event delivered, RSS growth ≤ half the SDK's (~12 KB a stream)`;
    if (o.perStream === undefined) {
      reportGoal({ goal, measured: o.unavailable ?? 'not measured', status: 'not available yet' });
      continue;
    }
    const ratio = median(ratios(o));
    const perStream = median(perSitting(o).map((x) => x.perStream!));
    const missed = perSitting(o).reduce((sum, x) => sum + x.missed!, 0);
    reportGoal({
      goal,
      measured: `${kb(perStream)} KB a stream, ${ratio.toFixed(2)} of the SDK's ${kb(median(sdk.map((x) => x.perStream!)))} KB (goal ≤ 0.50); ${missed === 0 ? 'all delivered' : `${missed} streams missed events`}`,
      status: ratio <= 0.5 && missed === 0 ? 'MET' : 'NOT MET',
    });
  }
}

export default scenario;
