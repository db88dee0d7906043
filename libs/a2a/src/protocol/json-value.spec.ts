import { describe, expect, it } from '@jest/globals';
import { jsonSizeOf } from './json-value.js';

describe('jsonSizeOf', () => {
  it.each([
    ['a string', 'hello'],
    ['a number', 12345678],
    ['true', true],
    ['null', null],
    ['an array', ['a', 1, null, false]],
    ['an object', { text: 'x'.repeat(1000), parts: [{ text: 'y' }, { data: { n: 1 } }] }],
    ['an empty object', {}],
  ])('is close to the length of the JSON of %s', (_name, value) => {
    const exact = JSON.stringify(value).length;
    const estimate = jsonSizeOf(value);
    expect(estimate).toBeGreaterThanOrEqual(exact * 0.8);
    expect(estimate).toBeLessThanOrEqual(exact * 1.5 + 8);
  });

  it('skips undefined members, as JSON does', () => {
    expect(jsonSizeOf({ a: undefined, b: 'x' })).toBe(jsonSizeOf({ b: 'x' }));
  });
});
