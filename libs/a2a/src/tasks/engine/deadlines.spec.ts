import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Deadlines } from './deadlines.js';

describe('Deadlines', () => {
  let deadlines: Deadlines<string>;
  let expired: string[];

  beforeEach(() => {
    expired = [];
    deadlines = new Deadlines<string>(80, (key) => expired.push(key));
  });

  afterEach(() => deadlines.clear());

  it('expires each key its own time after its start, in order, on one timer', async () => {
    deadlines.start('a');
    await sleep(40);
    deadlines.start('b');
    await sleep(60); // a is due (80), b is not (40 of 80)
    expect(expired).toEqual(['a']);
    await sleep(60);
    expect(expired).toEqual(['a', 'b']);
  });

  it('does not expire an ended key, and still expires the ones after it', async () => {
    deadlines.start('a');
    await sleep(40);
    deadlines.start('b');
    deadlines.end('a');
    await sleep(60); // the timer armed for a fires, finds b not yet due and waits for it
    expect(expired).toEqual([]);
    await sleep(60);
    expect(expired).toEqual(['b']);
  });

  it('expires nothing once cleared', async () => {
    deadlines.start('a');
    deadlines.clear();
    await sleep(120);
    expect(expired).toEqual([]);
  });
});
