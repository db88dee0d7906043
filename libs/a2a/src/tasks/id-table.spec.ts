import { describe, expect, it } from '@jest/globals';
import { IdTable } from './id-table.js';

describe('IdTable', () => {
  it('keeps one value per id and counts them, whatever the id looks like', () => {
    const table = new IdTable<{ n: number }>();
    const ids = ['t-1', '__proto__', 'constructor', '42', 'hasOwnProperty', ''];
    ids.forEach((id, n) => table.set(id, { n }));
    table.set('t-1', { n: 9 }); // replaced, not counted twice
    expect(table.size).toBe(ids.length);
    expect(ids.map((id) => table.get(id)?.n)).toEqual([9, 1, 2, 3, 4, 5]);
    expect(table.has('toString')).toBe(false);
    expect(table.get('toString')).toBeUndefined();
    expect(table.values().map((v) => v.n).sort()).toEqual([1, 2, 3, 4, 5, 9]);
  });

  it('forgets a deleted id, and says whether there was one', () => {
    const table = new IdTable<{ n: number }>();
    table.set('a', { n: 1 });
    table.set('b', { n: 2 });
    expect(table.delete('a')).toBe(true);
    expect(table.delete('a')).toBe(false);
    expect(table.delete('never')).toBe(false);
    expect(table.has('a')).toBe(false);
    expect(table.size).toBe(1);
    expect(table.values()).toEqual([{ n: 2 }]);
  });

  it('agrees with a Map through churn: slots taken again, the table emptied and filled again', () => {
    const table = new IdTable<{ n: number }>();
    const model = new Map<string, { n: number }>();
    let seed = 7;
    const random = (below: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % below;
    for (let step = 0; step < 5000; step++) {
      const id = `id-${random(40)}`;
      if (random(3) === 0) {
        expect(table.delete(id)).toBe(model.delete(id));
      } else {
        const value = { n: step };
        table.set(id, value);
        model.set(id, value);
      }
      if (step % 500 === 0) for (const key of [...model.keys()]) expect(table.delete(key)).toBe(model.delete(key)); // emptied
      expect(table.size).toBe(model.size);
      expect(table.get(id)).toBe(model.get(id));
      expect(table.has(id)).toBe(model.has(id));
    }
    expect(table.values().sort((a, b) => a.n - b.n)).toEqual([...model.values()].sort((a, b) => a.n - b.n));
  });

  it('lets the slots of a burst go once empty, and keeps a few for a table that empties per request', () => {
    const table = new IdTable<{ n: number }>();
    const slotsOf = (t: IdTable<{ n: number }>) => (t as unknown as { entries: unknown[] }).entries.length;
    const fill = (count: number, tag: string) => Array.from({ length: count }, (_, n) => (table.set(`${tag}-${n}`, { n }), `${tag}-${n}`));
    for (const id of fill(3000, 'burst')) table.delete(id);
    expect(table.size).toBe(0);
    expect(slotsOf(table)).toBe(0);
    for (let round = 0; round < 3; round++) {
      const ids = fill(10, `round${round}`);
      expect(ids.map((id) => table.get(id)?.n)).toEqual(ids.map((_, n) => n));
      for (const id of ids) table.delete(id);
      expect(table.size).toBe(0);
      expect(slotsOf(table)).toBe(10); // the same ten slots, taken again each round
    }
    expect(table.values()).toEqual([]);
  });
});
