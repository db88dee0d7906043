import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { RunningTurns, type RunningTurn } from './running-turns.js';

/** A turn as the list sees it: a name, and when it was told its time ran out. */
class FakeTurn implements RunningTurn<FakeTurn> {
  older?: FakeTurn;
  newer?: FakeTurn;
  readonly startedAt = performance.now();
  readonly overdueAt: number[] = [];

  constructor(readonly name: string) {}

  overdue(): void {
    this.overdueAt.push(performance.now() - this.startedAt);
  }
}

const names = (list: RunningTurns<FakeTurn>) => list.values().map((turn) => turn.name);

/** Time passes on jest's clock (timers and `performance.now()` alike). */
const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);

describe('RunningTurns', () => {
  let list: RunningTurns<FakeTurn> | undefined;
  afterEach(() => {
    list?.close();
    jest.restoreAllMocks();
    jest.useRealTimers(); // after close: the timer it clears is jest's
  });

  it('lists the turns oldest first, wherever one leaves from, and counts them', () => {
    list = new RunningTurns(60_000);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => new FakeTurn(name));
    [a, b, c, d].forEach((turn) => list!.add(turn));
    expect(names(list)).toEqual(['a', 'b', 'c', 'd']);
    list.delete(b); // between two
    expect(names(list)).toEqual(['a', 'c', 'd']);
    list.delete(a); // the oldest
    list.delete(d); // the newest
    expect(names(list)).toEqual(['c']);
    expect(list.size).toBe(1);
    list.delete(c);
    expect(list.values()).toEqual([]);
    expect(list.size).toBe(0);
  });

  it('ignores a turn that is not in it: never added, or deleted already', () => {
    list = new RunningTurns(60_000);
    const [a, b] = [new FakeTurn('a'), new FakeTurn('b')];
    list.add(a);
    list.add(b);
    list.delete(new FakeTurn('stranger'));
    list.delete(a);
    list.delete(a);
    expect(names(list)).toEqual(['b']);
    expect(list.size).toBe(1);
    list.add(a); // a turn that left can come back (the list keeps nothing of its first stay)
    expect(names(list)).toEqual(['b', 'a']);
  });

  /**
   * On jest's clock: a real timer may fire a millisecond before `performance.now()` says its time is up
   * (libuv arms it from the loop's cached time), and the list then sweeps once more, telling a stuck turn
   * one extra time: right, but not what a count can assert (CI failed on it once).
   */
  describe('as time passes', () => {
    beforeEach(() => {
      jest.useFakeTimers();
    });

    it('tells each turn once its own time has run out, not before, with one timer for all of them', async () => {
      const timers = jest.spyOn(globalThis, 'setTimeout');
      list = new RunningTurns(300);
      const first = new FakeTurn('first');
      list.add(first);
      const quick = Array.from({ length: 50 }, (_, n) => new FakeTurn(`quick ${n}`));
      quick.forEach((turn) => list!.add(turn));
      quick.forEach((turn) => list!.delete(turn)); // Message answers: over at once
      expect(timers).toHaveBeenCalledTimes(1);
      await advance(299);
      expect(first.overdueAt).toEqual([]); // not before its time
      await advance(1);
      expect(first.overdueAt).toEqual([300]);
      const later = new FakeTurn('later'); // at 300: its deadline is 600
      list.add(later);
      await advance(299);
      expect(later.overdueAt).toEqual([]);
      await advance(1);
      expect(later.overdueAt).toEqual([300]);
      expect(first.overdueAt).toEqual([300, 600]); // still running (never deleted): told again
      expect(quick.every((turn) => turn.overdueAt.length === 0)).toBe(true);
    });

    it('tells a turn started less than a millisecond after the oldest at its own deadline, not with the oldest', async () => {
      list = new RunningTurns(300);
      const first = new FakeTurn('first');
      list.add(first);
      await advance(0.5);
      const close = new FakeTurn('close behind'); // its deadline: 300.5
      list.add(close);
      await advance(299.5);
      expect(first.overdueAt).toEqual([300]);
      expect(close.overdueAt).toEqual([]); // the sweep at 300 finds it half a millisecond short
      await advance(1); // set again for the rest, rounded up to a whole millisecond
      expect(close.overdueAt).toEqual([300.5]);
    });

    it('tells a turn still running past its deadline again at a later deadline (the turn stops once)', async () => {
      list = new RunningTurns(20);
      const stuck = new FakeTurn('stuck');
      list.add(stuck);
      await advance(60); // told once
      const next = new FakeTurn('next');
      list.add(next);
      await advance(100); // told again at next's deadline
      expect(stuck.overdueAt.length).toBe(2);
      expect(next.overdueAt.length).toBe(1);
      expect(names(list)).toEqual(['stuck', 'next']); // told, not taken out: a turn leaves when it is over
    });

    it('sets no timer again once every turn has left, and none at all once closed', async () => {
      const timers = jest.spyOn(globalThis, 'setTimeout');
      list = new RunningTurns(20);
      const gone = new FakeTurn('gone');
      list.add(gone);
      list.delete(gone);
      await advance(40);
      expect(timers).toHaveBeenCalledTimes(1); // the one that found nobody left
      expect(gone.overdueAt).toEqual([]);

      const kept = new FakeTurn('kept');
      list.add(kept);
      list.close();
      await advance(40);
      expect(kept.overdueAt).toEqual([]);
    });
  });
});
