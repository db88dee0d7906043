import { describe, expect, it } from '@jest/globals';
import { jsonSizeOf, withFields } from './json-value.js';

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

describe('withFields', () => {
  it('is the spread { ...source, ...fields }: the same keys in the same order, fields winning, the source untouched', () => {
    const source = { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }], taskId: 'old' };
    const copy = withFields(source, { contextId: 'c', taskId: 't' });
    expect(copy).toEqual({ ...source, ...{ contextId: 'c', taskId: 't' } });
    expect(Object.keys(copy)).toEqual(Object.keys({ ...source, ...{ contextId: 'c', taskId: 't' } }));
    expect(copy).not.toBe(source);
    expect(source).toEqual({ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }], taskId: 'old' });
    expect(copy.parts).toBe(source.parts); // shallow, as a spread
  });
});
