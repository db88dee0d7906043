/**
 * When webhook deliveries are attempted: a schedule of delays, one per attempt (the first one is the
 * delay before the first attempt, usually 0), with jitter, and `Retry-After` as the receiver asks.
 *
 * Pure: the randomness and the clock are arguments.
 */
import { retryAfterMs } from '../net/retry-after.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Named schedules. `default`: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (8
 * attempts over about 33 hours), so a receiver that is down for a day still gets its notifications.
 * `fast`: for development, 5 attempts within about 2.5 minutes.
 * @publicApi
 */
export const RETRY_SCHEDULE_PRESETS = {
  default: [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR],
  fast: [0, SECOND, 5 * SECOND, 30 * SECOND, 2 * MINUTE],
} as const satisfies Record<string, readonly number[]>;

/** @publicApi */
export type RetrySchedulePreset = keyof typeof RETRY_SCHEDULE_PRESETS;

/**
 * A schedule as given in the options: a preset name, a comma-separated list (`"0,200ms,1s,2s"`), or
 * a list of delays (numbers are milliseconds; strings take `ms`, `s`, `m` or `h`, a bare number is
 * milliseconds).
 * @publicApi
 */
export type RetryScheduleInput = RetrySchedulePreset | string | ReadonlyArray<number | string>;

/** The longest single delay a schedule may hold: BullMQ keeps delayed jobs that long without trouble. */
export const MAX_SCHEDULE_DELAY_MS = 7 * 24 * HOUR;
/** Attempts per notification at most. */
export const MAX_SCHEDULE_ENTRIES = 100;

const UNITS: Record<string, number> = { '': 1, ms: 1, s: SECOND, m: MINUTE, h: HOUR };

/** `"200ms"` → 200, `"1.5s"` → 1500, `"2h"` → 7200000, `"250"` → 250; undefined when unreadable. */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? Math.round(text) : undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text);
  if (!match) return undefined;
  const value = Number(match[1]) * UNITS[(match[2] ?? '').toLowerCase()];
  return Number.isFinite(value) ? Math.round(value) : undefined;
}

/**
 * Reads a schedule; each unreadable entry is a problem in `problems` (prefixed with `field`).
 * @returns the delays in milliseconds (empty when there were problems)
 */
export function parseRetrySchedule(input: RetryScheduleInput | undefined, problems: string[], field = 'push.retrySchedule'): number[] {
  if (input === undefined) return [...RETRY_SCHEDULE_PRESETS.default];
  let entries: ReadonlyArray<number | string>;
  if (typeof input === 'string') {
    const preset = (RETRY_SCHEDULE_PRESETS as Record<string, readonly number[]>)[input.trim()];
    if (preset) return [...preset];
    entries = input.split(',');
  } else if (Array.isArray(input)) {
    entries = input;
  } else {
    problems.push(`${field}: must be "default", "fast", a comma-separated list such as "0,5s,5m" or an array of delays`);
    return [];
  }
  const before = problems.length;
  if (entries.length === 0 || (entries.length === 1 && String(entries[0]).trim() === '')) {
    problems.push(`${field}: must hold at least one delay (the first is the delay before the first attempt, usually 0)`);
    return [];
  }
  if (entries.length > MAX_SCHEDULE_ENTRIES) problems.push(`${field}: at most ${MAX_SCHEDULE_ENTRIES} attempts (got ${entries.length})`);
  const delays = entries.map((entry, i) => {
    const ms = typeof entry === 'number' || typeof entry === 'string' ? parseDuration(entry) : undefined;
    if (ms === undefined) {
      problems.push(`${field}[${i}]: "${String(entry).slice(0, 40)}" is not a delay (a number of ms, or a number with ms, s, m or h)`);
      return 0;
    }
    if (ms > MAX_SCHEDULE_DELAY_MS) problems.push(`${field}[${i}]: a delay may be at most 7 days`);
    return ms;
  });
  return problems.length > before ? [] : delays;
}

/**
 * `ms` spread by ±`jitter` (0.2 → between 80 % and 120 %), so receivers that come back up are not hit
 * by every retry at once. 0 stays 0: "immediately" means immediately.
 */
export function jittered(ms: number, jitter: number, random: () => number = Math.random): number {
  if (ms <= 0 || jitter <= 0) return Math.max(0, Math.round(ms));
  return Math.max(0, Math.round(ms * (1 - jitter + 2 * jitter * random())));
}

/**
 * The delay a `Retry-After` header asks for: delta-seconds or an HTTP date, at most `capMs`.
 * Undefined when absent or unreadable (the schedule applies then).
 */
export function retryAfterDelay(header: string | string[] | undefined, nowMs: number, capMs: number): number | undefined {
  const ms = retryAfterMs(header, nowMs);
  return ms === undefined ? undefined : Math.min(ms, capMs);
}

/** Human form of a delay for logs: 0, 250 ms, 5 s, 30 min, 10 h. */
export function formatDelay(ms: number): string {
  if (ms < SECOND) return `${ms} ms`;
  if (ms < MINUTE) return `${+(ms / SECOND).toFixed(1)} s`;
  if (ms < HOUR) return `${+(ms / MINUTE).toFixed(1)} min`;
  return `${+(ms / HOUR).toFixed(1)} h`;
}
