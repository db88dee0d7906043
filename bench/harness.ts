/**
 * The benchmark harness: runs operations at a concurrency level after a warm-up, measures ops/s and
 * latency percentiles, and prints a table where every row is compared with a baseline measured in
 * the same run (absolute numbers depend on the machine; ratios between stacks much less so).
 *
 * A scenario is one file under `bench/scenarios/` whose default export is a {@link Scenario}.
 * Most scenarios only need {@link compare}; {@link measure} and {@link printTable} are there for
 * the others.
 */
import { performance } from 'node:perf_hooks';

/** How much to measure: from `--name=value` arguments, else `BENCH_NAME` environment variables. */
export interface BenchConfig {
  /** Measured operations per case, per round and concurrency level. */
  readonly ops: number;
  /** Operations run before measuring, per case and concurrency level, not counted. */
  readonly warmup: number;
  /** Operations in flight at once; every case is measured at each level. */
  readonly concurrency: readonly number[];
  /**
   * Rounds per level. The cases take turns within each round (A, B, C, A, B, C…), so drift over the
   * run (GC pressure, other processes on the machine) is shared among them instead of hitting the last.
   */
  readonly rounds: number;
  /**
   * How long one round of the scenarios with servers in processes of their own lasts (they count
   * operations per second over a time, not a number of operations); the warm-up is one such round.
   */
  readonly roundMs: number;
  /** SSE streams the open-streams scenario holds on one task. */
  readonly streams: number;
  /** Completed tasks after which the retention scenario measures RSS. */
  readonly tasks: number;
  /** `cpu-per-request`: how many times every server is started anew and measured (each a sitting of `rounds` rounds). */
  readonly sittings: number;
  /** Another build's root (a worktree with its `dist-bench/` built) whose servers `cpu-per-request` compares with this one's. */
  readonly base?: string;
  /** `cpu-per-request`: which requests it measures (`jsonrpc`, `rest`, `lifecycle`, `streaming`); all when not given. */
  readonly requests?: readonly string[];
}

export interface Scenario {
  /** One line: what is measured. */
  readonly description: string;
  run(config: BenchConfig): Promise<void>;
}

/** One operation; `seq` is unique within its case (warm-up included), for unique inputs. */
export type Operation = (seq: number) => Promise<void>;

export interface BenchCase {
  readonly label: string;
  readonly op: Operation;
}

