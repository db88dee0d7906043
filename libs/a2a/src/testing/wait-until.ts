import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Checks `check` up to `attempts` + 1 times, `intervalMs` apart, until it holds: for what a test
 * cannot await (another process, a timer of the code under test). It never fails by itself; the
 * test asserts afterwards, so a condition that never came says what it is.
 * @publicApi
 */
export async function waitUntil(check: () => boolean | Promise<boolean>, { attempts = 100, intervalMs = 50 } = {}): Promise<void> {
  for (let i = 0; i < attempts && !(await check()); i++) await sleep(intervalMs);
}
