import { describe, expect, it } from '@jest/globals';
import { RETRY_SCHEDULE_PRESETS, formatDelay, jittered, parseDuration, parseRetrySchedule, retryAfterDelay } from './retry-schedule.js';

describe('parseDuration', () => {
  it.each([
    ['0', 0],
    ['250', 250],
    ['250ms', 250],
    ['1s', 1000],
    ['1.5s', 1500],
    ['5m', 300_000],
    ['2h', 7_200_000],
    [' 10 s ', 10_000],
    ['3MS', 3],
    [42, 42],
  ])('%p → %p ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each(['', 'abc', '-1', '1d', '1 2', 'ms', '1e3', Number.NaN, -5, Number.POSITIVE_INFINITY])('refuses %p', (input) => {
    expect(parseDuration(input)).toBeUndefined();
  });
});

describe('parseRetrySchedule', () => {
  it('defaults to immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(parseRetrySchedule(undefined, [])).toEqual([0, 5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(parseRetrySchedule('default', [])).toEqual([...RETRY_SCHEDULE_PRESETS.default]);
  });

  it('reads presets, comma-separated strings and arrays', () => {
    expect(parseRetrySchedule('fast', [])).toEqual([0, 1000, 5000, 30_000, 120_000]);
    expect(parseRetrySchedule('0,200ms,1s,2s', [])).toEqual([0, 200, 1000, 2000]);
    expect(parseRetrySchedule([0, '5s', 300], [])).toEqual([0, 5000, 300]);
  });

  it('lists every unreadable entry', () => {
    const problems: string[] = [];
    expect(parseRetrySchedule('0,soon,1s,8d', problems)).toEqual([]);
    expect(problems).toEqual([
      'push.retrySchedule[1]: "soon" is not a delay (a number of ms, or a number with ms, s, m or h)',
      'push.retrySchedule[3]: "8d" is not a delay (a number of ms, or a number with ms, s, m or h)',
    ]);
  });

  it('refuses an empty schedule, one over 7 days and one over 100 attempts', () => {
    for (const input of ['', []]) {
      const problems: string[] = [];
      parseRetrySchedule(input as never, problems);
      expect(problems).toEqual([expect.stringContaining('at least one delay')]);
    }
    const long: string[] = [];
    parseRetrySchedule([0, '169h'], long);
    expect(long).toEqual(['push.retrySchedule[1]: a delay may be at most 7 days']);
    const many: string[] = [];
    parseRetrySchedule(Array(101).fill(0), many);
    expect(many).toEqual(['push.retrySchedule: at most 100 attempts (got 101)']);
  });
});

describe('jittered', () => {
  it('spreads a delay by ±jitter and keeps 0 at 0', () => {
    expect(jittered(1000, 0.2, () => 0)).toBe(800);
    expect(jittered(1000, 0.2, () => 0.5)).toBe(1000);
    expect(jittered(1000, 0.2, () => 0.999_999)).toBe(1200);
    expect(jittered(0, 0.2, () => 1)).toBe(0);
    expect(jittered(1000, 0, () => 0)).toBe(1000);
  });

  it('stays within ±20 % over many draws', () => {
    for (let i = 0; i < 1000; i++) {
      const ms = jittered(5000, 0.2);
      expect(ms).toBeGreaterThanOrEqual(4000);
      expect(ms).toBeLessThanOrEqual(6000);
    }
  });
});

describe('retryAfterDelay', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it.each([
    ['120', 120_000],
    ['0', 0],
    ['Sun, 01 Mar 2026 12:00:30 GMT', 30_000],
    ['Sun, 01 Mar 2026 11:00:00 GMT', 0], // in the past: now
    [['7', '9'], 7000],
  ])('%p → %p ms', (header, ms) => {
    expect(retryAfterDelay(header as string, now, 3_600_000)).toBe(ms);
  });

  it('caps what it honours', () => {
    expect(retryAfterDelay('86400', now, 3_600_000)).toBe(3_600_000);
    expect(retryAfterDelay('Mon, 02 Mar 2026 12:00:00 GMT', now, 3_600_000)).toBe(3_600_000);
  });

  it.each([undefined, '', 'soon', '-5', '1.5'])('ignores %p', (header) => {
    expect(retryAfterDelay(header, now, 3_600_000)).toBeUndefined();
  });
});

describe('formatDelay', () => {
  it.each([
    [0, '0 ms'],
    [250, '250 ms'],
    [5000, '5 s'],
    [1_800_000, '30 min'],
    [36_000_000, '10 h'],
  ])('%p → %p', (ms, text) => {
    expect(formatDelay(ms)).toBe(text);
  });
});
