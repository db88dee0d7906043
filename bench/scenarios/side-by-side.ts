/**
 * Ours against the official SDK and against the framework's own ceiling, over HTTP on 127.0.0.1,
 * each server in a process of its own and the load from this one (undici, keep-alive, one
 * connection per request in flight), every answer checked (issue 14):
 *
 *   - Message answer: SendMessage answered with a Message, JSON-RPC and REST, 10 in flight;
 *     the ceiling is a bare Nest app on the same platform answering a fixed Message; node:http
 *     answering it too is a check on the load generator (which reaches at least the highest rate);
 *   - task lifecycle: blocking SendMessage (JSON-RPC) → SUBMITTED, WORKING, one artifact,
 *     COMPLETED, in memory and on Redis, 1, 10 and 32 in flight (with the Redis floor line);
 *   - streaming: SendStreamingMessage (JSON-RPC) with 4 events, 10 in flight;
 *   - SubscribeToTask fan-out: one task, {@link FANOUT_STREAMS} streams, {@link FANOUT_STEPS} status
 *     updates, then COMPLETED, again and again for a round; the rate is events delivered per second
 *     of delivery (from each release to the last stream's end), every event checked on every
 *     stream: its request id, the task's id, its kind and its place in the stream (the task,
 *     step-0…, COMPLETED, nothing after). The streams of one task get the same events, so the
 *     client parses each distinct result once and compares the other streams' texts with it
 *     (`HeldTaskEvents` in ../support/wire.ts): the client, which shares the 2 cores with the
 *     server, costs about half what parsing every event did.
 *
 * Each figure is the median of `--rounds` rounds of `--round-ms`, after a warm-up round; the cases
 * take turns within each round, so drift over the run is shared. Ours on Fastify is "not available
 * yet" while the app does not start on that platform (or its first answer is wrong).
 */
import { out, percentiles, type BenchConfig, type Measurement, type Scenario } from '../harness.js';
import { isFigure, printFigures, ratioGoal, ratioOf, type Measured, type Row } from '../support/figures.js';
import { cleanUpRedis, printRedisFloor, runKeyPrefix } from '../support/lifecycle.js';
import { streamsOnHeldTask } from '../support/held-task.js';
import { LoadClient } from '../support/load.js';
import { ServerUnavailable, type ServerProcess } from '../support/server-process.js';
import { ceilingKey, ceilingStack, mayBeUnavailable, oursKey, oursStack, PLATFORM_NAME, PLATFORMS, RAW, RAW_STACK, SDK, SDK_STACK, Stacks, unavailableReason } from '../support/stacks.js';
import { lifecycleRequest, messageRequest, streamingRequest, type Platform, type WireRequest } from '../support/wire.js';

/** In flight for the request scenarios: the table is measured with 10 connections. */
const CONNECTIONS = 10;
const FANOUT_STREAMS = 200;
const FANOUT_STEPS = 50;

/** Measurements by `${key}@${inFlight}`. */
type Results = Map<string, Measured>;
const at = (key: string, inFlight: number) => `${key}@${inFlight}`;

interface Section {
  readonly name: string;
  readonly keys: readonly string[];
  readonly levels: readonly number[];
  /** One round of one server: its rate and, for request/answer sections, the latencies. */
  round(server: ServerProcess, inFlight: number, durationMs: number, seq: () => number): Promise<{ perSec: number; latenciesMs?: Float64Array }>;
  /** One operation, checked, before any measurement: ours on Fastify that fails it is "not available yet". */
  probe(server: ServerProcess, seq: () => number): Promise<void>;
}

