import { describe, expect, it } from '@jest/globals';
import { DeliverySlots } from './delivery-slots.js';

describe('DeliverySlots', () => {
  it('gives a host and a caller at most their limits at once, and takes slots back', () => {
    const slots = new DeliverySlots({ maxInFlightPerHost: 2, maxInFlightPerCaller: 3 });
    const a1 = slots.take('a.example:443', 'alice');
    const a2 = slots.take('a.example:443', 'alice');
    expect(slots.take('a.example:443', 'bob')).toBeUndefined(); // the host is full, whoever asks
    const b1 = slots.take('b.example:443', 'alice');
    expect(slots.take('c.example:443', 'alice')).toBeUndefined(); // alice is full, whatever host
    expect(slots.take('c.example:443', 'bob')).toBeDefined();
    a1!(true);
    a1!(true); // a second release gives nothing back twice
    expect(slots.take('a.example:443', 'bob')).toBeDefined();
    expect(slots.take('a.example:443', 'carol')).toBeUndefined();
    a2!(true);
    b1!(true);
  });

  it('gives a host that let an attempt run into its deadline one delivery at a time, until it answers again', () => {
    const slots = new DeliverySlots({ maxInFlightPerHost: 4, maxInFlightPerCaller: 10 });
    slots.take('hang.example:443', 'alice')!(false);
    expect(slots.isHanging('hang.example:443')).toBe(true);
    const only = slots.take('hang.example:443', 'alice');
    expect(slots.take('hang.example:443', 'bob')).toBeUndefined();
    only!(true);
    expect(slots.isHanging('hang.example:443')).toBe(false);
    const many = [1, 2, 3, 4].map(() => slots.take('hang.example:443', 'alice'));
    expect(many.every(Boolean)).toBe(true);
    expect(slots.take('hang.example:443', 'alice')).toBeUndefined();
  });
});