export interface Measurement {
  readonly label: string;
  readonly concurrency: number;
  readonly ops: number;
  readonly elapsedMs: number;
  readonly opsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

const DEFAULTS = { ops: 2000, warmup: 500, concurrency: [1, 32], rounds: 5, roundMs: 2000, streams: 10_000, tasks: 100_000, sittings: 1 };

/** The config from `--ops=N --warmup=N --concurrency=1,32 --rounds=N --round-ms=N --streams=N --tasks=N --sittings=N --base=DIR --requests=a,b` or `BENCH_OPS`, `BENCH_ROUND_MS` etc. */
export function readConfig(args: readonly string[], env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const given = (name: string): string | undefined =>
    args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? env[`BENCH_${name.toUpperCase().replaceAll('-', '_')}`];
  const integer = (name: string, fallback: number, min: number): number => {
    const raw = given(name);
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer ≥ ${min} (got ${JSON.stringify(raw)})`);
    return value;
  };
  const levels = given('concurrency');
  const concurrency = levels ? levels.split(',').map((level) => Number(level.trim())) : DEFAULTS.concurrency;
  if (concurrency.some((level) => !Number.isInteger(level) || level < 1)) {
    throw new Error(`--concurrency must be a list of integers ≥ 1, e.g. 1,32 (got ${JSON.stringify(levels)})`);
  }
  return {
    ops: integer('ops', DEFAULTS.ops, 1),
    warmup: integer('warmup', DEFAULTS.warmup, 0),
    concurrency,
    rounds: integer('rounds', DEFAULTS.rounds, 1),
    roundMs: integer('round-ms', DEFAULTS.roundMs, 100),
    streams: integer('streams', DEFAULTS.streams, 1),
    tasks: integer('tasks', DEFAULTS.tasks, 1),
    sittings: integer('sittings', DEFAULTS.sittings, 1),
    base: given('base') || undefined,
    requests: given('requests')?.split(',').map((name) => name.trim()).filter(Boolean),
  };
}

/** Runs `op` `ops` times with `concurrency` in flight; the latencies are those of single operations. */
export async function measure(label: string, op: Operation, ops: number, concurrency: number, firstSeq = 0): Promise<Measurement & { latenciesMs: Float64Array }> {
  const latenciesMs = new Float64Array(ops);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < ops; i = next++) {
      const started = performance.now();
      await op(firstSeq + i);
      latenciesMs[i] = performance.now() - started;
    }
  };
  collectGarbage(); // the previous case's garbage is not this one's cost
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, ops) }, worker));
  } catch (error) {
    next = ops; // the other workers stop after their current operation
    throw new Error(`${label} (concurrency ${concurrency}) failed: ${(error as Error)?.message ?? error}`, { cause: error });
  }
  const elapsedMs = performance.now() - started;
  return { label, concurrency, ops, elapsedMs, opsPerSec: (ops * 1000) / elapsedMs, ...percentiles(latenciesMs), latenciesMs };
}

/**
 * Measures every case at every concurrency level (warm-up first, then `rounds` interleaved rounds,
 * pooled), prints the table with each row's ops/s as a ratio to the first case (the baseline) at
 * the same level, and returns the measurements.
 */
export async function compare(title: string, cases: readonly BenchCase[], config: BenchConfig): Promise<Measurement[]> {
  const seqs = cases.map(() => 0);
  const results: Measurement[] = [];
  for (const concurrency of config.concurrency) {
    for (const [index, { label, op }] of cases.entries()) {
      if (config.warmup > 0) await measure(`${label} warm-up`, op, config.warmup, concurrency, seqs[index]);
      seqs[index] += config.warmup;
    }
    const pooled = cases.map(() => ({ elapsedMs: 0, latencies: [] as Float64Array[] }));
    for (let round = 0; round < config.rounds; round++) {
      for (const [index, { label, op }] of cases.entries()) {
        const m = await measure(label, op, config.ops, concurrency, seqs[index]);
        seqs[index] += config.ops;
        pooled[index].elapsedMs += m.elapsedMs;
        pooled[index].latencies.push(m.latenciesMs);
      }
    }
    for (const [index, { label }] of cases.entries()) {
      const ops = config.ops * config.rounds;
      const latencies = new Float64Array(ops);
      pooled[index].latencies.forEach((part, round) => latencies.set(part, round * config.ops));
      const { elapsedMs } = pooled[index];
      results.push({ label, concurrency, ops, elapsedMs, opsPerSec: (ops * 1000) / elapsedMs, ...percentiles(latencies) });
    }
  }
  printTable(title, results, cases[0].label);
  return results;
}

/** The ops/s of `label` over that of `baseline` at one concurrency level. */
export function ratio(results: readonly Measurement[], label: string, baseline: string, concurrency: number): number {
  const find = (l: string) => results.find((m) => m.label === l && m.concurrency === concurrency);
  const a = find(label);
  const b = find(baseline);
  if (!a || !b) throw new Error(`no measurement of ${!a ? label : baseline} at concurrency ${concurrency}`);
  return a.opsPerSec / b.opsPerSec;
}

/** A table of measurements; `vs base` is ops/s over the baseline's at the same concurrency. */
export function printTable(title: string, results: readonly Measurement[], baseline: string): void {
  const header = ['case', 'in flight', 'ops/s', 'p50 ms', 'p99 ms', 'vs base'];
  const rows = results.map((m) => [
    m.label === baseline ? `${m.label} (base)` : m.label,
    String(m.concurrency),
    Math.round(m.opsPerSec).toLocaleString('en-US'),
    m.p50Ms.toFixed(3),
    m.p99Ms.toFixed(3),
    ratio(results, m.label, baseline, m.concurrency).toFixed(2),
  ]);
  const widths = header.map((h, col) => Math.max(h.length, ...rows.map((r) => r[col].length)));
  const line = (cells: string[]) => cells.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]) : cell.padStart(widths[col]))).join('  ');
  out(`\n${title}\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  let level = results[0]?.concurrency;
  for (const [i, row] of rows.entries()) {
    if (results[i].concurrency !== level) {
      out('');
      level = results[i].concurrency;
    }
    out(line(row));
  }
}

// ---------------------------------------------------------------- goals

/** Where a goal stands after a run. */
export type GoalStatus = 'MET' | 'NOT MET' | 'not available yet';

/** One line of a goal (issue 14, "The goal"): what it asks, what was measured, where it stands. */
export interface GoalLine {
  readonly goal: string;
  readonly measured: string;
  readonly status: GoalStatus;
}

const goalLines: GoalLine[] = [];

/** Prints a goal's line now and keeps it for the summary `run.ts` prints at the end. */
export function reportGoal(line: GoalLine): void {
  goalLines.push(line);
  out(`GOAL     ${line.goal}: ${line.measured} → ${line.status}`);
}

/** Every goal line reported so far in this run. */
export function reportedGoals(): readonly GoalLine[] {
  return goalLines;
}

/** Writes a line to stdout (not through `console`, which {@link muteConsole} may have muted). */
export function out(text = ''): void {
  process.stdout.write(`${text}\n`);
}

/** A table of text cells, each column as wide as its widest cell, left-aligned. */
export function printColumns(header: readonly string[], rows: ReadonlyArray<readonly string[]>): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const line of [header, ...rows]) out(line.map((cell, i) => cell.padEnd(widths[i])).join('  '));
}

let muted = 0;
let mutedCalls = 0;
const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;
const originalConsole = Object.fromEntries(CONSOLE_METHODS.map((m) => [m, console[m]])) as Record<(typeof CONSOLE_METHODS)[number], (...args: unknown[]) => void>;

/**
 * Mutes `console.*` until the returned function is called: for libraries that log with console
 * (the official SDK does, on its error paths). Nested and concurrent uses are counted, so it is safe
 * around concurrent operations. {@link mutedConsoleCalls} tells how many calls were swallowed.
 */
export function muteConsole(): () => void {
  if (muted++ === 0) for (const method of CONSOLE_METHODS) console[method] = () => void mutedCalls++;
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    if (--muted === 0) for (const method of CONSOLE_METHODS) console[method] = originalConsole[method];
  };
}

export function mutedConsoleCalls(): number {
  return mutedCalls;
}

/** Runs a full GC when node runs with `--expose-gc` (as `npm run bench` does). */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** p50 and p99 of `latenciesMs` (nearest rank). */
export function percentiles(latenciesMs: Float64Array): { p50Ms: number; p99Ms: number } {
  const sorted = Float64Array.from(latenciesMs).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  return { p50Ms: at(0.5), p99Ms: at(0.99) };
}