/** Measures a section's servers, turn by turn in each round, and returns the figures (or why not). */
async function measureSection(section: Section, stacks: Stacks, config: BenchConfig): Promise<Results> {
  const results: Results = new Map();
  const seqs = new Map<string, number>();
  const seqOf = (key: string) => () => {
    const next = seqs.get(key) ?? 0;
    seqs.set(key, next + 1);
    return next;
  };
  const live: Array<{ key: string; server: ServerProcess }> = [];
  for (const key of section.keys) {
    const server = stacks.get(key);
    if (server instanceof ServerUnavailable) {
      for (const level of section.levels) results.set(at(key, level), { unavailable: 'did not start' });
      continue;
    }
    try {
      await section.probe(server, seqOf(key));
      live.push({ key, server });
    } catch (error) {
      const def = stacks.defs.find((d) => d.key === key);
      if (!def || !mayBeUnavailable(def)) throw new Error(`${section.name}: ${stacks.label(key)}: ${(error as Error).message}`, { cause: error });
      for (const level of section.levels) results.set(at(key, level), { unavailable: `wrong answer: ${unavailableReason((error as Error).message)}` });
    }
  }
  for (const level of section.levels) {
    for (const { key, server } of live) await section.round(server, level, config.roundMs, seqOf(key)); // warm-up
    const rounds = new Map<string, { perRound: number[]; latencies: Float64Array[] }>(live.map(({ key }) => [key, { perRound: [], latencies: [] }]));
    for (let round = 0; round < config.rounds; round++) {
      for (const { key, server } of live) {
        try {
          const measured = await section.round(server, level, config.roundMs, seqOf(key));
          rounds.get(key)!.perRound.push(measured.perSec);
          if (measured.latenciesMs) rounds.get(key)!.latencies.push(measured.latenciesMs);
        } catch (error) {
          throw new Error(`${section.name}: ${stacks.label(key)} with ${level} in flight: ${(error as Error).message}`, { cause: error });
        }
      }
    }
    for (const [key, { perRound, latencies }] of rounds) {
      const pooled = latencies.length > 0 ? percentiles(concat(latencies)) : undefined;
      results.set(at(key, level), { perRound, ...pooled });
    }
  }
  return results;
}

function concat(parts: readonly Float64Array[]): Float64Array {
  const all = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return all;
}

/** A request/answer section: `request(seq)` on every server. */
function requestSection(client: LoadClient, name: string, keys: readonly string[], levels: readonly number[], request: (seq: number) => WireRequest): Section {
  return {
    name,
    keys,
    levels,
    async round(server, inFlight, durationMs, seq) {
      const first = seq();
      const measured = await client.round(server.origin, request, inFlight, { ms: durationMs }, first * 1_000_000);
      return { perSec: measured.perSec, latenciesMs: measured.latenciesMs };
    },
    async probe(server, seq) {
      const wire = request(seq() * 1_000_000);
      const { status, body } = await client.send(server.origin, wire);
      wire.check(status, body);
    },
  };
}

/**
 * The fan-out section: a held task, its subscribers, then the release; events delivered per second
 * of delivery. A round repeats the fan-out until it has lasted `durationMs` (streams' opening
 * included): one fan-out is over in tens of milliseconds, where a stray pause or a code path still
 * warming up moved a one-fan-out round by half (bench/README).
 */
function fanoutSection(client: LoadClient, keys: readonly string[]): Section {
  const fanout = async (server: ServerProcess, seq: () => number, streams: number, steps: number) => {
    const held = await streamsOnHeldTask(client, server, streams, steps, seq);
    try {
      const { elapsedMs, missed, example } = await held.releaseAndTally();
      if (missed > 0) throw new Error(`${missed} of ${streams} streams missed events (${example})`);
      return elapsedMs;
    } finally {
      await held.close();
    }
  };
  return {
    name: 'SubscribeToTask fan-out',
    keys,
    levels: [FANOUT_STREAMS],
    async round(server, _inFlight, durationMs, seq) {
      const started = performance.now();
      let deliveringMs = 0;
      let fanouts = 0;
      do {
        deliveringMs += await fanout(server, seq, FANOUT_STREAMS, FANOUT_STEPS);
        fanouts++;
      } while (performance.now() - started < durationMs);
      return { perSec: (fanouts * FANOUT_STREAMS * (FANOUT_STEPS + 1) * 1000) / deliveringMs };
    },
    probe: async (server, seq) => void (await fanout(server, seq, 2, 2)),
  };
}

