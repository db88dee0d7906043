import { afterEach, describe, expect, it } from '@jest/globals';
import { TerminalRetention } from './retention.js';

describe('TerminalRetention', () => {
  let clock = 0;
  let dropped: string[] = [];
  let retention: TerminalRetention | undefined;
  const make = (ttlMs: number, maxTerminalTasks: number) => {
    retention = new TerminalRetention({ ttlMs, maxTerminalTasks }, (key) => dropped.push(key), () => clock);
    return retention;
  };

  afterEach(() => {
    retention?.close();
    clock = 0;
    dropped = [];
  });

  it('drops the oldest key past the count limit, and keys that re-entered count from their new entry', () => {
    const r = make(60_000, 2);
    r.finished('a');
    r.finished('b');
    r.finished('a'); // re-entered: now newer than b
    r.finished('c');
    expect(dropped).toEqual(['b']);
    expect([...r.keys()]).toEqual(['a', 'c']);
  });

  it('drops keys past their TTL, oldest first, and never one that was forgotten', () => {
    const r = make(1000, 100);
    r.finished('a');
    clock = 10;
    r.finished('b');
    r.forget('a');
    clock = 500;
    r.finished('c');
    clock = 1010;
    r.sweep();
    expect(dropped).toEqual(['b']);
    clock = 1500;
    r.sweep();
    expect(dropped).toEqual(['b', 'c']);
    expect([...r.keys()]).toEqual([]);
  });

  it('keeps its bookkeeping bounded by the keys it tracks when keys leave behind one that stays', () => {
    const r = make(24 * 60 * 60 * 1000, Number.POSITIVE_INFINITY);
    r.finished('stays');
    for (let i = 0; i < 50_000; i++) {
      r.finished(`k${i}`);
      r.forget(`k${i}`);
    }
    expect([...r.keys()]).toEqual(['stays']);
    expect((r as unknown as { queue: unknown[] }).queue.length).toBeLessThan(5_000);
    expect(r.evictOldest()).toBe(true);
    expect(dropped).toEqual(['stays']);
    expect(r.evictOldest()).toBe(false);
  });

  it('evicts oldest first at the count limit, over many times the limit', () => {
    const r = make(60 * 60 * 1000, 10_000);
    for (let i = 0; i < 60_000; i++) r.finished(`t${i}`);
    expect(dropped).toHaveLength(50_000);
    expect(dropped[0]).toBe('t0');
    expect(dropped.at(-1)).toBe('t49999');
    expect([...r.keys()][0]).toBe('t50000');
  });
});
