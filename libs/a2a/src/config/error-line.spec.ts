import { describe, expect, it } from '@jest/globals';
import { errorLine } from './error-line.js';

describe('errorLine', () => {
  it('gives the first line of the message, cut to the length asked', () => {
    expect(errorLine(new Error('READONLY You cannot write\nagainst a read only replica.'))).toBe('READONLY You cannot write');
    expect(errorLine(new Error('x'.repeat(300)))).toBe('x'.repeat(200));
    expect(errorLine(new Error('x'.repeat(300)), 80)).toBe('x'.repeat(80));
  });

  it('names an error without a message by its name, and anything else by what it is, never "undefined"', () => {
    expect(errorLine(new TypeError())).toBe('TypeError');
    expect(errorLine('plain text\nmore')).toBe('plain text');
    expect(errorLine(undefined)).toBe('an error without a message (undefined)');
    expect(errorLine(null)).toBe('an error without a message (null)');
    expect(errorLine({ code: 'E' })).toBe('an error without a message (object)');
  });
});