// ---------------------------------------------------------------- rows and goals

/** The rows of `keys` at every level, with ours' ratios to the SDK and to the ceiling of its platform. */
function rows(stacks: Stacks, results: Results, keys: readonly string[], levels: readonly number[], withCeiling: boolean): Row[] {
  return levels.flatMap((level) =>
    keys.map((key) => {
      const measured = results.get(at(key, level)) ?? { unavailable: 'not measured' };
      const platform = PLATFORMS.find((p) => key.startsWith(`ours-${p}`));
      return {
        label: stacks.label(key),
        inFlight: level,
        measured,
        vsSdk: platform ? ratioOf(measured, results.get(at(SDK, level))) : undefined,
        vsCeiling: platform && withCeiling ? ratioOf(measured, results.get(at(ceilingKey(platform), level))) : undefined,
      };
    }),
  );
}

/** Why ours on `platform` has no figure (for "not available yet"), if it has none. */
function missing(results: Results, key: string, level: number): string | undefined {
  const measured = results.get(at(key, level));
  return isFigure(measured) ? undefined : measured && 'unavailable' in measured ? measured.unavailable : 'not measured';
}

function goalsOf(results: Results, scenario: string, level: number, platform: Platform, sdkTarget: number, ceilingTarget?: number, redis = false): void {
  const key = oursKey(platform, redis);
  const ours = results.get(at(key, level));
  const name = PLATFORM_NAME[platform];
  ratioGoal(`${name}: ${scenario} ≥ ${sdkTarget}× the SDK`, ratioOf(ours, results.get(at(SDK, level))), sdkTarget, missing(results, key, level));
  if (ceilingTarget !== undefined) {
    ratioGoal(`${name}: ${scenario} ≥ ${ceilingTarget} of the ${name} ceiling`, ratioOf(ours, results.get(at(ceilingKey(platform), level))), ceilingTarget, missing(results, key, level));
  }
}

/**
 * What "`times`× the SDK" asks of ours on this machine, in the ceiling's terms: the SDK's rate over
 * the ceiling's moves from machine to machine (0.13 of the Fastify ceiling on one 2-core machine,
 * 0.24 on another, bench/README), where ours' over the ceiling stays put, so a ×SDK line can pass on
 * one and fail on the other with ours unchanged.
 */
function machineNote(results: Results, level: number, platform: Platform, times: number): void {
  const sdkOfCeiling = ratioOf(results.get(at(SDK, level)), results.get(at(ceilingKey(platform), level)));
  if (sdkOfCeiling === undefined) return;
  const name = PLATFORM_NAME[platform];
  out(`machine  the SDK answers at ${sdkOfCeiling.toFixed(2)} of the ${name} ceiling's rate here: ${times}× the SDK is ${(times * sdkOfCeiling).toFixed(2)} of that ceiling`);
}

// ---------------------------------------------------------------- the scenario

