/**
 * The test runner's functions for the contract suites, taken from its globals when a suite is
 * described instead of imported: `nestjs-a2a/testing` then loads nothing of jest, so a benchmark,
 * a script or another runner can import the entry's other helpers. Jest puts them there by default
 * (ESM mode too); so does vitest with `globals: true`.
 */
import type * as JestGlobals from '@jest/globals';

export type TestGlobals = Pick<typeof JestGlobals, 'afterEach' | 'beforeEach' | 'describe' | 'expect' | 'it'>;

export function testGlobals(): TestGlobals {
  const runner = globalThis as unknown as Partial<TestGlobals>;
  const missing = (['afterEach', 'beforeEach', 'describe', 'expect', 'it'] as const).filter((name) => typeof runner[name] !== 'function');
  if (missing.length > 0) {
    throw new TypeError(
      `The nestjs-a2a contract suites run inside a test runner with jest's globals (jest, or vitest with globals: true); missing: ${missing.join(', ')}`,
    );
  }
  return runner as TestGlobals;
}
