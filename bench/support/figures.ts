/**
 * Figures of the scenarios with servers in processes of their own: each a median over rounds with
 * its spread, printed in tables beside the ratios ours/SDK and ours/ceiling, and the goal lines
 * those ratios are judged by.
 *
 * This folder is not `bench/scenarios/`, so `run.ts` does not take these files for scenarios.
 */
import { out, reportGoal } from '../harness.js';
import type { MemoryFigures } from './wire.js';

/** A rate measured over several rounds. */
export interface Figure {
  /** The rate of each round (operations, or deliveries, per second). */
  readonly perRound: readonly number[];
  /** Latency percentiles over the operations of every round, when operations have one. */
  readonly p50Ms?: number;
  readonly p99Ms?: number;
}

/** What a row shows: a figure, or why there is none. */
export type Measured = Figure | { readonly unavailable: string };

export const isFigure = (m: Measured | undefined): m is Figure => m !== undefined && 'perRound' in m;

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * `measured` over `base`: the median of the ratios of each round (the cases take turns within a
 * round, so the two figures of one round saw the same machine), or undefined when either is missing.
 */
export function ratioOf(measured: Measured | undefined, base: Measured | undefined): number | undefined {
  if (!isFigure(measured) || !isFigure(base)) return undefined;
  const rounds = Math.min(measured.perRound.length, base.perRound.length);
  return median(Array.from({ length: rounds }, (_, i) => measured.perRound[i] / base.perRound[i]));
}

export interface Row {
  readonly label: string;
  readonly inFlight: number | string;
  readonly measured: Measured;
  readonly vsSdk?: number;
  readonly vsCeiling?: number;
}

const count = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const times = (r: number | undefined) => (r === undefined ? '—' : r.toFixed(2));

/**
 * A table: the median rate, its spread over the rounds (min–max and ± half that range in % of the
 * median), p50/p99 when operations have a latency, and the ratios.
 */
export function printFigures(title: string, unit: string, rows: readonly Row[], digits = 0): void {
  const header = ['case', 'in flight', `${unit} median`, 'spread (min–max)', '±%', 'p50 ms', 'p99 ms', 'ours/SDK', 'ours/ceiling'];
  const cells = rows.map((row) => {
    if (!isFigure(row.measured)) return [row.label, String(row.inFlight), `not available yet (${row.measured.unavailable})`];
    const { perRound, p50Ms, p99Ms } = row.measured;
    const mid = median(perRound);
    const low = Math.min(...perRound);
    const high = Math.max(...perRound);
    return [
      row.label,
      String(row.inFlight),
      count(mid, digits),
      `${count(low, digits)}–${count(high, digits)}`,
      `${(((high - low) / 2 / mid) * 100).toFixed(0)}`,
      p50Ms === undefined ? '—' : p50Ms.toFixed(3),
      p99Ms === undefined ? '—' : p99Ms.toFixed(3),
      times(row.vsSdk),
      times(row.vsCeiling),
    ];
  });
  const widths = header.map((h, col) => Math.max(h.length, ...cells.filter((c) => c.length === header.length).map((c) => c[col].length)));
  const line = (row: string[]) => row.map((cell, col) => (col === 0 || row.length < header.length ? cell.padEnd(widths[col]) : cell.padStart(widths[col]))).join('  ');
  out(`\n${title}\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const row of cells) out(line(row));
}

/**
 * Reports a goal "ratio ≥ target": MET / NOT MET, or "not available yet" when a side of the ratio
 * could not be measured (ours on a platform that does not run yet).
 */
export function ratioGoal(goal: string, ratio: number | undefined, target: number, why?: string): void {
  reportGoal(
    ratio === undefined
      ? { goal, measured: why ?? 'not measured', status: 'not available yet' }
      : { goal, measured: `${ratio.toFixed(2)} (goal ≥ ${target.toFixed(2)})`, status: ratio >= target ? 'MET' : 'NOT MET' },
  );
}

const MB = 1024 * 1024;

/** Where an RSS growth sits: the JS heap in use, what V8 holds for it, and memory outside it. */
export function memoryGrowth(before: MemoryFigures, after: MemoryFigures): string {
  const mb = (key: keyof MemoryFigures) => `${after[key] >= before[key] ? '+' : ''}${((after[key] - before[key]) / MB).toFixed(1)} MB`;
  return `heap used ${mb('heapUsed')}, heap held ${mb('heapTotal')}, external ${mb('external')}`;
}