const scenario: Scenario = {
  description: 'ours (Express, Fastify) vs @a2a-js/sdk vs bare Nest answering a fixed Message, servers in processes of their own, over HTTP',
  async run(config: BenchConfig) {
    const keyPrefix = runKeyPrefix();
    const client = new LoadClient();
    const ours = PLATFORMS.map((p) => oursStack(p));
    const oursRedis = PLATFORMS.map((p) => oursStack(p, keyPrefix));
    const stacks = await Stacks.start([...ours, ...oursRedis, SDK_STACK, ...PLATFORMS.map(ceilingStack), RAW_STACK]);
    try {
      const messageKeys = [...ours.map((d) => d.key), SDK, ...PLATFORMS.map(ceilingKey), RAW];
      const taskKeys = [oursKey('express'), oursKey('express', true), oursKey('fastify'), oursKey('fastify', true), SDK];
      const lifecycleLevels = [...new Set([1, CONNECTIONS, ...config.concurrency])].sort((a, b) => a - b);

      for (const binding of ['jsonrpc', 'rest'] as const) {
        const name = `Message answer, ${binding === 'jsonrpc' ? 'JSON-RPC' : 'REST'}`;
        const results = await measureSection(requestSection(client, name, messageKeys, [CONNECTIONS], (seq) => messageRequest(binding, seq)), stacks, config);
        printFigures(`${name}: SendMessage → Message (requests/s; ceiling = bare Nest on the same platform, fixed answer)`, 'req/s', rows(stacks, results, messageKeys, [CONNECTIONS], true));
        goalsOf(results, `${name}`, CONNECTIONS, 'express', 1.3, 0.85);
        goalsOf(results, `${name}`, CONNECTIONS, 'fastify', 3, 0.6);
        machineNote(results, CONNECTIONS, 'express', 1.3);
        machineNote(results, CONNECTIONS, 'fastify', 3);
      }

      const lifecycle = await measureSection(requestSection(client, 'task lifecycle', taskKeys, lifecycleLevels, lifecycleRequest), stacks, config);
      printFigures('task lifecycle: blocking SendMessage (JSON-RPC) → SUBMITTED, WORKING, artifact, COMPLETED (requests/s)', 'req/s', rows(stacks, lifecycle, taskKeys, lifecycleLevels, false));
      const sdkAt1 = lifecycle.get(at(SDK, 1));
      if (isFigure(sdkAt1) && sdkAt1.p50Ms !== undefined) {
        const floor: Measurement = { label: stacks.label(SDK), concurrency: 1, ops: 0, elapsedMs: 0, opsPerSec: 0, p50Ms: sdkAt1.p50Ms, p99Ms: sdkAt1.p99Ms ?? 0 };
        await printRedisFloor([floor], floor.label);
      }
      goalsOf(lifecycle, `task lifecycle, in memory, ${CONNECTIONS} in flight`, CONNECTIONS, 'express', 2);
      goalsOf(lifecycle, `task lifecycle, in memory, ${CONNECTIONS} in flight`, CONNECTIONS, 'fastify', 3);
      const top = Math.max(...lifecycleLevels);
      goalsOf(lifecycle, `task lifecycle on Redis, ${top} in flight (vs the SDK in memory)`, top, 'express', 1, undefined, true);
      goalsOf(lifecycle, `task lifecycle on Redis, ${top} in flight (vs the SDK in memory)`, top, 'fastify', 1.5, undefined, true);

      const streaming = await measureSection(requestSection(client, 'streaming', taskKeys, [CONNECTIONS], streamingRequest), stacks, config);
      printFigures('streaming: SendStreamingMessage (JSON-RPC), 4 events (requests/s)', 'req/s', rows(stacks, streaming, taskKeys, [CONNECTIONS], false));
      goalsOf(streaming, 'streaming (4 events), in memory', CONNECTIONS, 'express', 2);
      goalsOf(streaming, 'streaming (4 events), in memory', CONNECTIONS, 'fastify', 3);

      const fanout = await measureSection(fanoutSection(client, taskKeys), stacks, config);
      printFigures(
        `SubscribeToTask fan-out: ${FANOUT_STREAMS} streams on one task, ${FANOUT_STEPS} updates + COMPLETED (events delivered/s; in flight = streams)`,
        'events/s',
        rows(stacks, fanout, taskKeys, [FANOUT_STREAMS], false),
      );
      goalsOf(fanout, 'SubscribeToTask fan-out, in memory', FANOUT_STREAMS, 'express', 2);
      goalsOf(fanout, 'SubscribeToTask fan-out, in memory', FANOUT_STREAMS, 'fastify', 3);
    } finally {
      await client.close();
      await stacks.close();
      await cleanUpRedis(keyPrefix);
    }
    out(`(load: undici keep-alive pools in the bench's process; each server in its own process; ratios: the median of each round's ratio)`);
  },
};

export default scenario;
